/**
 * Data files a server bundle reads from beside itself when first needed instead of carrying them
 * in its code (issue 16, cold start): an esbuild plugin for the CommonJS server bundles of
 * local/bundle.ts, and the copy of those files next to each bundle that uses them.
 *
 * A replica reads, decodes and keeps its whole `server.cjs` (and V8 wraps it into one more copy)
 * before it runs a line, whatever the first event uses; on a machine where each page of fresh
 * memory costs a fault, every MiB of bundle is milliseconds of every cold start. The largest
 * parts no first event needs are JSON data: iconv-lite's double-byte tables (Shift_JIS, EUC-JP,
 * GBK, Big5, …: a body in such a charset) and mime-db (mime-types' full table, which
 * ./bundle-mime.ts already leaves unbuilt until an answer's type is not in its small table).
 * Each such file is replaced in the bundle by `module.exports = require(<its copy>)`, and copied
 * to `cold/` beside the bundle (kept with it by the bundle cache, the image and `npm run build`,
 * which copy the whole folder), so Node's own JSON loader reads it on the first require.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Metafile, Plugin } from 'esbuild';

/** The data files moved out of the bundles. */
export const COLD_FILES: readonly RegExp[] = [
  /\/node_modules\/iconv-lite\/encodings\/tables\/[^/]+\.json$/,
  /\/node_modules\/mime-db\/db\.json$/,
];

/** The folder beside `server.cjs` that holds them. */
export const COLD_DIR = 'cold';

export function isCold(path: string): boolean {
  return COLD_FILES.some((re) => re.test(resolve(path)));
}

/**
 * The copy's file name: the path below the first node_modules with `/` as `__`, unique per package
 * file (a nested copy, `form-data/node_modules/mime-db`, keeps its parent in the name).
 */
export function coldName(path: string): string {
  const abs = resolve(path);
  const below = abs.slice(abs.indexOf('/node_modules/') + '/node_modules/'.length);
  return below.replaceAll('/', '__');
}

/** The module the bundle carries instead of the file. */
export function coldStub(path: string): string {
  return `module.exports = require(require("node:path").join(__dirname, ${JSON.stringify(COLD_DIR)}, ${JSON.stringify(coldName(path))}));`;
}

/** The plugin: every COLD_FILES file becomes its stub. */
export function coldFiles(): Plugin {
  return {
    name: 'cold-files',
    setup(b) {
      b.onLoad({ filter: /\.json$/ }, (args) =>
        isCold(args.path) ? { contents: coldStub(args.path), loader: 'js' } : undefined,
      );
    },
  };
}

/**
 * Copies the cold files each output of the build uses into `cold/` beside it (`outputs`: the
 * bundle files of this build, absolute); the metafile names the files an output was built from.
 */
export async function copyColdFiles(metafile: Metafile, outputs: readonly string[]): Promise<void> {
  const wanted = new Set(outputs.map((o) => resolve(o)));
  for (const [out, meta] of Object.entries(metafile.outputs)) {
    if (!wanted.has(resolve(out))) continue;
    const cold = Object.keys(meta.inputs).filter(isCold);
    if (cold.length === 0) continue;
    const dir = join(dirname(resolve(out)), COLD_DIR);
    await mkdir(dir, { recursive: true });
    for (const input of cold) await copyFile(resolve(input), join(dir, coldName(input)));
  }
}
