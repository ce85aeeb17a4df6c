import {
  getJson,
  keyspace,
  lazyRedis,
  RedisUnavailableError,
  SecretValueError,
  setJson,
  touch,
  ttlOf,
  del,
  CacheDecodeError,
  type RedisHandle,
} from '../../../shared/redis/index.js';
import { freePort, startRedis, type TestRedis } from '../../support/redis.js';
import { scaled } from '../../support/timing.js';

let server: TestRedis;
let handle: RedisHandle;
const ks = keyspace('cache-test');

beforeAll(async () => {
  server = await startRedis();
  handle = lazyRedis({ url: server.url, connectionName: 'cache-test' });
});

afterAll(async () => {
  await handle.close();
  await server.stop();
});

describe('JSON with TTL against a private redis-server', () => {
  it('never uses the default port', () => {
    expect(server.port).not.toBe(6379);
  });

  it('round-trips JSON with a TTL', async () => {
    const redis = await handle.get();
    const key = ks.key('state', 'a');
    expect(await setJson(redis, key, { n: 1, at: 'x' }, { ttlMs: 60_000 })).toBe(true);
    expect(await getJson(redis, key)).toEqual({ n: 1, at: 'x' });
    const ttl = await ttlOf(redis, key);
    expect(typeof ttl === 'number' && ttl > 59_000 && ttl <= 60_000).toBe(true);
    expect(await touch(redis, key, 5000)).toBe(true);
    expect(await ttlOf(redis, key)).toBeLessThanOrEqual(5000);
    expect(await del(redis, key)).toBe(1);
    expect(await getJson(redis, key)).toBeUndefined();
    expect(await ttlOf(redis, key)).toBeUndefined();
  });

  it('keeps values without TTL when told, and honours onlyIfAbsent', async () => {
    const redis = await handle.get();
    const key = ks.key('state', 'b');
    expect(await setJson(redis, key, 1, { ttlMs: null, onlyIfAbsent: true })).toBe(true);
    expect(await setJson(redis, key, 2, { ttlMs: null, onlyIfAbsent: true })).toBe(false);
    expect(await getJson(redis, key)).toBe(1);
    expect(await ttlOf(redis, key)).toBe('none');
  });

  it('expires values', async () => {
    const redis = await handle.get();
    const key = ks.key('short');
    await setJson(redis, key, 'x', { ttlMs: 50 });
    await new Promise((r) => setTimeout(r, 120));
    expect(await getJson(redis, key)).toBeUndefined();
  });

  it('refuses secrets and writes nothing', async () => {
    const redis = await handle.get();
    const key = ks.key('secret');
    await expect(setJson(redis, key, { token: 'abc' }, { ttlMs: 1000 })).rejects.toBeInstanceOf(
      SecretValueError,
    );
    expect(await redis.exists(key)).toBe(0);
  });

  it('checks the shape on read', async () => {
    const redis = await handle.get();
    const key = ks.key('shape');
    await redis.set(key, 'not json');
    await expect(getJson(redis, key)).rejects.toBeInstanceOf(CacheDecodeError);
    await setJson(redis, key, { n: 'x' }, { ttlMs: 1000 });
    const parse = (v: unknown): number => {
      const n = (v as { n: unknown }).n;
      if (typeof n !== 'number') throw new Error('n is not a number');
      return n;
    };
    await expect(getJson(redis, key, parse)).rejects.toBeInstanceOf(CacheDecodeError);
  });

  it('reuses one client per handle', async () => {
    expect(await handle.get()).toBe(await handle.get());
  });
});

describe('Redis down', () => {
  // "fast": it gives up after its connect timeout instead of retrying; the test's own limit
  // (scaled for a loaded machine) is the bound, not a wall-clock assertion
  it(
    'fails fast with a typed error when nothing listens',
    async () => {
      const port = await freePort();
      const h = lazyRedis({ url: `redis://user:hunter2@127.0.0.1:${port}`, connectTimeoutMs: 500 });
      const err: unknown = await h.get().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RedisUnavailableError);
      expect((err as Error).message).not.toContain('hunter2');
      await h.close();
    },
    scaled(5_000),
  );

  it('fails commands fast while the server is down and reconnects after a restart', async () => {
    const own = await startRedis();
    const h = lazyRedis({ url: own.url, maxReconnects: 1 });
    try {
      const redis = await h.get();
      await setJson(redis, ks.key('r'), 1, { ttlMs: 10_000 });
      await own.stop();
      await expect(getJson(redis, ks.key('r'))).rejects.toBeInstanceOf(RedisUnavailableError);
      await own.restart();
      let again = await h.get().catch(() => undefined);
      for (let i = 0; i < 40 && again?.status !== 'ready'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        again = await h.get().catch(() => undefined);
      }
      expect(again?.status).toBe('ready');
      expect(await getJson(again!, ks.key('r'))).toBeUndefined();
    } finally {
      await h.close();
      await own.stop();
    }
  });
});
