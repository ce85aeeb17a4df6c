/**
 * esbuild bundles of the functions (`functions/<name>/handler.ts`):
 * - `server.js`: self-starting (the handler, the Functions Framework and every dependency in
 *   one file, large JSON data beside it in `cold/`; `node server.js` serves on PORT): what a Knative container and the embedded
 *   activator's replicas run. One file to load is the cheapest cold start. The code is
 *   `server.cjs` (CommonJS), which `server.js` loads (two lines of ES module: the folder's
 *   package.json is `"type": "module"` for the Cloud Functions module beside it), with
 *   `preload.cjs` (`node --require ./preload.cjs server.js`: V8's code cache of the bundle,
 *   written after its first response, and the activator's orphan guard). A bundle's `file` is
 *   server.cjs: the activator starts it without the two lines.
 * - `index.js`: the handler module for Google Cloud Functions, which brings its own Functions
 *   Framework (left external and named in the folder's package.json).
 * `packages: 'external'` bundles only the project's own code (the "unbundled" side of the bench).
 * A CommonJS server bundle evaluates client-node, ioredis, pino, yaml (./bundle-lazy.ts),
 * mime-types' tables (./bundle-mime.ts), some built-ins (./bundle-builtins.ts) and packages that
 * packages import (./bundle-lazy-deps.ts) on first use, and reads large JSON data (iconv-lite's
 * tables, mime-db) from `cold/` beside it (./bundle-cold.ts): what a first event does not use
 * costs nothing, or only the bytes on disk.
 */
import { createHash } from 'node:crypto';
import {
  build as esbuild,
  stop as stopEsbuild,
  version as esbuildVersion,
  type BuildOptions,
  type BuildResult,
  type Plugin,
} from 'esbuild';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { buildLock, fromCache, toCache, type CacheManifest, type InputStats } from './bundle-cache.js';
import { inputsOfRun } from './bundle-inputs.js';
import { copyColdFiles } from './bundle-cold.js';
import { bundlePlugins, LAZY_LISTS } from './bundle-plugins.js';
import { SOURCE_PATCHES } from './bundle-patches.js';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPLICA_V8_FLAGS } from '../shared/serve/v8-flags.js';

export const FUNCTION_NAME_PATTERN = /^[A-Za-z](?:[-_A-Za-z0-9]{0,61}[A-Za-z0-9])?$/;
export const BUNDLE_KINDS = ['server', 'module'] as const;
export type BundleKind = (typeof BUNDLE_KINDS)[number];

export interface BundleOptions {
  name: string;
  /** Folder holding `<name>/handler.ts` (default `functions`). */
  functionsDir?: string;
  /** Output root: the bundle goes to `<outDir>/<name>/`. */
  outDir: string;
  kind: BundleKind;
  /** Leave every node_modules package external (default false: one self-contained file). */
  externalPackages?: boolean;
  /**
   * Default true (all of esbuild's). `'whitespace'`: whitespace and comments only, names kept. false
   * keeps the packages' comments and their few non-ASCII characters, which make V8 hold the whole
   * source as a two-byte string for the replica's life (6.6 MB for a 3.3 MB bundle).
   */
  minify?: boolean | 'whitespace';
  sourcemap?: boolean;
  /**
   * Reuse a bundle built before with the same options when none of its inputs (esbuild's
   * metafile: every source file and package file it read) changed size or mtime. The embedded
   * landscape passes `node_modules/.cache/landscape-bundles`, so a restart (or the next e2e
   * landscape) does not bundle again.
   */
  cacheDir?: string;
}

export interface Bundle {
  name: string;
  file: string;
  bytes: number;
  /** Copied from the cache folder rather than built (only with `cacheDir`). */
  cached?: boolean;
}

/** The function folders (those with a handler.ts), sorted. */
export async function functionNames(functionsDir: string): Promise<string[]> {
  if (!existsSync(functionsDir)) return [];
  const entries = await readdir(functionsDir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && existsSync(join(functionsDir, e.name, 'handler.ts')))
    .map((e) => e.name)
    .sort();
}

const REQUIRE_SHIM =
  "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

function handlerOf(o: BundleOptions): string {
  return resolve(o.functionsDir ?? 'functions', o.name, 'handler.ts');
}

function serverEntry(handler: string, name: string): string {
  const serve = resolve('shared/serve/index.ts');
  return [
    `import ${JSON.stringify(handler)};`,
    `import { main } from ${JSON.stringify(serve)};`,
    `main(${JSON.stringify(name)});`,
  ].join('\n');
}

function packageJson(name: string, kind: BundleKind, commonjs: boolean): string {
  const args = commonjs ? ['--require', './preload.cjs', 'server.js'] : ['server.js'];
  const start = ['node', ...REPLICA_V8_FLAGS, ...args].join(' ');
  const pkg =
    kind === 'server'
      ? { name, private: true, type: 'module', main: 'server.js', scripts: { start } }
      : {
          name,
          private: true,
          type: 'module',
          main: 'index.js',
          dependencies: { '@google-cloud/functions-framework': '^5.0.5' },
        };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function cacheKey(o: BundleOptions, handler: string): string {
  // the output folder is not part of the key: a cached bundle's source map has an absolute
  // sourceRoot (buildFunction), so it names the right sources from wherever it is copied to
  const { cacheDir: _c, outDir: _o, ...options } = o;
  const id = JSON.stringify({
    options,
    handler,
    esbuild: esbuildVersion,
    node: process.version,
    format: isCommonJs(o) ? 'cjs+preload+lazy2+mime+builtins+deps+cold' : 'esm',
    // the start script of the package.json beside the bundle names them
    flags: REPLICA_V8_FLAGS,
    // what the plugins leave lazy or cold, the source patches (a change must build again)
    lazy: LAZY_LISTS,
    patches: SOURCE_PATCHES.map((p) => [p.module, p.edits]),
  });
  return `${o.name}-${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}

/** Builds one bundle (or takes it from `cacheDir`); throws with esbuild's message when the code does not build. */
export async function bundleFunction(o: BundleOptions): Promise<Bundle> {
  const [b] = await bundleFunctions([o]);
  return b;
}

/** Where a function's bundle goes, and its cache entry. */
interface Target {
  o: BundleOptions;
  dir: string;
  file: string;
  cached?: string;
}

function targetOf(o: BundleOptions): Target {
  if (!FUNCTION_NAME_PATTERN.test(o.name))
    throw new Error(`function folder "${o.name}" is not a valid Functions Framework name`);
  const handler = handlerOf(o);
  if (!existsSync(handler)) throw new Error(`no handler at ${handler}`);
  const dir = join(o.outDir, o.name);
  const file = join(dir, o.kind === 'server' ? (isCommonJs(o) ? 'server.cjs' : 'server.js') : 'index.js');
  return {
    o,
    dir,
    file,
    ...(o.cacheDir !== undefined ? { cached: join(o.cacheDir, cacheKey(o, handler)) } : {}),
  };
}

/** What `bundleFunctions` says while it works (`npm start` prints it). */
export type BundleProgress = (line: string) => void;

/** How often a build in progress says it still runs. */
const HEARTBEAT_MS = 5_000;

/**
 * Several bundles (each taken from its `cacheDir` where still valid) built in one esbuild run per
 * set of options: what the functions share (client-node, shared/) is parsed once, not once per
 * function (17 bundles then: ~6 s instead of ~29 s on 2 cores). Throws with esbuild's message when one
 * does not build. `progress` hears the cache hits, the build and a heartbeat while it runs.
 */
export async function bundleFunctions(
  list: readonly BundleOptions[],
  progress: BundleProgress = () => undefined,
): Promise<Bundle[]> {
  const targets = list.map(targetOf);
  const out = new Map<Target, Bundle>();
  for (const t of targets) await mkdir(t.dir, { recursive: true });
  const misses = await takeCached(targets, out);
  const n = targets.length;
  progress(`functions: ${n - misses.length}/${n} bundles from the cache`);
  if (misses.length === 0) return targets.map((t) => out.get(t)!);
  // one builder per bundle: a second landscape starting meanwhile waits for the first one's build
  const locks = [
    ...new Set(misses.flatMap((t) => (t.cached === undefined ? [] : [`${t.cached}.lock`]))),
  ].sort();
  const releases: Array<() => Promise<void>> = [];
  try {
    for (const lock of locks) {
      await mkdir(dirname(lock), { recursive: true });
      releases.push(await buildLock(lock, progress));
    }
    const toBuild = await takeCached(misses, out);
    for (const [t, b] of await buildWatched(toBuild, n, progress)) out.set(t, b);
  } finally {
    await Promise.all(releases.map((r) => r()));
  }
  return targets.map((t) => out.get(t)!);
}

/** Puts the targets still valid in their cache into `out`; returns the others. */
async function takeCached(targets: readonly Target[], out: Map<Target, Bundle>): Promise<Target[]> {
  const misses: Target[] = [];
  const stats: InputStats = new Map();
  for (const t of targets) {
    const hit = t.cached === undefined ? undefined : await fromCache(t.cached, t.dir, stats);
    if (hit === undefined) misses.push(t);
    else out.set(t, { name: t.o.name, file: t.file, bytes: hit, cached: true });
  }
  return misses;
}

/** buildTargets, saying what it builds, that it still runs every few seconds, and when it is done. */
async function buildWatched(
  targets: readonly Target[],
  total: number,
  progress: BundleProgress,
): Promise<Map<Target, Bundle>> {
  if (targets.length === 0) return new Map();
  const started = Date.now();
  const seconds = (): string => ((Date.now() - started) / 1000).toFixed(1);
  const names = targets.map((t) => t.o.name).join(', ');
  progress(`functions: bundling ${targets.length}/${total} in one esbuild run: ${names}`);
  const heartbeat = setInterval(
    () => progress(`functions: still bundling ${targets.length}/${total} (${seconds()} s)`),
    HEARTBEAT_MS,
  );
  try {
    const built = await buildTargets(targets);
    progress(`functions: bundled ${targets.length}/${total} in ${seconds()} s`);
    return built;
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * Removes the files a build of `t` writes (its kind's bundle, map, entry and preload, and
 * package.json), and only those: the server and the module bundle of a function share its folder
 * (`npm run build` writes both).
 */
async function removeOutputs(t: Target): Promise<void> {
  const own = t.o.kind === 'server' ? /^(server|preload)\./ : /^index\./;
  const names = await readdir(t.dir).catch(() => [] as string[]);
  for (const name of names)
    if (own.test(name) || name === 'package.json')
      await rm(join(t.dir, name), { recursive: true, force: true });
  await mkdir(t.dir, { recursive: true });
}

/** Builds the targets, one esbuild run per set of options, and caches what has a cache entry. */
async function buildTargets(targets: readonly Target[]): Promise<Map<Target, Bundle>> {
  const groups = new Map<string, Target[]>();
  for (const t of targets) {
    const { name: _n, functionsDir: _f, cacheDir: _c, ...options } = t.o;
    const key = JSON.stringify({ ...options, cache: t.cached !== undefined });
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  const out = new Map<Target, Bundle>();
  for (const group of groups.values()) {
    // what is there may be hard links into the cache (fromCache): esbuild must not write through them
    for (const t of group) await removeOutputs(t);
    const built = await buildGroup(group);
    for (const t of group) {
      const b = built.get(t)!;
      if (t.cached !== undefined) await toCache(t.cached, t.dir, { bytes: b.bytes, inputs: b.inputs });
      out.set(t, { name: t.o.name, file: t.file, bytes: b.bytes, cached: false });
    }
  }
  return out;
}

let building = 0;

/**
 * esbuild's build, and its service process stopped when no build is left in flight: a landscape
 * bundles once at start and must not keep a GB-sized bundler running beside it afterwards.
 */
async function build(options: BuildOptions & { metafile: true }): Promise<BuildResult<{ metafile: true }>> {
  building++;
  try {
    return await esbuild(options);
  } finally {
    if (--building === 0) await stopEsbuild();
  }
}

/**
 * A linked source map unless switched off; a cached bundle is copied to other folders, so its
 * map's relative paths start from an absolute sourceRoot (where it was built).
 */
function sourceMapOptions(o: BundleOptions, dir: string): Pick<BuildOptions, 'sourcemap' | 'sourceRoot'> {
  if (o.sourcemap === false) return { sourcemap: false };
  return o.cacheDir === undefined
    ? { sourcemap: 'linked' }
    : { sourcemap: 'linked', sourceRoot: `${pathToFileURL(dir).href}/` };
}

const ENTRY = 'landscape-server-entry';

/**
 * A self-contained server bundle is CommonJS (`server.cjs`), with `preload.cjs` beside it
 * (shared/serve/preload.ts: V8's code cache for the bundle, which Node 20 offers for CommonJS only
 * through `vm.Script`, and the orphan guard). The Cloud Functions module and the bench's
 * `externalPackages` bundle stay ES modules: @kubernetes/client-node is ESM only, and Node 20
 * cannot require() it from disk.
 */
function isCommonJs(o: BundleOptions): boolean {
  return o.kind === 'server' && !o.externalPackages;
}

/** `server.js` of a CommonJS server bundle: loads server.cjs (what `node server.js` runs). */
const SERVER_JS =
  "import { createRequire } from 'node:module';\ncreateRequire(import.meta.url)('./server.cjs');\n";

const PRELOAD = resolve('shared/serve/preload.ts');

/** The generated `server.js` entries (`main(<name>)` after the handler's import), one per function. */
function serverEntries(group: readonly Target[]): Plugin {
  const handlers = new Map(group.map((t) => [t.o.name, handlerOf(t.o)]));
  return {
    name: ENTRY,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${ENTRY}:`) }, (args) => ({
        path: args.path.slice(ENTRY.length + 1),
        namespace: ENTRY,
      }));
      b.onLoad({ filter: /.*/, namespace: ENTRY }, (args) => ({
        contents: serverEntry(handlers.get(args.path)!, args.path),
        resolveDir: process.cwd(),
        loader: 'ts',
      }));
    },
  };
}

/** 'whitespace': the legal comments (licenses) in a file beside the bundle, which stays ASCII. */
function minifyOptions(m: BundleOptions['minify']): BuildOptions {
  return m === 'whitespace' ? { minifyWhitespace: true, legalComments: 'external' } : { minify: m ?? true };
}

/** The entries, then what the kind of bundle asks for (./bundle-plugins.ts). */
function pluginsOf(group: readonly Target[], commonjs: boolean): Plugin[] {
  return [serverEntries(group), ...bundlePlugins(commonjs, group[0].o.externalPackages === true)];
}

/** One esbuild run for targets of the same options; its inputs count for each of them (./bundle-inputs.ts). */
async function buildGroup(
  group: readonly Target[],
): Promise<Map<Target, { bytes: number; inputs: CacheManifest['inputs'] }>> {
  const o = group[0].o;
  const server = o.kind === 'server';
  const commonjs = isCommonJs(o);
  const result = await build({
    entryPoints: group.flatMap((t) => [
      {
        in: server ? `${ENTRY}:${t.o.name}` : handlerOf(t.o),
        out: `${t.o.name}/${server ? 'server' : 'index'}`,
      },
      ...(commonjs ? [{ in: PRELOAD, out: `${t.o.name}/preload` }] : []),
    ]),
    outdir: o.outDir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: commonjs ? 'cjs' : 'esm',
    ...(commonjs ? { outExtension: { '.js': '.cjs' } } : {}),
    ...minifyOptions(o.minify),
    ...sourceMapOptions(o, join(o.outDir, '_')),
    metafile: true,
    plugins: pluginsOf(group, commonjs),
    ...(o.kind === 'module' ? { external: ['@google-cloud/functions-framework'] } : {}),
    ...(commonjs ? {} : { banner: { js: REQUIRE_SHIM } }),
    logLevel: 'silent',
  });
  const outputs = new Map(
    Object.entries(result.metafile.outputs).map(([path, out]) => [resolve(path), out.bytes]),
  );
  const built = new Map<Target, { bytes: number; inputs: CacheManifest['inputs'] }>();
  const sources = group.map((t) => ({ dir: t.dir, source: dirname(handlerOf(t.o)) }));
  const inputs = await inputsOfRun(sources, result.metafile);
  if (commonjs)
    await copyColdFiles(
      result.metafile,
      group.map((t) => t.file),
    );
  for (const [i, t] of group.entries()) {
    await writeFile(join(t.dir, 'package.json'), packageJson(t.o.name, t.o.kind, commonjs));
    if (commonjs) await writeFile(join(t.dir, 'server.js'), SERVER_JS);
    built.set(t, { bytes: outputs.get(resolve(t.file)) ?? 0, inputs: inputs[i] });
  }
  return built;
}
