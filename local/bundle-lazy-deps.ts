/**
 * Packages that other packages import at their top level but a function's first event does not
 * use, loaded on first use in a server bundle (issue 16, cold start): an esbuild plugin for the
 * CommonJS server bundles of local/bundle.ts, next to ./bundle-builtins.ts (the same stand-in).
 *
 * @kubernetes/client-node imports, at the top of the modules KubeConfig needs, what only some
 * clusters or calls use: the SOCKS proxy agent (`socks-proxy-agent` with socks, ip-address,
 * smart-buffer) and the auth providers' `jsonpath-plus` (client-node's `cp`, with tar-fs, is left
 * out of the bundles altogether: nothing uses it and its top level has no side effect); node-fetch
 * (client-node's HTTP) imports `whatwg-url` (with tr46's IDNA table, parsed at load) only as a
 * fallback for a Node without a global URL. Express and body-parser's urlencoded parser import
 * `qs` (with side-channel, get-intrinsic and object-inspect, which build their tables at load) for
 * query strings and form bodies, which a CloudEvent's POST never has (Express 5 parses the query
 * only when `req.query` is read): ≈ 1–2 ms of every replica's start. Each is answered, when a
 * package in node_modules imports or requires it, by a stand-in whose properties are getters (and
 * setters) that require the real package the first time one is read; esbuild still bundles the
 * package, wrapped in its lazy `__commonJS` / `__esm` initialiser, so nothing of it runs before.
 * The names are the package's own, taken at build time by requiring it in a child process of the
 * Node that builds (the one that runs the bundles). A package stays eager when Node cannot require
 * it, when its module is itself a function or class (a stand-in function would break `new` and
 * `instanceof`), or when it resolves to an `.mjs` file: esbuild reads any .mjs path as an ES
 * module, so the CommonJS stand-in would export nothing (hpagent, client-node's HTTP(S) proxy
 * agents, is one).
 * A package that reads a property at load (`class X extends Imported`) loads it then, as before.
 */
import { spawnSync } from 'node:child_process';
import type { Plugin } from 'esbuild';
import { standInSource } from './bundle-builtins.js';

/** The packages loaded on first use when another package imports them. */
export const LAZY_DEPENDENCIES: readonly string[] = [
  'jsonpath-plus',
  'socks-proxy-agent',
  'whatwg-url',
  'qs',
];

const NAMESPACE = 'lazy-dependency';
const SKIP = 'lazy-dependency-skip';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

const KEYS_SCRIPT = [
  'const real = require(process.argv[1]);',
  "const plain = real !== null && typeof real === 'object';",
  'process.stdout.write(JSON.stringify(plain ? Object.keys(real) : null));',
].join('\n');

/**
 * The real module's own enumerable names, read by a child process of the Node that builds (the
 * package runs there, not in the landscape or the test that bundles); undefined when that Node
 * cannot require it or it is not a plain object.
 */
export function keysOf(file: string): string[] | undefined {
  const r = spawnSync(process.execPath, ['-e', KEYS_SCRIPT, file], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '' },
    timeout: 30_000,
  });
  if (r.status !== 0) return undefined;
  const keys = JSON.parse(r.stdout) as unknown;
  return Array.isArray(keys) && keys.every((k) => typeof k === 'string') ? keys : undefined;
}

/** The plugin: a package's import or require of one of `packages` gets the stand-in. */
export function lazyDependencies(packages: readonly string[] = LAZY_DEPENDENCIES): Plugin {
  const keys = new Map<string, string[] | undefined>();
  const keysOnce = (file: string): string[] | undefined => {
    if (!keys.has(file)) keys.set(file, keysOf(file));
    return keys.get(file);
  };
  const filter = new RegExp(`^(${packages.map(escapeRegExp).join('|')})$`);
  return {
    name: 'lazy-dependencies',
    setup(build) {
      build.onResolve({ filter }, async (args) => {
        if (args.pluginData === SKIP || !args.importer.includes('/node_modules/')) return undefined;
        const real = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: SKIP,
        });
        // an .mjs file stays eager: esbuild treats any .mjs path as an ES module, and the stand-in
        // (CommonJS, module.exports) would then export nothing
        if (real.errors.length > 0 || real.external || real.path.endsWith('.mjs')) return undefined;
        if (keysOnce(real.path) === undefined) return undefined;
        return { path: real.path, namespace: NAMESPACE, sideEffects: false };
      });
      // the stand-in's require of the real file (its absolute path): bundled as usual
      build.onResolve({ filter: /.*/, namespace: NAMESPACE }, (args) => ({ path: args.path }));
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: standInSource(args.path, keysOnce(args.path)!, false),
        loader: 'js',
      }));
    },
  };
}
