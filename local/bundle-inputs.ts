/**
 * The inputs a cached bundle is checked against (local/bundle.ts, ./bundle-cache.ts): of one
 * esbuild run over several functions, every file it read, except the files in another function's
 * folder that contribute nothing to this bundle. Every input of the run still counts (a file
 * tree-shaken away today may contribute after a change), but a function bundled in the same run
 * does not tie this bundle to its own files: a function folder that is deleted (the idle e2e
 * test's throw-away function) no longer makes every bundle of its run stale for good.
 */
import { resolve, sep } from 'node:path';
import type { Metafile } from 'esbuild';
import { inputStats, type CacheManifest } from './bundle-cache.js';

export interface InputTarget {
  /** The bundle's output folder. */
  dir: string;
  /** The function's own folder (`<functionsDir>/<name>`). */
  source: string;
}

/** The absolute paths `target`'s cache entry is checked against. */
export function inputsOf(target: InputTarget, all: readonly InputTarget[], metafile: Metafile): string[] {
  const own = new Set<string>();
  const dir = resolve(target.dir) + sep;
  for (const [file, out] of Object.entries(metafile.outputs)) {
    if (resolve(file).startsWith(dir)) for (const p of Object.keys(out.inputs)) own.add(resolve(p));
  }
  const others = all.filter((t) => t !== target).map((t) => resolve(t.source) + sep);
  return Object.keys(metafile.inputs)
    .map((p) => resolve(p))
    .filter((p) => own.has(p) || !others.some((d) => p.startsWith(d)));
}

/** inputsOf of each target of one run, with each file's size and mtime (in the targets' order). */
export async function inputsOfRun(
  targets: readonly InputTarget[],
  metafile: Metafile,
): Promise<Array<CacheManifest['inputs']>> {
  const stats = await inputStats(Object.keys(metafile.inputs).map((p) => resolve(p)));
  return targets.map((t) =>
    Object.fromEntries(inputsOf(t, targets, metafile).flatMap((p) => (stats[p] ? [[p, stats[p]]] : []))),
  );
}
