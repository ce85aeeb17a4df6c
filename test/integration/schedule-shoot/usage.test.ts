/**
 * The shoot usage store (functions/schedule-shoot/usage.ts and its Lua scripts) against a private
 * redis-server, with a stub API client that lists given shoots: the rebuild on a miss (once, under
 * the lock, for concurrent callers), level-based syncs (idempotent, moves, migration, stale reads
 * ignored), reservations (capacity, unlimited seeds, busy while live, expiry, resolved by the
 * binding), release and forget, and a rebuild that keeps reservations in flight.
 */
import { Redis } from 'ioredis';
import type { Shoot } from '../../../shared/api/core.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import { createLogger } from '../../../shared/log/index.js';
import {
  BUILT_MARK,
  COUNTS_KEY,
  createUsageStore,
  RECORDS_KEY,
  REBUILD_LOCK_KEY,
  type UsageStore,
} from '../../../functions/schedule-shoot/usage.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

const TTL = 1000;

let redis: TestRedis;
let rc: Redis;
let listed: Shoot[] = [];
let lists = 0;
let clock = 1_000_000;

const client = {
  list: async () => {
    lists++;
    await new Promise((r) => setTimeout(r, 50));
    return { items: listed, metadata: {} };
  },
} as unknown as KubeClient;

function shoot(name: string, rv: number, seedName?: string, statusSeed?: string): Shoot {
  return {
    metadata: { name, namespace: 'p', resourceVersion: String(rv) },
    spec: { region: 'r', provider: { type: 't' }, ...(seedName ? { seedName } : {}) },
    ...(statusSeed ? { status: { seedName: statusSeed } } : {}),
  };
}

function store(owner = 'a'): UsageStore {
  return createUsageStore(
    {
      client,
      redis: () => Promise.resolve(rc),
      now: () => clock,
      owner,
      log: createLogger({ name: 'test', level: 'error' }),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms / 10)),
    },
    { reservationTtlMs: TTL, rebuildTimeoutMs: 5000 },
  );
}

async function record(name: string): Promise<unknown> {
  const raw = await rc.hget(RECORDS_KEY, `p/${name}`);
  return raw === null ? undefined : JSON.parse(raw);
}

beforeAll(async () => {
  redis = await startRedis();
  rc = new Redis(redis.url);
});

afterAll(async () => {
  rc?.disconnect();
  await redis?.stop();
});

beforeEach(async () => {
  await rc.flushall();
  listed = [];
  lists = 0;
  clock = 1_000_000;
});

it('rebuilds from the list on a miss, once for concurrent callers; a migrating shoot counts twice', async () => {
  listed = [shoot('a', 1, 's1'), shoot('b', 2, 's1', 's2'), shoot('c', 3)];
  const [x, y] = [store('x'), store('y')];
  const [cx, cy] = await Promise.all([x.counts(), y.counts()]);
  expect(cx).toEqual({ s1: 2, s2: 1 });
  expect(cy).toEqual(cx);
  expect(lists).toBe(1);
  expect(await rc.exists(REBUILD_LOCK_KEY)).toBe(0);
  expect(await record('c')).toBeUndefined();
  expect(await record('b')).toEqual({ s: ['s1', 's2'], v: '2' });
  // A deleted records hash is a miss too.
  await rc.del(RECORDS_KEY);
  expect(await x.sync(shoot('a', 4, 's1'))).toBe('ok');
  expect(lists).toBe(2);
  expect(await x.counts()).toEqual({ s1: 2, s2: 1 });
});

it('applies syncs level-based: idempotent, moves, ends of migrations; older reads are ignored', async () => {
  const s = store();
  await s.sync(shoot('a', 5, 's1'));
  await s.sync(shoot('a', 5, 's1'));
  expect(await s.counts()).toEqual({ s1: 1 });
  await s.sync(shoot('a', 6, 's2', 's1'));
  expect(await s.counts()).toEqual({ s1: 1, s2: 1 });
  await s.sync(shoot('a', 7, 's2', 's2'));
  expect(await s.counts()).toEqual({ s2: 1 });
  expect(await s.sync(shoot('a', 6, 's1'))).toBe('stale');
  expect(await s.counts()).toEqual({ s2: 1 });
  await s.forget('p/a');
  expect(await s.counts()).toEqual({});
  expect(await rc.hget(COUNTS_KEY, BUILT_MARK)).not.toBeNull();
});

it('reserves only below allocatable; a seed without allocatable always has room', async () => {
  const s = store();
  await s.sync(shoot('old', 1, 's1'));
  expect(await s.reserve('p/a', 's1', 2)).toEqual({ result: 'ok', count: 2 });
  expect(await s.reserve('p/b', 's1', 2)).toEqual({ result: 'full', count: 2 });
  expect(await s.reserve('p/b', 's9', -1)).toEqual({ result: 'ok', count: 1 });
  expect(await s.counts()).toEqual({ s1: 2, s9: 1 });
});

it('a live reservation makes the shoot busy, survives unbound syncs, and ends with the binding', async () => {
  const s = store();
  await s.sync(shoot('a', 1));
  expect(await s.reserve('p/a', 's1', 5)).toMatchObject({ result: 'ok' });
  expect(await s.reserve('p/a', 's2', 5)).toEqual({ result: 'busy', seed: 's1' });
  await s.sync(shoot('a', 2)); // an unbound read (e.g. a label change) keeps the reservation
  expect(await s.counts()).toEqual({ s1: 1 });
  await s.sync(shoot('a', 3, 's1')); // the binding
  expect(await record('a')).toEqual({ s: ['s1'], v: '3' });
  expect(await s.counts()).toEqual({ s1: 1 });
});

it('a reservation bound elsewhere, released, or expired counts no more', async () => {
  const s = store();
  await s.reserve('p/a', 's1', 5);
  await s.sync(shoot('a', 2, 's2')); // someone else bound it to s2
  expect(await s.counts()).toEqual({ s2: 1 });

  await s.reserve('p/b', 's1', 5);
  expect(await s.release('p/b', 's3')).toBe(false);
  expect(await s.release('p/b', 's1')).toBe(true);
  expect(await s.counts()).toEqual({ s2: 1 });

  await s.reserve('p/c', 's1', 5);
  clock += TTL; // its binding never came
  expect(await s.reserve('p/c', 's3', 5)).toMatchObject({ result: 'ok' }); // not busy any more
  expect(await s.counts()).toEqual({ s2: 1, s3: 1 });
  clock += TTL;
  await s.sync(shoot('c', 9));
  expect(await s.counts()).toEqual({ s2: 1 });
});

it('a rebuild keeps the live reservations of shoots the list shows unbound', async () => {
  const s = store();
  await s.reserve('p/a', 's1', 5); // in flight
  await s.reserve('p/b', 's1', 5); // the list shows it bound already
  listed = [shoot('a', 1), shoot('b', 2, 's2')];
  await rc.del(COUNTS_KEY);
  expect(await s.counts()).toEqual({ s1: 1, s2: 1 });
  expect(await record('a')).toMatchObject({ r: 's1' });
  expect(await record('b')).toEqual({ s: ['s2'], v: '2' });
});
