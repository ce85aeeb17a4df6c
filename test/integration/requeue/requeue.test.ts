import { lazyRedis, type Redis, type RedisHandle } from '../../../shared/redis/index.js';
import { cancel, due, knownTargets, pending, requeue, restore } from '../../../shared/requeue/index.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

let server: TestRedis;
let handle: RedisHandle;
let redis: Redis;
const t0 = new Date('2024-05-01T12:00:00.000Z');
const at = (s: number): Date => new Date(t0.getTime() + s * 1000);
const ref = { kind: 'DeployItem', namespace: 'ls', name: 'a' };

beforeAll(async () => {
  server = await startRedis();
  handle = lazyRedis({ url: server.url });
  redis = await handle.get();
});

afterAll(async () => {
  await handle.close();
  await server.stop();
});

beforeEach(async () => {
  await redis.flushdb();
});

describe('requeue against a private redis-server', () => {
  it('is idempotent per object and keeps the earlier time by default', async () => {
    expect(await requeue(redis, { target: 'fn-a', ...ref, at: at(60) })).toBe(true);
    expect(await requeue(redis, { target: 'fn-a', ...ref, at: at(120) })).toBe(false);
    expect(await pending(redis, 'fn-a')).toEqual([{ target: 'fn-a', ...ref, at: at(60) }]);
    expect(await requeue(redis, { target: 'fn-a', ...ref, at: at(30) })).toBe(true);
    expect((await pending(redis, 'fn-a'))[0].at).toEqual(at(30));
  });

  it('replaces or keeps the latest when told', async () => {
    await requeue(redis, { target: 'fn-a', ...ref, at: at(60) });
    await requeue(redis, { target: 'fn-a', ...ref, at: at(120) }, { mode: 'replace' });
    expect((await pending(redis, 'fn-a'))[0].at).toEqual(at(120));
    await requeue(redis, { target: 'fn-a', ...ref, at: at(90) }, { mode: 'latest' });
    expect((await pending(redis, 'fn-a'))[0].at).toEqual(at(120));
    await requeue(redis, { target: 'fn-a', ...ref, at: at(10) }, { mode: 'replace' });
    expect((await pending(redis, 'fn-a'))[0].at).toEqual(at(10));
  });

  it('keeps one queue per target and remembers the targets', async () => {
    await requeue(redis, { target: 'fn-b', ...ref, at: at(1) });
    await requeue(redis, { target: 'fn-a', ...ref, at: at(1) });
    expect(await knownTargets(redis)).toEqual(['fn-a', 'fn-b']);
    expect(await pending(redis, 'fn-a')).toHaveLength(1);
  });

  it('pops due items earliest first, up to the limit, and leaves the rest', async () => {
    for (let i = 0; i < 5; i++)
      await requeue(redis, { target: 'fn-a', ...ref, name: `o${i}`, at: at(10 - i) });
    await requeue(redis, { target: 'fn-a', ...ref, name: 'later', at: at(100) });
    const first = await due(redis, 'fn-a', at(50), 3);
    expect(first.map((d) => d.name)).toEqual(['o4', 'o3', 'o2']);
    expect(first[0]).toEqual({ target: 'fn-a', ...ref, name: 'o4', at: at(6) });
    expect((await due(redis, 'fn-a', at(50), 10)).map((d) => d.name)).toEqual(['o1', 'o0']);
    expect(await due(redis, 'fn-a', at(50), 10)).toEqual([]);
    expect((await pending(redis, 'fn-a')).map((d) => d.name)).toEqual(['later']);
  });

  it('hands each item over exactly once to concurrent tickers', async () => {
    const n = 300;
    const tx = redis.multi();
    for (let i = 0; i < n; i++) tx.zadd('landscape:requeue:queue:fn-a', i, `DeployItem/ls/o${i}`);
    await tx.exec();
    const tickers = [
      lazyRedis({ url: server.url }),
      lazyRedis({ url: server.url }),
      lazyRedis({ url: server.url }),
    ];
    try {
      const clients = await Promise.all(tickers.map((h) => h.get()));
      const popped: string[] = [];
      await Promise.all(
        clients.map(async (c) => {
          for (;;) {
            const batch = await due(c, 'fn-a', at(0), 7);
            if (batch.length === 0) return;
            popped.push(...batch.map((b) => b.name));
          }
        }),
      );
      expect(popped).toHaveLength(n);
      expect(new Set(popped).size).toBe(n);
    } finally {
      await Promise.all(tickers.map((h) => h.close()));
    }
  });

  it('cancels', async () => {
    await requeue(redis, { target: 'fn-a', ...ref, at: at(1) });
    expect(await cancel(redis, 'fn-a', ref)).toBe(true);
    expect(await cancel(redis, 'fn-a', ref)).toBe(false);
    expect(await due(redis, 'fn-a', at(100), 10)).toEqual([]);
  });

  it('restores handed-over items without postponing newer, earlier requeues', async () => {
    await requeue(redis, { target: 'fn-a', ...ref, at: at(5) });
    const items = await due(redis, 'fn-a', at(10), 10);
    await requeue(redis, { target: 'fn-a', ...ref, at: at(2) });
    await restore(redis, items);
    expect((await pending(redis, 'fn-a'))[0].at).toEqual(at(2));
  });
});
