/**
 * `mime-types` without its tables at start (issue 16, cold start): an esbuild plugin for the
 * CommonJS server bundles of local/bundle.ts.
 *
 * mime-types (3.x) builds its extension and type maps from all of mime-db when it is first
 * required (`populateMaps`, scoring every conflicting extension): ≈ 6 ms of every replica's start,
 * because express and body-parser (through type-is) require it at load. What a CloudEvent
 * function's answers ask of it is `contentType()` of a few names: Express's `res.sendStatus`
 * (the 204 of every acknowledged event) sets the type `txt`, `res.send` of a string `html`, of a
 * Buffer `bin`, `res.json` `json`, and `res.set('Content-Type', …)` passes the resulting full type
 * through `contentType()` again. The package is replaced by a stand-in that answers exactly those
 * inputs from a table computed at build time by the real package, and hands every other call
 * (every other input, every other function, `types`, `extensions`, …) to the real package,
 * required on first use. So every answer is the real package's, for every content type and
 * extension; only the moment the tables are built moves (to the first call the table does not
 * cover, if any).
 *
 * Only the copy of the version this was written for is replaced (another copy, e.g. mime-types
 * 2.x under form-data, resolves as before).
 */
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import type { Plugin } from 'esbuild';

const VERSION = /^3\./;
const NAMESPACE = 'lazy-mime-types';

/** The `contentType()` inputs an Express answer of a CloudEvent function passes (see above). */
export const CONTENT_TYPE_INPUTS: readonly string[] = [
  'txt',
  'html',
  'json',
  'bin',
  'text/plain; charset=utf-8',
  'text/html; charset=utf-8',
  'application/json; charset=utf-8',
  'application/octet-stream',
];

interface MimeTypes {
  contentType(t: string): string | false;
}

/** The stand-in's source: `table` answers `contentType`, `real` (a path) everything else. */
export function mimeStandIn(
  real: string,
  names: readonly string[],
  table: Record<string, string | false>,
): string {
  return [
    'let real;',
    `const load = () => (real ??= require(${JSON.stringify(real)}));`,
    `const table = new Map(Object.entries(${JSON.stringify(table)}));`,
    "exports.contentType = (t) => (typeof t === 'string' && table.has(t) ? table.get(t) : load().contentType(t));",
    `for (const n of ${JSON.stringify(names.filter((n) => n !== 'contentType'))})`,
    '  Object.defineProperty(exports, n, { enumerable: true, get: () => load()[n] });',
  ].join('\n');
}

/** The table of `contentType()` for CONTENT_TYPE_INPUTS, by the real package. */
export function contentTypeTable(mime: MimeTypes): Record<string, string | false> {
  return Object.fromEntries(CONTENT_TYPE_INPUTS.map((t) => [t, mime.contentType(t)]));
}

export function lazyMimeTypes(): Plugin {
  return {
    name: 'lazy-mime-types',
    setup(b) {
      b.onResolve({ filter: /^mime-types$/ }, async (args) => {
        if (args.namespace === NAMESPACE || args.pluginData === NAMESPACE) return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: NAMESPACE,
        });
        if (r.errors.length > 0 || r.external) return undefined;
        const version = (createRequire(r.path)('./package.json') as { version: string }).version;
        return VERSION.test(version)
          ? { path: relative(process.cwd(), r.path), namespace: NAMESPACE }
          : { path: r.path };
      });
      b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const path = resolve(args.path);
        const mime = createRequire(path)(path) as MimeTypes & Record<string, unknown>;
        return {
          contents: mimeStandIn(path, Object.keys(mime), contentTypeTable(mime)),
          loader: 'js',
          resolveDir: dirname(path),
        };
      });
    },
  };
}
