/**
 * local/bundle.ts with a cache folder: the second build of unchanged sources is a copy of the
 * first; a changed source builds again; two stores of one key at once leave one valid entry; two
 * landscapes starting at once build a changed bundle once (the other waits and copies it).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundleFunction } from '../../../local/bundle.js';

// inside the repository, so that esbuild finds node_modules from the handler
const base = resolve('.local');
let root: string;

beforeAll(() => {
  mkdirSync(base, { recursive: true });
  root = mkdtempSync(join(base, 'bundle-cache-test-'));
  mkdirSync(join(root, 'functions', 'echo'), { recursive: true });
  writeFileSync(
    join(root, 'functions', 'echo', 'handler.ts'),
    "import * as ff from '@google-cloud/functions-framework';\nff.cloudEvent('echo', () => console.log('v1'));\n",
  );
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const options = (out: string): Parameters<typeof bundleFunction>[0] => ({
  name: 'echo',
  functionsDir: join(root, 'functions'),
  outDir: join(root, out),
  kind: 'server',
  minify: false,
  cacheDir: join(root, 'cache'),
});

it('builds once, then copies from the cache until a source changes', async () => {
  const first = await bundleFunction(options('a'));
  expect(readdirSync(join(root, 'cache'))).toHaveLength(1);
  const second = await bundleFunction(options('b'));
  expect(second.bytes).toBe(first.bytes);
  expect(readFileSync(second.file, 'utf8')).toBe(readFileSync(first.file, 'utf8'));

  writeFileSync(
    join(root, 'functions', 'echo', 'handler.ts'),
    "import * as ff from '@google-cloud/functions-framework';\nff.cloudEvent('echo', () => console.log('v2, longer'));\n",
  );
  const third = await bundleFunction(options('c'));
  expect(readFileSync(third.file, 'utf8')).toContain('v2, longer');
  expect(readFileSync(third.file, 'utf8')).not.toEqual(readFileSync(first.file, 'utf8'));
}, 60_000);

it('stays valid when two builders store the same bundle at once', async () => {
  const [x, y] = await Promise.all([bundleFunction(options('d')), bundleFunction(options('e'))]);
  expect(readFileSync(x.file, 'utf8')).toBe(readFileSync(y.file, 'utf8'));
  const z = await bundleFunction(options('f'));
  expect(readFileSync(z.file, 'utf8')).toBe(readFileSync(x.file, 'utf8'));
  expect(readdirSync(join(root, 'cache')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
}, 60_000);

it('builds a changed bundle once when two landscapes start at once: the other waits for it', async () => {
  writeFileSync(
    join(root, 'functions', 'echo', 'handler.ts'),
    "import * as ff from '@google-cloud/functions-framework';\nff.cloudEvent('echo', () => console.log('v3'));\n",
  );
  const both = await Promise.all([bundleFunction(options('g')), bundleFunction(options('h'))]);
  expect(both.map((b) => b.cached).sort()).toEqual([false, true]);
  expect(readFileSync(both[0].file, 'utf8')).toContain('v3');
  expect(readFileSync(both[1].file, 'utf8')).toBe(readFileSync(both[0].file, 'utf8'));
  expect(readdirSync(join(root, 'cache')).filter((f) => f.endsWith('.lock'))).toEqual([]);
}, 60_000);

it('keeps the server bundle when the module bundle is built into the same folder (npm run build)', async () => {
  const out = join(root, 'both');
  const server = await bundleFunction({ ...options('both'), cacheDir: undefined });
  const module = await bundleFunction({ ...options('both'), cacheDir: undefined, kind: 'module' });
  expect(readdirSync(join(out, 'echo')).sort()).toEqual(
    expect.arrayContaining(['index.js', 'preload.cjs', 'server.cjs', 'server.js']),
  );
  expect(readFileSync(server.file, 'utf8')).toMatch(/console\.log\("v/);
  expect(readFileSync(module.file, 'utf8')).toMatch(/console\.log\("v/);
}, 60_000);
