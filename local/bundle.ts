/**
 * esbuild bundles of the functions (`functions/<name>/handler.ts`):
 * - `server.js`: self-starting (the handler, the Functions Framework and every dependency in
 *   one file; `node server.js` serves on PORT): what a Knative container and the embedded
 *   activator's replicas run. One file to load is the cheapest cold start.
 * - `index.js`: the handler module for Google Cloud Functions, which brings its own Functions
 *   Framework (left external and named in the folder's package.json).
 * `packages: 'external'` bundles only the project's own code (the "unbundled" side of the bench).
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  build as esbuild,
  stop as stopEsbuild,
  version as esbuildVersion,
  type BuildOptions,
  type BuildResult,
  type Plugin,
} from 'esbuild';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

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
  minify?: boolean;
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

function serverEntry(handler: string, name: string): string {
  const serve = resolve('shared/serve/index.ts');
  return [
    `import ${JSON.stringify(handler)};`,
    `import { main } from ${JSON.stringify(serve)};`,
    `main(${JSON.stringify(name)});`,
  ].join('\n');
}

function packageJson(name: string, kind: BundleKind): string {
  const pkg =
    kind === 'server'
      ? { name, private: true, type: 'module', main: 'server.js', scripts: { start: 'node server.js' } }
      : {
          name,
          private: true,
          type: 'module',
          main: 'index.js',
          dependencies: { '@google-cloud/functions-framework': '^5.0.5' },
        };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/**
 * esbuild's `packages: 'external'` without the repository's own workspaces (`@landscape/*`,
 * TypeScript sources under packages/), which Node could not load unbundled.
 */
const externalNpmPackages: Plugin = {
  name: 'external-npm-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@landscape/') || args.path.startsWith('node:')
        ? undefined
        : { path: args.path, external: true },
    );
  },
};

interface CacheManifest {
  bytes: number;
  inputs: Record<string, { size: number; mtimeMs: number }>;
}

function cacheKey(o: BundleOptions, handler: string): string {
  // the output folder is not part of the key: a cached bundle's source map has an absolute
  // sourceRoot (buildFunction), so it names the right sources from wherever it is copied to
  const { cacheDir: _c, outDir: _o, ...options } = o;
  const id = JSON.stringify({ options, handler, esbuild: esbuildVersion, node: process.version });
  return `${o.name}-${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}

async function inputsUnchanged(inputs: CacheManifest['inputs']): Promise<boolean> {
  for (const [path, seen] of Object.entries(inputs)) {
    const st = await stat(path).catch(() => undefined);
    if (!st || st.size !== seen.size || st.mtimeMs !== seen.mtimeMs) return false;
  }
  return true;
}

/** The cached bundle copied to `dir` when still valid; undefined on a miss. */
async function fromCache(cached: string, dir: string): Promise<number | undefined> {
  const manifest = await readFile(join(cached, 'cache.json'), 'utf8').then(
    (t) => JSON.parse(t) as CacheManifest,
    () => undefined,
  );
  if (!manifest || !(await inputsUnchanged(manifest.inputs))) return undefined;
  await cp(join(cached, 'bundle'), dir, { recursive: true });
  return manifest.bytes;
}

/** Stores a fresh bundle (written to a temporary folder, then renamed: concurrent builders are safe). */
async function toCache(cached: string, dir: string, manifest: CacheManifest): Promise<void> {
  const tmp = `${cached}.${randomUUID()}.tmp`;
  await cp(dir, join(tmp, 'bundle'), { recursive: true });
  await writeFile(join(tmp, 'cache.json'), JSON.stringify(manifest));
  await rm(cached, { recursive: true, force: true });
  await rename(tmp, cached).catch(() => rm(tmp, { recursive: true, force: true }));
}

async function inputStats(paths: readonly string[]): Promise<CacheManifest['inputs']> {
  const out: CacheManifest['inputs'] = {};
  for (const p of paths) {
    const st = await stat(p).catch(() => undefined);
    if (st) out[p] = { size: st.size, mtimeMs: st.mtimeMs };
  }
  return out;
}

/** Builds one bundle (or takes it from `cacheDir`); throws with esbuild's message when the code does not build. */
export async function bundleFunction(o: BundleOptions): Promise<Bundle> {
  if (o.cacheDir === undefined) return buildFunction(o);
  const handler = resolve(o.functionsDir ?? 'functions', o.name, 'handler.ts');
  const cached = join(o.cacheDir, cacheKey(o, handler));
  const dir = join(o.outDir, o.name);
  const file = join(dir, o.kind === 'server' ? 'server.js' : 'index.js');
  await mkdir(dir, { recursive: true });
  const hit = await fromCache(cached, dir);
  if (hit !== undefined) return { name: o.name, file, bytes: hit, cached: true };
  await mkdir(o.cacheDir, { recursive: true });
  // one builder per bundle: a second landscape starting meanwhile waits for the first one's build
  const release = await buildLock(`${cached}.lock`);
  try {
    const bytes = await fromCache(cached, dir);
    if (bytes !== undefined) return { name: o.name, file, bytes, cached: true };
    const built = await buildFunction(o);
    await toCache(cached, dir, { bytes: built.bytes, inputs: await inputStats(built.inputs) });
    return { name: built.name, file: built.file, bytes: built.bytes, cached: false };
  } finally {
    await release();
  }
}

/** A lock older than this is taken as left by a builder that died. */
const STALE_LOCK_MS = 120_000;

/**
 * Waits until this process holds the lock directory `lock` (mkdir is atomic), or until a lock
 * held elsewhere is stale; returns its release.
 */
async function buildLock(lock: string): Promise<() => Promise<void>> {
  for (;;) {
    try {
      await mkdir(lock);
      return () => rm(lock, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const st = await stat(lock).catch(() => undefined);
      if (st && Date.now() - st.mtimeMs > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
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

async function buildFunction(o: BundleOptions): Promise<Bundle & { inputs: string[] }> {
  if (!FUNCTION_NAME_PATTERN.test(o.name))
    throw new Error(`function folder "${o.name}" is not a valid Functions Framework name`);
  const handler = resolve(o.functionsDir ?? 'functions', o.name, 'handler.ts');
  if (!existsSync(handler)) throw new Error(`no handler at ${handler}`);
  const dir = join(o.outDir, o.name);
  await mkdir(dir, { recursive: true });
  const file = join(dir, o.kind === 'server' ? 'server.js' : 'index.js');
  const entry =
    o.kind === 'server'
      ? {
          stdin: { contents: serverEntry(handler, o.name), resolveDir: process.cwd(), loader: 'ts' as const },
        }
      : { entryPoints: [handler] };
  const result = await build({
    ...entry,
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: o.minify ?? true,
    ...sourceMapOptions(o, dir),
    metafile: true,
    ...(o.externalPackages ? { plugins: [externalNpmPackages] } : {}),
    ...(o.kind === 'module' ? { external: ['@google-cloud/functions-framework'] } : {}),
    banner: { js: REQUIRE_SHIM },
    logLevel: 'silent',
  });
  await writeFile(join(dir, 'package.json'), packageJson(o.name, o.kind));
  const bytes = Object.entries(result.metafile.outputs)
    .filter(([path]) => !path.endsWith('.map'))
    .reduce((n, [, out]) => n + out.bytes, 0);
  return { name: o.name, file, bytes, inputs: Object.keys(result.metafile.inputs).map((p) => resolve(p)) };
}
