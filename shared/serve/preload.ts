/**
 * `preload.cjs` of a server bundle, loaded before it: `node --require ./preload.cjs server.js`
 * (the package.json `start` script, the image's NODE_OPTIONS) or `... server.cjs` (the embedded
 * activator's replicas; server.js only loads server.cjs). Without it the same code runs, only
 * slower to start.
 *
 * - The orphan guard: a process started with an IPC channel (a replica of the embedded
 *   activator) exits when the channel closes — the landscape that started it is gone — and the
 *   channel does not keep it running by itself. A process without a channel (a Knative container,
 *   `npm start` of the folder) is not touched. It replaces `node --import <data: URL>`, which
 *   brought Node's ES module loader into every replica (≈ 60 ms of CPU and 9 MB).
 * - The code cache (./code-cache.ts): the bundle (the main module, or the `.cjs` of the same name
 *   that a `.js` main loads) compiles with V8's cached data when a cache made for it exists, and
 *   writes one after its first response when none was used. Off with LANDSCAPE_CODE_CACHE=off.
 *   With source maps on (`--enable-source-maps`, the image) the stacks of the bundle are mapped by
 *   ./stack-map.ts, since Node maps only what its own loader compiled; LANDSCAPE_CODE_CACHE=report prints whether the cache was
 *   accepted, rejected by V8, or none was there for this bundle (one JSON line on stderr).
 */
import { readFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, resolve } from 'node:path';
import { Script, constants as vmConstants } from 'node:vm';
import {
  bundleKey,
  asciiText,
  CACHE_SUFFIX,
  readCache,
  setAfterFirstResponse,
  shouldWrite,
  writeCache,
  type CacheUse,
} from './code-cache.js';
import { installStackMapper } from './stack-map.js';

function orphanGuard(): void {
  if (typeof process.send !== 'function') return;
  if (!process.connected) process.exit(1);
  process.on('disconnect', () => process.exit(1));
  process.channel?.unref();
}

interface CjsModule {
  exports: unknown;
  _compile: (this: CjsModule, content: string, filename: string) => unknown;
}

type Compiled = (
  exports: unknown,
  require: NodeJS.Require,
  module: CjsModule,
  filename: string,
  dirname: string,
) => unknown;

/** Where the bundle's text starts in the CommonJS wrapper's first line. */
const WRAPPER_LENGTH = Module.wrap('\u0000').indexOf('\u0000');

function compile(content: string, filename: string): Script {
  const key = bundleKey(filename);
  const cacheFile = `${filename}${CACHE_SUFFIX}`;
  const cachedData = key === undefined ? undefined : readCache(cacheFile, key);
  const script = new Script(Module.wrap(content), {
    filename,
    // columns of the bundle's first line as in the file, not shifted by the CommonJS wrapper
    columnOffset: -WRAPPER_LENGTH,
    ...(cachedData ? { cachedData } : {}),
    // dynamic import() from the bundle resolves as from a module Node loaded itself
    ...(vmConstants?.USE_MAIN_CONTEXT_DEFAULT_LOADER
      ? { importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER }
      : {}),
  });
  const use: CacheUse =
    cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted';
  if (process.env['LANDSCAPE_CODE_CACHE'] === 'report')
    process.stderr.write(
      `${JSON.stringify({ logger: 'preload', msg: 'code cache', file: cacheFile, use })}\n`,
    );
  if (key !== undefined && shouldWrite(use))
    setAfterFirstResponse(() => void writeCache(cacheFile, key, script.createCachedData()));
  return script;
}

function run(script: Script, module: CjsModule, filename: string): unknown {
  const fn = script.runInThisContext() as Compiled;
  return fn.call(
    module.exports,
    module.exports,
    Module.createRequire(filename),
    module,
    filename,
    dirname(filename),
  );
}

type Extension = (module: CjsModule, filename: string) => void;

function cacheMainModule(): void {
  if (process.env['LANDSCAPE_CODE_CACHE'] === 'off') return;
  const main = process.argv[1] ? resolve(process.argv[1]) : undefined;
  if (!main || !/\.c?js$/.test(main)) return;
  const bundles = new Set([main, main.replace(/\.c?js$/, '.cjs')]);
  // Node's loader reads a `.cjs` file with the handler of `.cjs` or, on Node 20, of `.js` (UTF-8)
  const extensions = (Module as unknown as { _extensions: Record<string, Extension> })._extensions;
  const ext = extensions['.cjs'] ? '.cjs' : '.js';
  const readJs = extensions[ext];
  if (readJs)
    extensions[ext] = function (module: CjsModule, filename: string): void {
      // a `.js` file may be an ES module (package type): left to Node's checks
      if (!bundles.has(filename) || !filename.endsWith('.cjs')) return readJs.call(this, module, filename);
      extensions[ext] = readJs;
      let content: string | undefined;
      try {
        content = asciiText(readFileSync(filename));
      } catch {
        content = undefined;
      }
      if (content === undefined) return readJs.call(this, module, filename);
      module._compile(content, filename);
    };
  const proto = Module.prototype as unknown as CjsModule;
  const original = proto._compile;
  proto._compile = function (this: CjsModule, content: string, filename: string): unknown {
    if (!bundles.has(filename)) return original.call(this, content, filename);
    proto._compile = original;
    let script: Script;
    try {
      script = compile(content, filename);
    } catch {
      // not a CommonJS script (Node 22+ detects ES module syntax in its own loader): as without us
      return original.call(this, content, filename);
    }
    // Node maps stacks only of what its loader compiled: this bundle's are mapped here
    if (process.sourceMapsEnabled) installStackMapper(filename);
    return run(script, this, filename);
  };
}

orphanGuard();
cacheMainModule();
