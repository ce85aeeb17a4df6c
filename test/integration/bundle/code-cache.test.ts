/**
 * The code cache of a server bundle (shared/serve/preload.ts, code-cache.ts, train.ts), with real
 * processes: a training start writes `server.cjs.codecache`; the next start uses it (V8 accepts
 * it); a cache whose V8 data is damaged is refused by V8 and the process still serves and writes a
 * good one; a cache of another bundle (same length, other content) is not used at all; and
 * `node server.js` (what the image's Services run) loads the same bundle; with source maps on (the
 * image) the cache is used too, and a stack names the TypeScript source; the image's trainer
 * (`train.cjs`) writes the cache of every bundle below a folder; a start under other V8 flags than
 * the replicas' (shared/serve/v8-flags.ts) has the cache refused.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { bundleFunction } from '../../../local/bundle.js';
import { CACHE_SUFFIX } from '../../../shared/serve/code-cache.js';
import { servingPort, trainCodeCache } from '../../../shared/serve/train.js';
import { REPLICA_V8_FLAGS } from '../../../shared/serve/v8-flags.js';
import { bundleTrainer } from '../../../scripts/trainer-bundle.js';

let dir: string;
let file: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'code-cache-'));
  const b = await bundleFunction({
    name: 'sleeper',
    functionsDir: 'test/integration/activator/functions',
    outDir: dir,
    kind: 'server',
    sourcemap: false,
  });
  file = b.file;
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  status: number;
  use: string | undefined;
}

function post(port: number, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'ce-specversion': '1.0',
          'ce-id': '1',
          'ce-type': 't',
          'ce-source': '/s',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Starts `node <flags> --require preload.cjs <entry>` (the replicas' V8 flags unless `flags` says
 * otherwise), sends one event, and kills it once `done()` holds after the answer; its status and
 * the cache use it reported.
 */
async function startOnce(
  entry: string,
  done: () => boolean = () => true,
  opts: { nodeArgs?: string[]; body?: string; flags?: readonly string[] } = {},
): Promise<Started> {
  const preload = join(dirname(entry), 'preload.cjs');
  const args = [...(opts.flags ?? REPLICA_V8_FLAGS), ...(opts.nodeArgs ?? []), '--require', preload, entry];
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LANDSCAPE_CODE_CACHE: 'report' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let use: string | undefined;
  createInterface({ input: child.stderr }).on('line', (l) => {
    if (l.includes('"code cache"')) use = (JSON.parse(l) as { use: string }).use;
  });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (l) => {
      const p = servingPort(l);
      if (p !== undefined) resolve(p);
    });
    child.once('exit', (code) => reject(new Error(`exited ${String(code)} before serving`)));
  });
  try {
    const status = await post(port, opts.body ?? '{}');
    while (!done()) await new Promise((r) => setTimeout(r, 50));
    return { status, use };
  } finally {
    child.kill('SIGKILL');
  }
}

it('trains a cache, which the next start uses', async () => {
  const cache = await trainCodeCache(file);
  expect(cache).toBe(`${file}${CACHE_SUFFIX}`);
  expect(await startOnce(file)).toEqual({ status: 204, use: 'accepted' });
}, 60_000);

it("is refused to a start under other V8 flags than the replicas', which still serves", async () => {
  await trainCodeCache(file);
  const other = [...REPLICA_V8_FLAGS, '--max-semi-space-size=3'];
  expect(await startOnce(file, undefined, { flags: other })).toEqual({ status: 204, use: 'rejected' });
}, 60_000);

it('serves when V8 refuses a damaged cache, and writes a good one', async () => {
  const cache = await trainCodeCache(file);
  const good = readFileSync(cache);
  const header = good.indexOf(0x0a) + 1;
  const damaged = Buffer.concat([good.subarray(0, header), Buffer.alloc(good.length - header, 7)]);
  writeFileSync(cache, damaged);
  // the new cache is written after the first response: kept running until the file changed
  const rewritten = (): boolean => !readFileSync(cache).equals(damaged);
  expect(await startOnce(file, rewritten)).toEqual({ status: 204, use: 'rejected' });
  expect(await startOnce(file)).toEqual({ status: 204, use: 'accepted' });
}, 60_000);

it('does not use the cache of another bundle of the same length', async () => {
  await trainCodeCache(file);
  const source = readFileSync(file, 'utf8');
  // same length, other bytes, later mtime: the SIGTERM log line's message spelled otherwise
  const changed = source.replace(/(["'])stopping\1/, '$1Stopping$1');
  expect(changed).not.toBe(source);
  expect(changed.length).toBe(source.length);
  writeFileSync(file, changed);
  utimesSync(file, new Date(), new Date(Date.now() + 5_000));
  try {
    expect(await startOnce(file)).toEqual({ status: 204, use: 'none' });
  } finally {
    writeFileSync(file, source);
  }
}, 60_000);

it('loads the same bundle through server.js, as the image runs it', async () => {
  await trainCodeCache(file);
  expect(await startOnce(join(dir, 'sleeper', 'server.js'))).toEqual({ status: 204, use: 'accepted' });
}, 60_000);

it('uses the cache with source maps on, and names the TypeScript source in a stack', async () => {
  const mapped = await bundleFunction({
    name: 'sleeper',
    functionsDir: 'test/integration/activator/functions',
    outDir: join(dir, 'mapped'),
    kind: 'server',
    sourcemap: true,
  });
  const nodeArgs = ['--enable-source-maps'];
  await trainCodeCache(mapped.file, { nodeArgs });
  const stackFile = join(dir, 'stack.txt');
  const body = JSON.stringify({ stackTo: stackFile });
  expect(await startOnce(mapped.file, undefined, { nodeArgs, body })).toEqual({
    status: 204,
    use: 'accepted',
  });
  const stack = readFileSync(stackFile, 'utf8');
  expect(stack).toMatch(/^Error: stack probe\n {4}at stackHere \(\S*sleeper\/handler\.ts:\d+:\d+\)\n/);
  expect(stack).not.toContain('server.cjs:');
}, 60_000);

it("writes every bundle's cache with the image's trainer, train.cjs", async () => {
  const trainer = await bundleTrainer(join(dir, 'train.cjs'));
  rmSync(`${file}${CACHE_SUFFIX}`, { force: true });
  const child = spawn(process.execPath, [trainer.file, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect({ code, out }).toEqual({
    code: 0,
    out: expect.stringContaining(`train: ${file}${CACHE_SUFFIX}`) as string,
  });
  expect(await startOnce(file)).toEqual({ status: 204, use: 'accepted' });
}, 60_000);
