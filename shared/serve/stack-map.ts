/**
 * Stack traces in TypeScript for a bundle that the preload compiled itself (./preload.ts, with V8's
 * code cache), as `--enable-source-maps` gives them for what Node's own loader compiles. Node maps
 * only the scripts its loader saw (it caches a script's source map when the CommonJS or ES module
 * loader compiles it; a `vm.Script` is not among them), so with source maps on the preload used to
 * leave the code cache alone, and the image, which keeps source maps on, started every replica
 * without it.
 *
 * What Node does, and this does the same way (node v20 `lib/internal/source_map/
 * prepare_stack_trace.js`): each frame of a mapped file becomes `at <name> (<source>:<line>:<col>)`
 * with the original position (`SourceMap.findEntry`, 0-based in, 1-based out); the name is the
 * symbol the map gives the enclosing function, else the one at the caller's site in the same file,
 * else the runtime's `Type.fn`; frames of other files stay as V8 writes them. The map is read when
 * the first stack is formatted, not at start.
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the formatter needs of `node:module`'s SourceMap. */
export interface EntryFinder {
  findEntry(
    line: number,
    column: number,
  ): {
    originalSource?: string;
    originalLine?: number;
    originalColumn?: number;
    name?: string;
  };
}

/** What the formatter reads of a V8 call site. */
export interface Frame {
  getFileName(): string | null | undefined;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  getEnclosingLineNumber?(): number | null;
  getEnclosingColumnNumber?(): number | null;
  getFunctionName(): string | null;
  getMethodName(): string | null;
  getTypeName(): string | null;
  toString(): string;
}

function sourcePath(source: string, mapDir: string): string {
  if (source.startsWith('file://')) return fileURLToPath(source);
  return isAbsolute(source) ? source : resolve(mapDir, source);
}

function entryName(
  map: EntryFinder,
  line: number | null | undefined,
  column: number | null | undefined,
): string | undefined {
  if (!line || !column) return undefined;
  return map.findEntry(line - 1, column - 1).name || undefined;
}

function originalName(map: EntryFinder, frames: readonly Frame[], i: number): string | undefined {
  const frame = frames[i];
  const enclosing = entryName(map, frame.getEnclosingLineNumber?.(), frame.getEnclosingColumnNumber?.());
  if (enclosing) return enclosing;
  const caller = frames[i + 1];
  if (caller === undefined || caller.getFileName() !== frame.getFileName()) return undefined;
  return entryName(map, caller.getLineNumber(), caller.getColumnNumber());
}

/** `Type.fn` as V8 names the frame's function (no type for the global object). */
function runtimeName(frame: Frame): string {
  const typeName = frame.getTypeName();
  const fn = frame.getFunctionName() ?? frame.getMethodName() ?? '<anonymous>';
  return typeName !== null && typeName !== 'global' ? `${typeName}.${fn}` : fn;
}

/** One frame as Node writes a source-mapped frame, or V8's own text when the map has no entry. */
export function formatFrame(map: EntryFinder, mapDir: string, frames: readonly Frame[], i: number): string {
  const frame = frames[i];
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  if (!line || !column) return frame.toString();
  const entry = map.findEntry(line - 1, column - 1);
  if (!entry.originalSource || entry.originalLine === undefined || entry.originalColumn === undefined)
    return frame.toString();
  const name = originalName(map, frames, i) ?? runtimeName(frame);
  return `${name} (${sourcePath(entry.originalSource, mapDir)}:${entry.originalLine + 1}:${entry.originalColumn + 1})`;
}

/** The whole `error.stack` text: V8's header line, then one `at` line per frame. */
export function formatStack(
  error: unknown,
  frames: readonly Frame[],
  mapFor: (file: string) => EntryFinder | undefined,
  mapDir: string,
): string {
  let header: string;
  try {
    header = error instanceof Error ? Error.prototype.toString.call(error) : String(error);
  } catch {
    header = '<error>';
  }
  const lines = frames.map((frame, i) => {
    const file = frame.getFileName();
    const map = file ? mapFor(file) : undefined;
    return `\n    at ${map ? formatFrame(map, mapDir, frames, i) : frame.toString()}`;
  });
  return header + lines.join('');
}

/**
 * Maps the stacks of `bundle` with `<bundle>.map` (read on first use; without a readable map,
 * stacks stay as V8 writes them). A stack with no frame of the bundle goes to the
 * `Error.prepareStackTrace` that was there before (with source maps on, Node's own).
 */
export function installStackMapper(bundle: string): void {
  const previous: ((error: Error, frames: NodeJS.CallSite[]) => unknown) | undefined =
    Error.prepareStackTrace?.bind(Error);
  let map: EntryFinder | null | undefined;
  const load = (): EntryFinder | undefined => {
    if (map === undefined) {
      try {
        const payload = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as SourceMapPayload;
        const sourceMap = new SourceMap(payload);
        map = { findEntry: (line, column) => sourceMap.findEntry(line, column) };
      } catch {
        map = null;
      }
    }
    return map ?? undefined;
  };
  Error.prepareStackTrace = (error, frames) => {
    if (previous && !frames.some((f) => f.getFileName() === bundle)) return previous(error, frames);
    return formatStack(error, frames, (file) => (file === bundle ? load() : undefined), dirname(bundle));
  };
}
