/**
 * The built-in stand-ins of the server bundles (local/bundle-builtins.ts) behave as the real
 * modules and require them only when a property is first read (or, for `assert`, first called);
 * and a real server bundle built with them loads none of the lazy built-ins at start.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import type * as Zlib from 'node:zlib';
import type Assert from 'node:assert';
import type * as Https from 'node:https';
import { builtinStandIn, LAZY_BUILTINS } from '../../../local/bundle-builtins.js';
import { bundleFunction } from '../../../local/bundle.js';

const nodeRequire = createRequire(import.meta.url);

function standIn<T>(name: string): { mod: T; required: () => number } {
  const real = nodeRequire(`node:${name}`) as object;
  let required = 0;
  const module = { exports: {} as T };
  const require = (id: string): unknown => {
    expect(id).toBe(`node:${name}`);
    required++;
    return real;
  };
  const run = runInThisContext(
    `(function (module, require) {\n${builtinStandIn(name, Object.keys(real), typeof real === 'function')}\n})`,
  ) as (m: { exports: T }, r: (id: string) => unknown) => void;
  run(module, require);
  return { mod: module.exports, required: () => required };
}

it('zlib: nothing required until a property is read, then the real functions and classes', () => {
  const s = standIn<typeof Zlib>('zlib');
  expect(s.required()).toBe(0);
  expect(Object.keys(s.mod)).toEqual(Object.keys(nodeRequire('node:zlib') as object));
  expect(s.required()).toBe(0);
  const packed = s.mod.gzipSync(Buffer.from('hello'));
  expect(s.mod.gunzipSync(packed).toString()).toBe('hello');
  expect(s.mod.createGzip()).toBeInstanceOf((nodeRequire('node:zlib') as typeof Zlib).Gzip);
  expect(s.required()).toBeGreaterThan(0);
});

it('assert: a function that calls the real assert, with its properties', () => {
  const s = standIn<typeof Assert>('assert');
  expect(typeof s.mod).toBe('function');
  expect(s.required()).toBe(0);
  expect(() => s.mod(true)).not.toThrow();
  expect(() => s.mod(false, 'nope')).toThrow('nope');
  expect(() => s.mod.strictEqual(1, 2)).toThrow(s.mod.AssertionError);
});

it('an assignment goes to the real module', () => {
  const s = standIn<typeof Https>('https');
  const real = nodeRequire('node:https') as typeof Https;
  const before = real.globalAgent;
  try {
    const agent = new real.Agent();
    s.mod.globalAgent = agent;
    expect(real.globalAgent).toBe(agent);
  } finally {
    real.globalAgent = before;
  }
});

it('a server bundle starts without loading the lazy built-ins', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'builtins-'));
  try {
    const b = await bundleFunction({
      name: 'noop',
      functionsDir: 'bench/fixtures/functions',
      outDir: dir,
      kind: 'server',
    });
    // load the bundle (the framework, express, body-parser, the CloudEvents SDK) without serving
    const script = `require(${JSON.stringify(b.file)}); setImmediate(() => { console.log(JSON.stringify(process.moduleLoadList)); process.exit(0); });`;
    const r = spawnSync(process.execPath, ['-e', script], {
      env: { PATH: process.env.PATH, PORT: '0' },
      encoding: 'utf8',
    });
    const lines = r.stdout.trim().split('\n');
    const loaded = JSON.parse(lines[lines.length - 1]) as string[];
    for (const name of LAZY_BUILTINS) expect(loaded).not.toContain(`NativeModule ${name}`);
    expect(loaded).toContain('NativeModule http');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
