/**
 * esbuild bundles of the functions (`functions/<name>/handler.ts`):
 * - `server.js`: self-starting (the handler, the Functions Framework and every dependency in
 *   one file; `node server.js` serves on PORT): what a Knative container and the embedded
 *   activator's replicas run. One file to load is the cheapest cold start.
 * - `index.js`: the handler module for Google Cloud Functions, which brings its own Functions
 *   Framework (left external and named in the folder's package.json).
 * `packages: 'external'` bundles only the project's own code (the "unbundled" side of the bench).
 */
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

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
}

export interface Bundle {
  name: string;
  file: string;
  bytes: number;
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

/** Builds one bundle; throws with esbuild's message when the code does not build. */
export async function bundleFunction(o: BundleOptions): Promise<Bundle> {
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
    sourcemap: o.sourcemap === false ? false : 'linked',
    metafile: true,
    ...(o.externalPackages ? { packages: 'external' as const } : {}),
    ...(o.kind === 'module' ? { external: ['@google-cloud/functions-framework'] } : {}),
    banner: { js: REQUIRE_SHIM },
    logLevel: 'silent',
  });
  await writeFile(join(dir, 'package.json'), packageJson(o.name, o.kind));
  const bytes = Object.entries(result.metafile.outputs)
    .filter(([path]) => !path.endsWith('.map'))
    .reduce((n, [, out]) => n + out.bytes, 0);
  return { name: o.name, file, bytes };
}
