import * as ff from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import request from 'supertest';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lazyRedis, type Redis, type RedisHandle } from '../../../shared/redis/index.js';
import { createLogger } from '../../../shared/log/index.js';
import { pending, requeue } from '../../../shared/requeue/index.js';
import { instance, tickHandler } from '../../../functions/requeue-tick/handler.js';
import { createTickInstance } from '../../../functions/requeue-tick/instance.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { startSink, type TestSink } from '../../support/sink.js';

let server: TestRedis;
let sink: TestSink;
let handle: RedisHandle;
let redis: Redis;
let dir: string;
const saved = { ...process.env };

const ping = (name: string): request.Test =>
  request(getTestServer(name))
    .post('/')
    .set('ce-specversion', '1.0')
    .set('ce-type', 'dev.knative.sources.ping')
    .set('ce-source', '/apis/v1/namespaces/landscape/pingsources/requeue-tick')
    .set('ce-id', 'p-1')
    .set('content-type', 'application/json')
    .send('{}');

beforeAll(async () => {
  server = await startRedis();
  sink = await startSink();
  handle = lazyRedis({ url: server.url });
  redis = await handle.get();
  dir = mkdtempSync(join(tmpdir(), 'requeue-tick-'));
  const file = join(dir, 'config.yaml');
  writeFileSync(file, 'targets: [deployer-manifest]\nbatchSize: 2\n');
  Object.assign(process.env, {
    CONFIG_FILE: file,
    REDIS_URL: server.url,
    K_SINK: sink.url,
    LOG_LEVEL: 'error',
  });
});

afterAll(async () => {
  await instance.close();
  await handle.close();
  await sink.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  process.env = saved;
});

beforeEach(async () => {
  await redis.flushdb();
  sink.requests.length = 0;
  sink.status = 202;
});

const past = (s: number): Date => new Date(Date.now() - s * 1000);
const future = (s: number): Date => new Date(Date.now() + s * 1000);

describe('requeue-tick through the Functions Framework', () => {
  it('emits one binary-mode dev.landscape.requeue per due item and keeps the rest', async () => {
    await requeue(redis, {
      target: 'deployer-mock',
      kind: 'DeployItem',
      namespace: 'ls',
      name: 'a',
      at: past(5),
    });
    await requeue(redis, {
      target: 'deployer-mock',
      kind: 'DeployItem',
      namespace: 'ls',
      name: 'b',
      at: past(1),
    });
    await requeue(redis, {
      target: 'deployer-mock',
      kind: 'DeployItem',
      namespace: 'ls',
      name: 'c',
      at: past(1),
    });
    await requeue(redis, {
      target: 'deployer-mock',
      kind: 'DeployItem',
      namespace: 'ls',
      name: 'later',
      at: future(60),
    });
    await requeue(redis, { target: 'seed-autoscaler', kind: 'Seed', namespace: '', name: 's1', at: past(2) });

    await ping('requeue-tick').expect(204);

    expect(sink.requests).toHaveLength(4);
    const got = sink.requests.map((r) => [
      r.headers['ce-target'],
      r.headers['ce-kind'],
      r.headers['ce-namespace'],
      r.headers['ce-name'],
    ]);
    expect(got).toEqual(
      expect.arrayContaining([
        ['deployer-mock', 'DeployItem', 'ls', 'a'],
        ['deployer-mock', 'DeployItem', 'ls', 'b'],
        ['deployer-mock', 'DeployItem', 'ls', 'c'],
        ['seed-autoscaler', 'Seed', undefined, 's1'],
      ]),
    );
    for (const r of sink.requests) {
      expect(r.method).toBe('POST');
      expect(r.headers['ce-type']).toBe('dev.landscape.requeue');
      expect(r.headers['ce-specversion']).toBe('1.0');
      expect(r.headers['ce-source']).toBe('/apis/landscape/functions/requeue-tick');
      expect(r.headers['content-type']).toMatch(/^application\/json/);
    }
    expect((await pending(redis, 'deployer-mock')).map((p) => p.name)).toEqual(['later']);

    sink.requests.length = 0;
    await ping('requeue-tick').expect(204);
    expect(sink.requests).toHaveLength(0);
  });

  it('answers 500 and puts items back when the sink refuses them', async () => {
    await requeue(redis, {
      target: 'deployer-mock',
      kind: 'DeployItem',
      namespace: 'ls',
      name: 'a',
      at: past(5),
    });
    sink.status = 503;
    await ping('requeue-tick').expect(500);
    expect((await pending(redis, 'deployer-mock')).map((p) => p.name)).toEqual(['a']);
    sink.status = 202;
    sink.requests.length = 0;
    await ping('requeue-tick').expect(204);
    expect(sink.requests.map((r) => r.headers['ce-name'])).toEqual(['a']);
    expect(await pending(redis, 'deployer-mock')).toEqual([]);
  });
});

describe('K_SINK_TOKEN', () => {
  it('is sent as a bearer token to the sink, and not logged even when the sink refuses', async () => {
    const token = 'sink-token-7c1e';
    const lines: string[] = [];
    const log = createLogger({
      name: 'requeue-tick',
      level: 'debug',
      destination: { write: (l: string) => lines.push(l) },
    });
    const ticker = createTickInstance({
      env: () => ({ REDIS_URL: server.url, K_SINK: sink.url, K_SINK_TOKEN: token }),
      log,
    });
    ff.cloudEvent('requeue-tick-token', tickHandler(ticker));
    const item = { target: 'deployer-mock', kind: 'DeployItem', namespace: 'ls', name: 'a', at: past(5) };
    await requeue(redis, item);
    sink.status = 401;
    await ping('requeue-tick-token').expect(500);
    sink.status = 202;
    await ping('requeue-tick-token').expect(204);
    expect(sink.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${token}`, `Bearer ${token}`]);
    expect(lines.some((l) => l.includes('requeue event not delivered'))).toBe(true);
    for (const l of lines) expect(l).not.toContain(token);
    await ticker.close();
  });

  it('is not sent when unset (Knative: the cluster-local broker needs none)', async () => {
    await requeue(redis, {
      target: 'deployer-mock',
      kind: 'DeployItem',
      namespace: 'ls',
      name: 'b',
      at: past(5),
    });
    await ping('requeue-tick').expect(204);
    expect(sink.requests).toHaveLength(1);
    expect(sink.requests[0].headers.authorization).toBeUndefined();
  });
});

describe('a bad config', () => {
  it('is logged once with every problem, every tick is answered 500, and a fixed file is read again', async () => {
    const lines: string[] = [];
    const log = createLogger({ name: 'requeue-tick', destination: { write: (l: string) => lines.push(l) } });
    let text = 'batchSize: -1\n';
    let nowMs = 0;
    const bad = createTickInstance({
      env: () => ({ CONFIG_FILE: '/config.yaml', REDIS_URL: server.url, K_SINK: sink.url }),
      readFile: () => Promise.resolve(text),
      nowMs: () => nowMs,
      log,
    });
    ff.cloudEvent('requeue-tick-bad-config', tickHandler(bad));
    await requeue(redis, {
      target: 'deployer-mock',
      kind: 'DeployItem',
      namespace: 'ls',
      name: 'a',
      at: past(5),
    });
    await ping('requeue-tick-bad-config').expect(500);
    await ping('requeue-tick-bad-config').expect(500);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]);
    expect(line.level).toBe('error');
    expect(line.problems).toHaveLength(1);
    expect(sink.requests).toHaveLength(0);
    expect(await pending(redis, 'deployer-mock')).toHaveLength(1);
    // fixed in place (a ConfigMap the kubelet updates): read again once the retry interval passed
    text = 'batchSize: 2\n';
    await ping('requeue-tick-bad-config').expect(500);
    nowMs += 5_000;
    await ping('requeue-tick-bad-config').expect(204);
    expect(sink.requests).toHaveLength(1);
    expect(await pending(redis, 'deployer-mock')).toHaveLength(0);
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain(
      'config fixed; events are handled again',
    );
    await bad.close();
  });
});
