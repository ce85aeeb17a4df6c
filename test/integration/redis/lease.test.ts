import {
  acquireLease,
  lazyRedis,
  releaseLease,
  renewLease,
  type RedisHandle,
} from '../../../shared/redis/index.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

let server: TestRedis;
let handle: RedisHandle;

beforeAll(async () => {
  server = await startRedis();
  handle = lazyRedis({ url: server.url, connectionName: 'lease-test' });
});

afterAll(async () => {
  await handle.close();
  await server.stop();
});

describe('Redis lease (SET NX PX + compare-and-delete) against a private redis-server', () => {
  it('is held by one holder at a time and released only by its holder', async () => {
    const redis = await handle.get();
    expect(await acquireLease(redis, 'lease:a', 'one', 60_000)).toBe(true);
    expect(await acquireLease(redis, 'lease:a', 'two', 60_000)).toBe(false);
    expect(await releaseLease(redis, 'lease:a', 'two')).toBe(false);
    expect(await redis.get('lease:a')).toBe('one');
    expect(await releaseLease(redis, 'lease:a', 'one')).toBe(true);
    expect(await acquireLease(redis, 'lease:a', 'two', 60_000)).toBe(true);
  });

  it('is renewed only by its holder', async () => {
    const redis = await handle.get();
    expect(await acquireLease(redis, 'lease:b', 'one', 1_000)).toBe(true);
    expect(await renewLease(redis, 'lease:b', 'two', 60_000)).toBe(false);
    expect(await redis.pttl('lease:b')).toBeLessThanOrEqual(1_000);
    expect(await renewLease(redis, 'lease:b', 'one', 60_000)).toBe(true);
    expect(await redis.pttl('lease:b')).toBeGreaterThan(1_000);
  });

  it('expires on its own', async () => {
    const redis = await handle.get();
    expect(await acquireLease(redis, 'lease:c', 'one', 50)).toBe(true);
    await new Promise((r) => setTimeout(r, 120));
    expect(await acquireLease(redis, 'lease:c', 'two', 60_000)).toBe(true);
  });

  it('swallows an error on release (the lease expires anyway)', async () => {
    const down = (): Promise<never> => Promise.reject(new Error('down'));
    const broken = { eval: down, evalsha: down } as unknown as Parameters<typeof releaseLease>[0];
    expect(await releaseLease(broken, 'lease:d', 'one')).toBe(false);
  });
});
