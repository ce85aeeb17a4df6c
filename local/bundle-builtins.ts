/**
 * Node built-in modules a server bundle loads on first use rather than at start (issue 16, cold
 * start): an esbuild plugin for the CommonJS server bundles of local/bundle.ts.
 *
 * Packages require built-ins at their top level that a CloudEvent function's first event never
 * uses: ioredis `tls` (TLS connections only), the CloudEvents SDK `https` (its HTTP emitter),
 * body-parser `zlib` (compressed bodies only), sonic-boom and thread-stream `assert` (pino loads
 * both; the logger writes through its own destination), @kubernetes/client-node `readline` (its
 * watch only). Node compiles each on its first require
 * (≈ 1.8 ms `assert`, 2.5 ms `tls` with `https`, 0.5 ms `zlib` on this machine). The Functions
 * Framework's `domain` is not loaded at all (./bundle-patches.ts). A `require('<builtin>')` from a package
 * is answered by a stand-in whose properties are getters (and setters) that require the real
 * module the first time one is read; for `assert`, itself a function, the stand-in is a function
 * that calls the real one. The names are the real module's, taken at build time with the Node
 * that builds: the server bundles run on that Node (the landscape bundles at start; the image
 * builds and runs on node:24; the Cloud Functions bundles are ES modules without this plugin). A
 * package that reads a property at load (e.g. `const { connect } = require('tls')`) loads the
 * module then, as before; only unused modules stay unloaded.
 */
import { createRequire } from 'node:module';
import type { Plugin } from 'esbuild';

/** The built-ins loaded on first use. */
export const LAZY_BUILTINS: readonly string[] = ['assert', 'https', 'readline', 'tls', 'zlib'];

const NAMESPACE = 'lazy-builtin';

/**
 * The CommonJS source of the stand-in of the module `real` requires (a built-in's `node:` name, a
 * package file's path): `keys` its own enumerable property names, `callable` whether the module
 * itself is a function.
 */
export function standInSource(realSpecifier: string, keys: readonly string[], callable: boolean): string {
  const real = JSON.stringify(realSpecifier);
  return [
    'let real;',
    `const load = () => (real ??= require(${real}));`,
    callable ? 'const out = function (...args) { return load().apply(this, args); };' : 'const out = {};',
    `for (const key of ${JSON.stringify(keys)}) {`,
    '  Object.defineProperty(out, key, {',
    '    enumerable: true,',
    '    configurable: true,',
    '    get: () => load()[key],',
    '    set: (value) => { load()[key] = value; },',
    '  });',
    '}',
    'module.exports = out;',
  ].join('\n');
}

/** The stand-in of the built-in `name`. */
export function builtinStandIn(name: string, keys: readonly string[], callable: boolean): string {
  return standInSource(`node:${name}`, keys, callable);
}

const FILTER = new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|')})$`);

/** The plugin: a package's `require('<builtin>')` of LAZY_BUILTINS gets the stand-in. */
export function lazyBuiltins(): Plugin {
  const nodeRequire = createRequire(import.meta.url);
  return {
    name: 'lazy-builtins',
    setup(build) {
      build.onResolve({ filter: FILTER }, (args) => {
        // the stand-in's own require of the real module stays external, as every built-in
        if (args.namespace === NAMESPACE || !args.importer.includes('/node_modules/')) return undefined;
        return { path: args.path.replace(/^node:/, ''), namespace: NAMESPACE, sideEffects: false };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const real = nodeRequire(`node:${args.path}`) as unknown;
        const keys = Object.keys(real as object);
        return { contents: builtinStandIn(args.path, keys, typeof real === 'function'), loader: 'js' };
      });
    },
  };
}
