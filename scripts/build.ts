/**
 * `npm run build`: one esbuild bundle per function (functions/<name>/handler.ts →
 * dist/functions/<name>/index.js), Functions Framework and every dependency inside, so a cold
 * start loads one file. Each output folder is deployable as it is (package.json included).
 */
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const FUNCTION_NAME = /^[A-Za-z](?:[-_A-Za-z0-9]{0,61}[A-Za-z0-9])?$/;

async function functionNames(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && existsSync(join(root, e.name, 'handler.ts')))
    .map((e) => e.name)
    .sort();
}

async function bundle(name: string, outDir: string): Promise<number> {
  if (!FUNCTION_NAME.test(name))
    throw new Error(`function folder "${name}" is not a valid Functions Framework name`);
  const dir = join(outDir, name);
  await mkdir(dir, { recursive: true });
  const result = await build({
    entryPoints: [join('functions', name, 'handler.ts')],
    outfile: join(dir, 'index.js'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: true,
    sourcemap: 'linked',
    metafile: true,
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'warning',
  });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name, type: 'module', main: 'index.js' }, null, 2)}\n`,
  );
  return Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
}

async function main(): Promise<void> {
  const outDir = join('dist', 'functions');
  await rm(outDir, { recursive: true, force: true });
  const names = existsSync('functions') ? await functionNames('functions') : [];
  if (names.length === 0) {
    console.log('build: no functions yet (functions/<name>/handler.ts); nothing to bundle');
    return;
  }
  for (const name of names) {
    const bytes = await bundle(name, outDir);
    console.log(
      `build: ${name.padEnd(28)} ${(bytes / 1024).toFixed(0).padStart(6)} KiB  → ${join(outDir, name, 'index.js')}`,
    );
  }
}

main().catch((e: unknown) => {
  console.error(`build failed: ${(e as Error).message}`);
  process.exit(1);
});
