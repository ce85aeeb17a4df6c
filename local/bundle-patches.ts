/**
 * Small source patches of packages in the CommonJS server bundles of local/bundle.ts (issue 16),
 * each keeping what the package does for the product's functions and changing only what it costs.
 *
 * ioredis (6.x) `built/utils/Commander.js` (cold start) adds two methods per Redis command (~300
 * commands, and a `…Buffer` twin each) to `Commander.prototype` one by one at load. V8 keeps a
 * prototype in fast mode while properties are added, so each addition copies the prototype's map
 * and descriptors: ≈ 5 MB of garbage and 5 scavenges, 7–8 ms of every replica's first Redis use on
 * a 2-core machine (a standalone loop over the same command list: 0.45 MB and 1 ms with the
 * prototype in dictionary mode first). The patch adds and deletes one property on the prototype
 * before the loop, which is V8's own way to turn an object into dictionary mode; the prototype ends
 * with the same properties (V8 makes it fast again when it is first used as a prototype).
 *
 * Functions Framework (5.x) `build/src/server.js` (CPU per event) enters an AsyncLocalStorage around
 * every request on Node ≥ 13 (its `asyncLocalStorageMiddleware`), whose store only the execution-id
 * logging of LOG_EXECUTION_ID reads (`build/src/logger.js`, installed by main.js only then). On Node
 * 20 an entered AsyncLocalStorage installs async hooks that every promise of the process pays for.
 * The patch installs the middleware only with LOG_EXECUTION_ID on, as the logging it feeds.
 *
 * Functions Framework (5.x) `build/src/function_wrappers.js` (CPU per event) runs every request in
 * a `domain` (`domain.create()`, `d.run`, `process.domain.bind` of the completion callback). Loading
 * node:domain installs an async hook that tracks every promise and async resource of the process
 * (init, before, after, destroy): in a replica, every promise of the kube client, ioredis and the
 * handler pays for it. Measured on a 2-core machine, a no-op CloudEvent function behind the
 * framework's server: 290–430 µs of server CPU per request with the domain, 160–215 without
 * (alternately, 20,000 requests each). The patched wrapper answers as the framework does for
 * everything a handler of this product does — a synchronous throw of the wrapper or handler and a
 * rejected promise are answered 500 through the same `sendCrashResponse`, a result through the
 * same completion callback — without node:domain. What the domain caught besides, an error thrown
 * later outside the handler's promise (a timer callback, an emitter without an 'error' listener),
 * is then the process's uncaught exception: the replica logs it and exits (shared/serve/index.ts
 * `main`), the activator answers the requests in flight with an error and the broker retries
 * them, as it does for a replica that dies. The Cloud Functions bundles are ES modules without
 * these plugins: there Google's runtime runs the framework as published.
 *
 * Functions Framework (5.x) `build/src/server.js` again (CPU per event): Express 5 makes each
 * request and response its own in `app.handle` by `Object.setPrototypeOf(req, app.request)` and
 * `(res, app.response)`, after Node's HTTP server built both with Node's prototypes. Changing the
 * prototype of two objects per request after the fact leaves the property accesses of Node's HTTP
 * code and of Express to V8's slow lookups. The patch hands `http.createServer` the
 * `IncomingMessage` and `ServerResponse` options (Node's documented way to extend them) with
 * constructors whose prototypes are `app.request` and `app.response`: both objects are made with
 * Express's prototypes, and Express's own `setPrototypeOf` then finds them in place (V8 does
 * nothing for an unchanged prototype). Express sees the same objects as before. Measured on a
 * 2-core machine (a no-op CloudEvent function's bundled replica, 20,000 POSTs with 8 in flight,
 * three interleaved pairs): 190–207 µs of replica CPU per request without, 85–126 µs with. The
 * constructors call Node's (`IncomingMessage.call(this, socket)`); made with `Reflect.construct`
 * and Express's prototype as new.target instead, the same replica took 233–266 µs. Where the
 * running Node's two constructors are classes (not callable that way), the server is made as before.
 *
 * A patch whose anchors are not each in the file exactly once (another version of the package)
 * leaves the file as it is; test/integration/bundle/patches.test.ts fails then, so the patch is
 * looked at again.
 */
import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

/** One replacement: `find` must occur in the file exactly once. */
export interface SourceEdit {
  find: string;
  replace: string;
}

export interface SourcePatch {
  /** The module patched, as a package path (`<package>/<file>`). */
  module: string;
  /** The file patched (its absolute path). */
  file: RegExp;
  /** Applied in order, each to the result of the one before. */
  edits: readonly SourceEdit[];
}

const DICTIONARY_MODE_KEY = '__landscapeDictionaryMode';
const IOREDIS_ANCHOR = 'commands.forEach(function (commandName) {';

export const SOURCE_PATCHES: readonly SourcePatch[] = [
  {
    module: 'ioredis/built/utils/Commander.js',
    file: /\/node_modules\/ioredis\/built\/utils\/Commander\.js$/,
    edits: [
      {
        find: IOREDIS_ANCHOR,
        replace: [
          '// landscape bundle patch (local/bundle-patches.ts): dictionary mode before ~600 methods are added',
          `Commander.prototype.${DICTIONARY_MODE_KEY} = 0;`,
          `delete Commander.prototype.${DICTIONARY_MODE_KEY};`,
          IOREDIS_ANCHOR,
        ].join('\n'),
      },
    ],
  },
  {
    module: '@google-cloud/functions-framework/build/src/function_wrappers.js',
    file: /\/node_modules\/@google-cloud\/functions-framework\/build\/src\/function_wrappers\.js$/,
    edits: [
      {
        find: 'const domain = require("domain");',
        replace: '// landscape bundle patch (local/bundle-patches.ts): no node:domain',
      },
      // the completion callback, called as before, without binding it to the request's domain
      { find: 'return process.domain.bind((err, result) => {', replace: 'return ((err, result) => {' },
      { find: '        const d = domain.create();\n', replace: '' },
      {
        find: [
          '        // Catch unhandled errors originating from this request.',
          "        d.on('error', errorHandler);",
          '        d.run(() => {',
          '            process.nextTick(() => {',
          '                const ret = execute(req, res);',
          '                // Catch rejected promises if the function is async.',
          '                if (ret instanceof Promise) {',
          '                    ret.catch(errorHandler);',
          '                }',
          '            });',
          '        });',
        ].join('\n'),
        replace: [
          '        // a synchronous throw and a rejected promise answer 500 through errorHandler, as before',
          '        process.nextTick(() => {',
          '            let ret;',
          '            try {',
          '                ret = execute(req, res);',
          '            }',
          '            catch (err) {',
          '                errorHandler(err);',
          '                return;',
          '            }',
          '            if (ret instanceof Promise) {',
          '                ret.catch(errorHandler);',
          '            }',
          '        });',
        ].join('\n'),
      },
    ],
  },
  {
    module: '@google-cloud/functions-framework/build/src/server.js',
    file: /\/node_modules\/@google-cloud\/functions-framework\/build\/src\/server\.js$/,
    edits: [
      {
        find: '    if (options_1.logExecutionIdSupported) {\n        app.use(async_local_storage_1.asyncLocalStorageMiddleware);',
        replace: [
          '    // landscape bundle patch (local/bundle-patches.ts): the store only where LOG_EXECUTION_ID reads it',
          '    if (options_1.logExecutionIdSupported && options.enableExecutionId) {',
          '        app.use(async_local_storage_1.asyncLocalStorageMiddleware);',
        ].join('\n'),
      },
      {
        find: '    return http.createServer(app);',
        replace: [
          "    // landscape bundle patch (local/bundle-patches.ts): requests and responses made with Express's",
          '    // prototypes, so that its per-request Object.setPrototypeOf finds them in place (where the',
          "    // running Node's IncomingMessage and ServerResponse are functions a constructor may call)",
          '    const callable = (f) => !/^class\\b/.test(Function.prototype.toString.call(f));',
          '    if (callable(http.IncomingMessage) && callable(http.ServerResponse)) {',
          '        function ExpressRequest(socket) {',
          '            http.IncomingMessage.call(this, socket);',
          '        }',
          '        ExpressRequest.prototype = app.request;',
          '        function ExpressResponse(req, options) {',
          '            http.ServerResponse.call(this, req, options);',
          '        }',
          '        ExpressResponse.prototype = app.response;',
          '        return http.createServer({ IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse }, app);',
          '    }',
          '    return http.createServer(app);',
        ].join('\n'),
      },
    ],
  },
];

/** The source with `patch` applied, or undefined when an anchor is not there exactly once. */
export function applyPatch(source: string, patch: SourcePatch): string | undefined {
  let out = source;
  for (const { find, replace } of patch.edits) {
    const at = out.indexOf(find);
    if (at < 0 || out.indexOf(find, at + 1) >= 0) return undefined;
    out = `${out.slice(0, at)}${replace}${out.slice(at + find.length)}`;
  }
  return out;
}

/** The esbuild plugin: each file of SOURCE_PATCHES loads patched. */
export function sourcePatches(patches: readonly SourcePatch[] = SOURCE_PATCHES): Plugin {
  return {
    name: 'source-patches',
    setup(b) {
      for (const patch of patches)
        b.onLoad({ filter: patch.file }, async (args) => {
          const patched = applyPatch(await readFile(args.path, 'utf8'), patch);
          return patched === undefined ? undefined : { contents: patched, loader: 'js' };
        });
    },
  };
}
