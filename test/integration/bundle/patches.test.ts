/**
 * The source patches of the server bundles (local/bundle-patches.ts): each anchor is in the
 * installed package exactly once (a new version of the package that moves it fails here, so the
 * patch is looked at again), a patch goes in front of its anchor, and a bundle of ioredis with
 * the patch gives the Redis client the same methods as ioredis loaded from node_modules, and
 * talks to a real redis-server.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { applyPatch, SOURCE_PATCHES } from '../../../local/bundle-patches.js';
import { bundleEntry, scratchDir } from '../../support/bundle-entry.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

const require = createRequire(join(process.cwd(), 'package.json'));

describe('applyPatch', () => {
  const patch = { module: 'x/y.js', file: /x/, before: 'b();', insert: 'i();\n' };
  it.each([
    ['in front of the anchor', 'a();\nb();\nc();', 'a();\ni();\nb();\nc();'],
    ['no anchor', 'a();', undefined],
    ['the anchor twice', 'b();b();', undefined],
  ])('%s', (_name, source, want) => {
    expect(applyPatch(source, patch)).toBe(want);
  });
});

describe('the installed packages', () => {
  it.each(SOURCE_PATCHES.map((p) => [p.module, p]))('%s has its anchor once', (_name, patch) => {
    const file = require.resolve(patch.module);
    expect(patch.file.test(file)).toBe(true);
    expect(applyPatch(readFileSync(file, 'utf8'), patch)).toContain(patch.insert);
  });
});

describe('a bundle of ioredis with the patch', () => {
  let dir: string;
  let redis: TestRedis;
  beforeAll(async () => {
    dir = scratchDir('patches');
    redis = await startRedis();
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await redis.stop();
  });

  it('has the methods of ioredis from node_modules and runs commands', async () => {
    const out = await bundleEntry(dir, "export { Redis } from 'ioredis';\n");
    expect(readFileSync(out, 'utf8')).toContain('delete Commander.prototype.__landscapeDictionaryMode');
    const script = [
      `const bundled = require(${JSON.stringify(out)}).Redis;`,
      "const plain = require('ioredis').Redis;",
      'const methods = (C) => { const p = Object.getPrototypeOf(C.prototype);',
      "  return Object.getOwnPropertyNames(p).filter((n) => typeof p[n] === 'function').sort(); };",
      'const r = new bundled(process.argv[1], { lazyConnect: true });',
      'r.connect()',
      "  .then(() => r.set('patched', 'yes'))",
      "  .then(() => Promise.all([r.get('patched'), r.getBuffer('patched'), r.call('strlen', 'patched')]))",
      '  .then(([s, b, n]) => {',
      '    process.stdout.write(JSON.stringify({ same: JSON.stringify(methods(bundled)) === JSON.stringify(methods(plain)),',
      "      count: methods(bundled).length, s, b: b.toString('hex'), n, own: Object.hasOwn(Object.getPrototypeOf(bundled.prototype), '__landscapeDictionaryMode') }));",
      '    r.disconnect();',
      '  });',
    ].join('\n');
    const got = JSON.parse(
      execFileSync(process.execPath, ['-e', script, redis.url], { encoding: 'utf8', cwd: process.cwd() }),
    ) as { same: boolean; count: number; s: string; b: string; n: number; own: boolean };
    const { count, ...rest } = got;
    expect(rest).toEqual({ same: true, s: 'yes', b: '796573', n: 3, own: false });
    expect(count).toBeGreaterThan(500);
  }, 60_000);
});
