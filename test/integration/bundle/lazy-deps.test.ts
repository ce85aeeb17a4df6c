/**
 * The lazy dependencies of the server bundles (local/bundle-lazy-deps.ts), built by esbuild from
 * fixture packages in a temporary node_modules: a package imported or required by another package
 * runs only when one of its names is first read, and then as the real one (values, functions,
 * classes, assignments); a module that is itself a function stays eager, as do a package in an
 * .mjs file (whose named imports a CommonJS stand-in would leave undefined) and an import from the
 * project's own code; and the deployer bundle built by local/bundle.ts has the client-node
 * dependencies behind stand-ins; and Express with qs behind its stand-in still parses extended query
 * strings and form bodies.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { lazyDependencies, LAZY_DEPENDENCIES } from '../../../local/bundle-lazy-deps.js';
import { bundleFunction } from '../../../local/bundle.js';
import { bundleEntry, scratchDir } from '../../support/bundle-entry.js';

let dir: string;

function write(rel: string, text: string): void {
  const file = join(dir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lazy-deps-'));
  // dep-a: an object module with a side effect at load (also run at build time, in the child process
  // that reads its names); dep-fn: a module that is a function
  write('node_modules/dep-a/package.json', '{"name":"dep-a","main":"index.js"}');
  write(
    'node_modules/dep-a/index.js',
    [
      '(globalThis.__order ??= []).push("dep-a loaded");',
      'exports.value = 41;',
      'exports.add = (n) => n + 1;',
      'exports.Box = class Box { constructor(v) { this.v = v; } };',
      'exports.setting = "default";',
    ].join('\n'),
  );
  write('node_modules/dep-fn/package.json', '{"name":"dep-fn","main":"index.js"}');
  write(
    'node_modules/dep-fn/index.js',
    '(globalThis.__order ??= []).push("dep-fn loaded"); module.exports = function fn() { return "fn"; };',
  );
  // user-b (CommonJS require) and user-c (ES import) use them only inside functions
  write('node_modules/user-b/package.json', '{"name":"user-b","main":"index.js"}');
  write(
    'node_modules/user-b/index.js',
    [
      'const a = require("dep-a");',
      'const fn = require("dep-fn");',
      'exports.use = () => [a.add(a.value), new a.Box(2) instanceof a.Box, fn()];',
      'exports.configure = (s) => { a.setting = s; return a.setting; };',
    ].join('\n'),
  );
  // dep-esm: an ES module in an .mjs file (as hpagent), imported by name by user-d
  write('node_modules/dep-esm/package.json', '{"name":"dep-esm","main":"index.mjs"}');
  write('node_modules/dep-esm/index.mjs', 'export const value = "esm";');
  write('node_modules/user-d/package.json', '{"name":"user-d","type":"module","main":"index.js"}');
  write('node_modules/user-d/index.js', 'import { value } from "dep-esm";\nexport const use = () => value;');
  write('node_modules/user-c/package.json', '{"name":"user-c","type":"module","main":"index.js"}');
  write('node_modules/user-c/index.js', 'import { value } from "dep-a";\nexport const use = () => value;');
}, 30_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundleAndRun(entry: string, run: string): Promise<unknown> {
  write('entry.js', entry);
  const out = join(dir, 'out.cjs');
  await build({
    entryPoints: [join(dir, 'entry.js')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    plugins: [lazyDependencies(['dep-a', 'dep-fn', 'dep-esm'])],
    logLevel: 'silent',
  });
  const script = `globalThis.__order = []; const m = require(${JSON.stringify(out)}); globalThis.__order.push('loaded'); ${run}`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as unknown;
}

it('runs a required package only when its first name is read, then as the real module', async () => {
  const got = await bundleAndRun(
    'module.exports = require("user-b");',
    'const used = m.use(); const set = m.configure("mine"); console.log(JSON.stringify({ order: __order, used, set }));',
  );
  // dep-fn (a function) loads with user-b; dep-a only once use() reads from it
  expect(got).toEqual({
    order: ['dep-fn loaded', 'loaded', 'dep-a loaded'],
    used: [42, true, 'fn'],
    set: 'mine',
  });
});

it('does the same for an ES import by a package', async () => {
  const got = await bundleAndRun(
    'export { use } from "user-c";',
    'const before = [...__order]; const v = m.use(); console.log(JSON.stringify({ before, order: __order, v }));',
  );
  expect(got).toEqual({ before: ['loaded'], order: ['loaded', 'dep-a loaded'], v: 41 });
});

it('leaves a package in an .mjs file eager, whose names then still arrive', async () => {
  const got = await bundleAndRun(
    'export { use } from "user-d";',
    'console.log(JSON.stringify({ v: m.use() }));',
  );
  expect(got).toEqual({ v: 'esm' });
});

it("leaves the project's own imports eager", async () => {
  const got = await bundleAndRun(
    'const a = require("dep-a"); module.exports = () => a.value;',
    'console.log(JSON.stringify({ order: __order, v: m() }));',
  );
  expect(got).toEqual({ order: ['dep-a loaded', 'loaded'], v: 41 });
});

it("puts the deployer bundle's client-node dependencies behind stand-ins", async () => {
  const out = mkdtempSync(join(tmpdir(), 'lazy-deps-bundle-'));
  try {
    const b = await bundleFunction({
      name: 'deployer-mock',
      outDir: out,
      kind: 'server',
      minify: false,
      sourcemap: false,
    });
    const text = readFileSync(b.file, 'utf8');
    // esbuild names each module it wraps in a comment: the stand-ins are the lazy-dependency ones
    const standIns = [...text.matchAll(/^\s*\/\/ lazy-dependency:\S*\/node_modules\/([^/]+)\//gm)].map(
      (m) => m[1],
    );
    expect([...new Set(standIns)].sort()).toEqual([...LAZY_DEPENDENCIES].sort());
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 60_000);

it('parses extended query strings and form bodies with qs behind its stand-in in a server bundle', async () => {
  const out = scratchDir('lazy-deps-qs');
  try {
    // a form body's type is not in the mime stand-in's table: mime-db is read from cold/ beside the bundle
    const file = await bundleEntry(
      out,
      [
        "import express from 'express';",
        'const app = express();',
        "app.set('query parser', 'extended');",
        'app.use(express.urlencoded({ extended: true }));',
        "app.post('/', (req, res) => { res.json({ query: req.query, body: req.body }); });",
        "const server = app.listen(0, '127.0.0.1', async () => {",
        '  const { port } = server.address();',
        "  const res = await fetch(`http://127.0.0.1:${port}/?a[b]=1`, { method: 'POST',",
        "    headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'x[y]=2&x[z]=3' });",
        '  console.log(JSON.stringify(await res.json()));',
        '  server.close();',
        '});',
      ].join('\n'),
    );
    expect(readFileSync(file, 'utf8')).toMatch(/lazy-dependency:\S*\/node_modules\/qs\//);
    const got = JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' })) as unknown;
    expect(got).toEqual({ query: { a: { b: '1' } }, body: { x: { y: '2', z: '3' } } });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 60_000);
