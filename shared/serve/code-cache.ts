/**
 * V8's code cache for a server bundle (`server.cjs`): what `preload.cjs` (./preload.ts, `node
 * --require ./preload.cjs server.js`) uses so that a replica's cold start does not parse and compile the
 * bundle again. Node 20 has no built-in compile cache for user code (`module.enableCompileCache`
 * arrives in Node 22.1), so the main module is compiled as Node's CommonJS loader compiles it
 * (`Module.wrap`, lib/internal/modules/cjs/loader.js `wrapSafe`) but through `vm.Script` with
 * `cachedData`: the `vm` API every Node version has.
 *
 * The cache file (`server.cjs.codecache`) is the data of `script.createCachedData()` taken after
 * the process answered its first request (so it holds the functions that request compiled,
 * not only the top level), behind a header naming the bundle it was made from (size and mtime of
 * server.cjs, Node's version and architecture). V8 itself refuses data of another V8 version or
 * other flags (`cachedDataRejected`), but it checks only the source's length: the header is what
 * keeps a cache from a different bundle of the same length from being used. A cache that is
 * missing, of another bundle or refused is not an error: the bundle compiles as without a cache,
 * and the process writes a fresh one after its first response (atomically: temporary file, then
 * rename; a read-only file system leaves it without).
 */
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, statSync, writeFileSync, type Stats } from 'node:fs';

export const CACHE_SUFFIX = '.codecache';
const MAGIC = 'landscape-code-cache/1';

/** What a cache must have been made from to be used for the bundle at hand. */
export function cacheKey(
  st: Pick<Stats, 'size' | 'mtimeMs'>,
  runtime: { version: string; arch: string } = process,
): string {
  return `${MAGIC} ${runtime.version} ${runtime.arch} ${st.size} ${st.mtimeMs}`;
}

/** The cache file's bytes: the key's line, then V8's data. */
export function encodeCache(key: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${key}\n`, 'latin1'), data]);
}

/** V8's data when the file was made for `key`; undefined for another bundle or a foreign file. */
export function decodeCache(file: Buffer, key: string): Buffer | undefined {
  const header = Buffer.from(`${key}\n`, 'latin1');
  if (file.length <= header.length || !file.subarray(0, header.length).equals(header)) return undefined;
  return file.subarray(header.length);
}

export type CacheUse = 'accepted' | 'rejected' | 'none';

/** Whether to write a cache after the first response: when none was used (missing, stale, refused). */
export function shouldWrite(use: CacheUse): boolean {
  return use !== 'accepted';
}

/** Reads the cache made for `key`; undefined when there is none for it. */
export function readCache(cacheFile: string, key: string): Buffer | undefined {
  try {
    return decodeCache(readFileSync(cacheFile), key);
  } catch {
    return undefined;
  }
}

/** Writes the cache (temporary file, then rename); false when the file system refused. */
export function writeCache(cacheFile: string, key: string, data: Buffer): boolean {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, encodeCache(key, data));
    renameSync(tmp, cacheFile);
    return true;
  } catch {
    return false;
  }
}

/** The key of the bundle file as it is now; undefined when it cannot be read. */
export function bundleKey(file: string): string | undefined {
  try {
    return cacheKey(statSync(file));
  } catch {
    return undefined;
  }
}

/**
 * Set by the preload, called by the serve entry (./index.ts) once the first response is sent:
 * the moment the cache holds what a first event compiles.
 */
export const AFTER_FIRST_RESPONSE = Symbol.for('landscape.serve.afterFirstResponse');

type Hooks = { [AFTER_FIRST_RESPONSE]?: () => void };

export function setAfterFirstResponse(fn: (() => void) | undefined): void {
  (globalThis as Hooks)[AFTER_FIRST_RESPONSE] = fn;
}

/** Runs (once) what the preload asked to run after the first response, if anything. */
export function afterFirstResponse(): void {
  const hooks = globalThis as Hooks;
  const fn = hooks[AFTER_FIRST_RESPONSE];
  hooks[AFTER_FIRST_RESPONSE] = undefined;
  fn?.();
}

/**
 * The bundle's text decoded as Latin-1 when every byte is ASCII (the bundler writes ASCII only):
 * the string Node's loader would read (V8 holds it as one-byte either way), without decoding
 * 1.2 MB as UTF-8 (≈ 15 ms of a replica's start on the stop-39 machine, against ≈ 6 ms this way).
 * Undefined when a byte is above 0x7f (a BOM, any UTF-8): then Node's own loader reads the file.
 */
export function asciiText(bytes: Buffer): string | undefined {
  return isAscii(bytes) ? bytes.toString('latin1') : undefined;
}
