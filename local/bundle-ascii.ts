/**
 * ASCII-only server bundles (issue 16, replica memory and start): esbuild escapes every non-ASCII
 * character of the code it writes (its default `charset: 'ascii'`: strings, template literals,
 * regular expressions, identifiers), but keeps the comments of the packages verbatim, and a few
 * carry one (`±`, `—`, `“…”` in js-yaml, iconv-lite, decimal.js, ip-address, zod). One such
 * character makes V8 hold the whole bundle as a two-byte string: 7.7 MB instead of 3.9 MB for
 * probe-tick's, kept for the replica's life (V8 compiles functions lazily from it). So every
 * non-ASCII character of a written bundle is replaced by `?` (`??` for one outside the Basic
 * Multilingual Plane): the same number of UTF-16 code units, so every column of the source map
 * stays right, and only comment text changes. The bundle can then be read as Latin-1
 * (shared/serve/preload.ts), which is cheaper than decoding UTF-8.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';

/** Whether `text` is ASCII only. */
export function isAsciiText(text: string): boolean {
  return !/[\u0080-\uffff]/.test(text);
}

/** `text` with each non-ASCII code point replaced by as many `?` as it has UTF-16 code units. */
export function asciiOnly(text: string): string {
  return text.replace(/[\u{80}-\u{10ffff}]/gu, (ch) => '?'.repeat(ch.length));
}

/** Every server bundle of a build and its preload made ASCII-only (`files`: their paths). */
export async function makeBundlesAscii(files: readonly string[]): Promise<void> {
  await Promise.all(files.map((f) => makeAscii(f)));
}

/**
 * Rewrites `file` ASCII-only when it is not (a temporary file renamed over it, so a reader never
 * sees half of it and a hard link to the old file keeps the old content); false when it already was.
 */
export async function makeAscii(file: string): Promise<boolean> {
  const text = await readFile(file, 'utf8');
  if (isAsciiText(text)) return false;
  const tmp = `${file}.${process.pid}.ascii`;
  await writeFile(tmp, asciiOnly(text));
  await rename(tmp, file);
  return true;
}
