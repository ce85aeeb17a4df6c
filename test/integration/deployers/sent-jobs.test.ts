/**
 * The responsibility check's memory of the open jobs it sent (functions/responsibility-check/sent.ts)
 * against a real redis-server: shared by the instances (the event of a deployer's finalizer write
 * lands on any of them), local first, granted when Redis is down (a job sent twice is what a
 * deployer copes with; a job never sent is not).
 */
import { Writable } from 'node:stream';
import { lazyRedis, type RedisHandle } from '../../../shared/redis/index.js';
import { createLogger } from '../../../shared/log/index.js';
import { sharedSentJobs, SENT_JOB_TTL_S } from '../../../functions/responsibility-check/sent.js';
import { freePort, startRedis, type TestRedis } from '../../support/redis.js';

let server: TestRedis;
const handles: RedisHandle[] = [];
const lines: string[] = [];
const log = createLogger({
  name: 'test',
  level: 'warn',
  destination: new Writable({
    write(chunk: Buffer, _enc, done): void {
      lines.push(chunk.toString('utf8'));
      done();
    },
  }),
});

function handle(): RedisHandle {
  const h = lazyRedis({ url: server.url, connectTimeoutMs: 500 });
  handles.push(h);
  return h;
}

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  await server?.stop();
});

it('one claim among instances; a redelivery of the claiming event may send again; unclaimed, another may claim; the key expires', async () => {
  const a = sharedSentJobs(handle(), 'responsibility-check', log);
  const b = sharedSentJobs(handle(), 'responsibility-check', log);
  expect(await a.claim('uid-1/job-1/1/mock', 'ev-1')).toBe(true);
  // the deployer's finalizer event, on another instance and on this one
  expect(await b.claim('uid-1/job-1/1/mock', 'ev-2')).toBe(false);
  expect(await a.claim('uid-1/job-1/1/mock', 'ev-3')).toBe(false);
  // ev-1 again (the broker retries it: its reply was not published), on any instance
  expect(await b.claim('uid-1/job-1/1/mock', 'ev-1')).toBe(true);
  expect(await a.claim('uid-1/job-1/1/mock', 'ev-1')).toBe(true);
  // another job, deployer or spec generation is another key
  expect(await b.claim('uid-1/job-1/2/mock', 'ev-4')).toBe(true);
  // only the holder's unclaim lets go (its send failed: the broker delivers ev-1 again)
  await b.unclaim('uid-1/job-1/1/mock', 'ev-2');
  const c = sharedSentJobs(handle(), 'responsibility-check', log);
  expect(await c.claim('uid-1/job-1/1/mock', 'ev-5')).toBe(false);
  await a.unclaim('uid-1/job-1/1/mock', 'ev-1');
  const d = sharedSentJobs(handle(), 'responsibility-check', log);
  expect(await d.claim('uid-1/job-1/1/mock', 'ev-6')).toBe(true);
  expect(await a.claim('uid-1/job-1/1/mock', 'ev-1')).toBe(false);
  const redis = await handle().get();
  const keys = await redis.keys('*responsibility-check-sent*');
  expect(keys.length).toBe(2);
  const ttl = await redis.ttl(keys[0]);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(SENT_JOB_TTL_S);
});

it('Redis down: anything new is granted, what this instance claimed for another event stays claimed, and the log says so once', async () => {
  const nowhere = lazyRedis({
    url: `redis://127.0.0.1:${await freePort()}`,
    connectTimeoutMs: 500,
    maxReconnects: 0,
  });
  handles.push(nowhere);
  const a = sharedSentJobs(nowhere, 'responsibility-check', log);
  expect(await a.claim('uid-2/job-1/1/mock', 'ev-1')).toBe(true);
  expect(await a.claim('uid-2/job-1/1/mock', 'ev-2')).toBe(false);
  expect(await a.claim('uid-3/job-1/1/mock', 'ev-3')).toBe(true);
  await a.unclaim('uid-3/job-1/1/mock', 'ev-3');
  expect(await a.claim('uid-3/job-1/1/mock', 'ev-4')).toBe(true);
  const warned = lines.filter((l) =>
    l.includes('Redis is unavailable: open jobs are remembered by this instance only'),
  );
  expect(warned).toHaveLength(1);
});

it('a failing Redis (OOM under noeviction) grants the claim as an unreachable one does, and says so once', async () => {
  const admin = await handle().get();
  const a = sharedSentJobs(handle(), 'responsibility-check', log);
  expect(await a.claim('uid-5/job-1/1/mock', 'ev-1')).toBe(true);
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
  await admin.config('SET', 'maxmemory', '1');
  try {
    expect(await a.claim('uid-6/job-1/1/mock', 'ev-2')).toBe(true);
    expect(await a.claim('uid-7/job-1/1/mock', 'ev-3')).toBe(true);
    expect(lines.filter((l) => l.includes('Redis is failing'))).toHaveLength(1);
  } finally {
    await admin.config('SET', 'maxmemory', '0');
  }
  // nothing of the failed claims reached Redis
  expect(await admin.exists('landscape:responsibility-check-sent:uid-6/job-1/1/mock')).toBe(0);
});
