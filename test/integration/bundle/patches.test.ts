/**
 * The source patches of the server bundles (local/bundle-patches.ts): each anchor is in the
 * installed package exactly once (a new version of the package that moves it fails here, so the
 * patch is looked at again), edits replace their anchors in order, a bundle of ioredis with the
 * patch gives the Redis client the same methods as ioredis loaded from node_modules and talks to a
 * real redis-server, and a bundle of the Functions Framework's server (shared/serve/framework.ts)
 * answers events as before without loading node:domain, and enters its AsyncLocalStorage only
 * where LOG_EXECUTION_ID reads it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { applyPatch, SOURCE_PATCHES } from '../../../local/bundle-patches.js';
import { bundleEntry, scratchDir } from '../../support/bundle-entry.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

describe('applyPatch', () => {
  const patch = {
    module: 'x/y.js',
    file: /x/,
    edits: [
      { find: 'b();', replace: 'i();\nb();' },
      { find: 'c();\n', replace: '' },
    ],
  };
  it.each([
    ['each edit in order', 'a();\nb();\nc();\nd();', 'a();\ni();\nb();\nd();'],
    ['an anchor missing', 'a();\nb();', undefined],
    ['an anchor twice', 'b();b();c();\n', undefined],
  ])('%s', (_name, source, want) => {
    expect(applyPatch(source, patch)).toBe(want);
  });
  it('finds a later anchor in what an earlier edit wrote', () => {
    const chained = {
      ...patch,
      edits: [
        { find: 'a', replace: 'xy' },
        { find: 'y', replace: 'z' },
      ],
    };
    expect(applyPatch('a-', chained)).toBe('xz-');
  });
});

describe('the installed packages', () => {
  it.each(SOURCE_PATCHES.map((p) => [p.module, p]))('%s has each anchor once', (_name, patch) => {
    // by path: the Functions Framework's exports map names none of its files
    const file = join(process.cwd(), 'node_modules', patch.module);
    expect(patch.file.test(file)).toBe(true);
    const patched = applyPatch(readFileSync(file, 'utf8'), patch);
    expect(patched).toBeDefined();
    for (const edit of patch.edits) if (edit.replace) expect(patched).toContain(edit.replace);
  });
  it('the Functions Framework file without the patch loads node:domain (what the bundle test tells apart)', () => {
    const file = join(
      process.cwd(),
      'node_modules',
      '@google-cloud/functions-framework/build/src/function_wrappers.js',
    );
    const out = execFileSync(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(file)}); process.stdout.write(String(process.moduleLoadList.includes('NativeModule domain')))`,
      ],
      { encoding: 'utf8' },
    );
    expect(out).toBe('true');
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

describe('a bundle of the Functions Framework server with the patch', () => {
  let dir: string;
  beforeAll(() => {
    dir = scratchDir('patches-ff');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a resolved handler 204, a rejected one and a synchronous throw 500, never loads node:domain, keeps the execution context for LOG_EXECUTION_ID only, makes requests and responses with Express’s prototypes', async () => {
    const framework = join(process.cwd(), 'shared', 'serve', 'framework.js');
    const ffSrc = join(process.cwd(), 'node_modules', '@google-cloud', 'functions-framework', 'build', 'src');
    const entry = [
      "import * as ff from '@google-cloud/functions-framework';",
      "import { request } from 'node:http';",
      `import { frameworkServer } from ${JSON.stringify(framework)};`,
      "ff.cloudEvent('ok', async () => undefined);",
      `import { getCurrentContext } from ${JSON.stringify(join(ffSrc, 'async_local_storage.js'))};`,
      'const contexts: boolean[] = [];',
      "ff.cloudEvent('ctx', async () => { contexts.push(getCurrentContext() !== undefined); });",
      "ff.cloudEvent('rejects', async () => { throw new Error('boom'); });",
      // an HTTP function throwing synchronously: the wrapper's own try/catch (the cloudevent path makes every handler async)
      "ff.http('throws', () => { throw new Error('sync'); });",
      `import { getServer } from ${JSON.stringify(join(ffSrc, 'server.js'))};`,
      `import { parseOptions } from ${JSON.stringify(join(ffSrc, 'options.js'))};`,
      `import { getFunction } from ${JSON.stringify(join(ffSrc, 'testing.js'))};`,
      'const post = (port: number): Promise<number> => new Promise((resolve, reject) => {',
      "  const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/', headers: {",
      "    'content-type': 'application/json', 'ce-id': '1', 'ce-source': '/t', 'ce-type': 't', 'ce-specversion': '1.0' } },",
      "    (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); });",
      "  req.on('error', reject);",
      '  req.end(\'{"a":1}\');',
      '});',
      'const statuses: number[] = [];',
      'const lines: string[] = [];',
      // what the server made each request and response as, before Express saw them
      'const made: boolean[] = [];',
      "const express = (req: { get?: unknown }, res: { status?: unknown }): void => { made.push(typeof req.get === 'function' && typeof res.status === 'function'); };",
      'void (async () => {',
      "for (const name of ['ok', 'rejects', 'ok']) {",
      '  const server = frameworkServer(name, { env: {}, write: (l) => lines.push(l), line: (_lvl, msg) => msg });',
      "  server.prependListener('request', express);",
      "  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));",
      '  statuses.push(await post((server.address() as { port: number }).port));',
      '  await new Promise((r) => server.close(r));',
      '}',
      "for (const env of [{}, { LOG_EXECUTION_ID: 'true' }, {}]) {",
      "  const server = frameworkServer('ctx', { env, write: (l) => lines.push(l), line: (_lvl, msg) => msg });",
      "  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));",
      '  statuses.push(await post((server.address() as { port: number }).port));',
      '  await new Promise((r) => server.close(r));',
      '}',
      "const http = getServer(getFunction('throws') as never, { ...parseOptions(['node', 's'], {}), target: 'throws', signatureType: 'http' });",
      "http.prependListener('request', express);",
      "await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));",
      'statuses.push(await post((http.address() as { port: number }).port));',
      'await new Promise((r) => http.close(r));',
      "process.stdout.write(JSON.stringify({ statuses, contexts, made, domain: process.moduleLoadList.includes('NativeModule domain') }));",
      '})();',
    ].join('\n');
    const out = await bundleEntry(dir, entry);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('function_wrappers.js');
    expect(text).not.toMatch(/require\("domain"\)|domain\.create\(|process\.domain\.bind/);
    const got = JSON.parse(
      execFileSync(process.execPath, [out], {
        encoding: 'utf8',
        cwd: process.cwd(),
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { statuses: number[]; contexts: boolean[]; made: boolean[]; domain: boolean };
    // the execution context exists only while LOG_EXECUTION_ID is on (unpatched: always); the
    // requests and responses are Express's from the start (unpatched: Node's until Express's
    // handler sets their prototypes)
    expect(got).toEqual({
      statuses: [204, 500, 204, 204, 204, 204, 500],
      contexts: [false, true, false],
      made: [true, true, true, true],
      domain: false,
    });
  }, 60_000);
});
