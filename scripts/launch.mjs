/**
 * `node scripts/launch.mjs <entry.ts> [args...]`: runs a TypeScript entry point of the landscape
 * (`npm start`, `npm run landscape`, `npm run drill`, `npm run dlq`) from one esbuild bundle of it
 * and everything it imports, kept in `node_modules/.cache/landscape-launch/` and rebuilt only when
 * one of its inputs (every source and package file esbuild read) changed size or mtime.
 *
 * Why not `node --import tsx`: tsx compiles and Node resolves ~1,300 ESM files one by one on every
 * start, ~4 CPU-s before the first line runs; one bundled file loads in ~0.6 CPU-s. Plain
 * JavaScript so that nothing has to be compiled to start it.
 *
 * The bundle behaves as the sources do: each file's `import.meta.url` is its own source file's URL
 * (so files found beside a module, such as the CRDs, are found), `process.argv[1]` is the entry
 * file, and the working directory is unchanged. Source maps are written beside the bundle;
 * `NODE_OPTIONS=--enable-source-maps` makes stack traces name the TypeScript lines.
 *
 * A rebuild says so on stderr when stderr is a terminal (`npm start` in a shell: seconds of
 * bundling are never silent), and esbuild's service process is stopped once the bundle is
 * written: nothing of the build stays running beside the entry.
 */
import { build, stop as stopEsbuild, version as esbuildVersion } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const CACHE = resolve('node_modules', '.cache', 'landscape-launch');
/** Left to node_modules: esbuild is a native binary with its own worker. */
const EXTERNAL = ['esbuild'];
const KEY = JSON.stringify({ esbuildVersion, node: process.versions.node, external: EXTERNAL, v: 1 });
const REQUIRE_SHIM =
  "import { createRequire as __launchRequire } from 'node:module'; const require = __launchRequire(import.meta.url);";

/**
 * Each file's `import.meta.url` is that file's own URL, as it is unbundled: esbuild's define turns
 * the expression (not text in strings) into a name, and each file that uses it declares that name.
 */
const META_URL = '__launch_import_meta_url';
const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.js': 'js', '.mjs': 'js', '.cjs': 'js' };
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.(ts|mts|js|mjs|cjs)$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const declare = `const ${META_URL} = ${JSON.stringify(pathToFileURL(args.path).href)};\n`;
      return { contents: declare + text, loader: LOADERS[extname(args.path)] };
    });
  },
};

/** A progress line for a person watching (stderr is a terminal); scripts and tests see nothing. */
function say(line) {
  if (process.stderr.isTTY) process.stderr.write(`${line}\n`);
}

function stamp(path) {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/** The cached bundle when its key and every input's size and mtime still match. */
function cached(bundle, manifest) {
  let m;
  try {
    m = JSON.parse(readFileSync(manifest, 'utf8'));
  } catch {
    return false;
  }
  if (m.key !== KEY) return false;
  if (stamp(bundle) === 'missing') return false;
  return Object.entries(m.inputs).every(([path, s]) => stamp(path) === s);
}

async function bundleOf(entry) {
  const name = entry.replace(/\.ts$/, '').replace(/[^A-Za-z0-9]+/g, '-');
  const bundle = join(CACHE, `${name}.mjs`);
  const manifest = join(CACHE, `${name}.json`);
  if (cached(bundle, manifest)) return bundle;
  mkdirSync(CACHE, { recursive: true });
  const started = Date.now();
  say(`launch: bundling ${entry} and what it imports (first start, or its sources changed)...`);
  const tmp = `${bundle}.${process.pid}.tmp.mjs`;
  const result = await build({
    entryPoints: [entry],
    outfile: tmp,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    external: EXTERNAL,
    sourcemap: 'linked',
    metafile: true,
    banner: { js: REQUIRE_SHIM },
    define: { 'import.meta.url': META_URL },
    plugins: [sourceUrls],
    logLevel: 'error',
  }).finally(() => stopEsbuild());
  const inputs = Object.fromEntries(
    Object.keys(result.metafile.inputs).map((p) => [resolve(p), stamp(resolve(p))]),
  );
  // the map names the file it belongs to; the rename keeps readers from a half-written bundle
  const map = readFileSync(`${tmp}.map`, 'utf8');
  unlinkSync(`${tmp}.map`);
  writeFileSync(`${bundle}.map.${process.pid}`, map);
  renameSync(`${bundle}.map.${process.pid}`, `${bundle}.map`);
  const code = readFileSync(tmp, 'utf8').replace(
    `sourceMappingURL=${basename(tmp)}.map`,
    `sourceMappingURL=${basename(bundle)}.map`,
  );
  writeFileSync(tmp, code);
  renameSync(tmp, bundle);
  writeFileSync(`${manifest}.${process.pid}`, JSON.stringify({ key: KEY, entry, inputs }));
  renameSync(`${manifest}.${process.pid}`, manifest);
  say(`launch: bundled ${entry} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return bundle;
}

const [entryArg, ...args] = process.argv.slice(2);
if (entryArg === undefined || !entryArg.endsWith('.ts')) {
  console.error('usage: node scripts/launch.mjs <entry.ts> [args...]');
  process.exit(2);
}
const entry = resolve(entryArg);
if (stamp(entry) === 'missing') {
  console.error(`launch: no such file: ${entryArg}`);
  process.exit(2);
}
const bundle = await bundleOf(entryArg);
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(bundle).href);
