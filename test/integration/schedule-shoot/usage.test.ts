/**
 * The shoot usage store (functions/schedule-shoot/usage.ts and its Lua scripts) against a private
 * redis-server, with a stub API client that lists given shoots: the rebuild on a miss (once, under
 * the lock, for concurrent callers), level-based syncs (idempotent, moves, migration, stale reads
 * ignored), reservations (capacity, unlimited seeds, busy while live, expiry, resolved by the
 * binding), release and forget, a rebuild that keeps reservations in flight, and each instance's
 * copy of the counts it read (countsOf) kept equal to the counts hash by the change log.
 */
import { Redis } from 'ioredis';
import type { Shoot } from '../../../shared/api/core.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import { createLogger } from '../../../shared/log/index.js';
import {
  BUILT_MARK,
  CHANGES_KEY,
  COUNTS_KEY,
  createUsageStore,
  RECORDS_KEY,
  REBUILD_LOCK_KEY,
  type UsageStore,
} from '../../../functions/schedule-shoot/usage.js';
import { CHANGE_LOG_LENGTH } from '../../../functions/schedule-shoot/usage-scripts.js';
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

/** The counts hash itself (no marker), for the seeds asked, 0 when absent. */
async function hashCounts(seeds: readonly string[]): Promise<Record<string, number>> {
  if (seeds.length === 0) return {};
  const values = await rc.hmget(COUNTS_KEY, ...seeds);
  return Object.fromEntries(seeds.map((seed, i) => [seed, Number(values[i] ?? 0)]));
}

it("countsOf: an instance's copy equals the counts hash after another instance's changes, whatever it asked before", async () => {
  const seeds = ['s1', 's2', 's3', 's4', 's5'];
  const [x, y] = [store('x'), store('y')];
  await x.counts(); // built
  let n = 0;
  let rand = 7;
  // mulberry32: every operation and both instances occur (asserted below)
  const next = (k: number): number => {
    rand = (rand + 0x6d2b79f5) | 0;
    let t = Math.imul(rand ^ (rand >>> 15), 1 | rand);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * k);
  };
  const seenOps = new Set<string>();
  for (let step = 0; step < 60; step++) {
    const who = next(2);
    const by = who === 0 ? x : y;
    const seed = seeds[next(seeds.length)];
    const op = next(4);
    seenOps.add(`${who}:${op}`);
    if (op === 0) await by.reserve(`p/r${n++}`, seed, 10);
    else if (op === 1)
      await by.sync(shoot(`b${next(8)}`, step + 10, seed)); // a move when b<i> was elsewhere
    else if (op === 2) await by.forget(`p/b${next(8)}`);
    // a subset, then every seed: a seed the copy has read is brought up to date from the log
    const asked = seeds.filter(() => next(2) === 0);
    expect(await x.countsOf(asked)).toEqual(await hashCounts(asked));
    if (step % 5 === 0) expect(await x.countsOf(seeds)).toEqual(await hashCounts(seeds));
  }
  expect(await x.countsOf(seeds)).toEqual(await hashCounts(seeds));
  expect(Object.values(await hashCounts(seeds)).some((c) => c > 0)).toBe(true);
  expect(seenOps.size).toBe(8);
});

it('countsOf: a shoot moved by another instance moves its count in the copy', async () => {
  const [x, y] = [store('x'), store('y')];
  await x.sync(shoot('a', 1, 's1'));
  expect(await x.countsOf(['s1', 's2'])).toEqual({ s1: 1, s2: 0 });
  await y.sync(shoot('a', 2, 's2'));
  expect(await x.countsOf(['s1', 's2'])).toEqual({ s1: 0, s2: 1 });
});

it('countsOf: concurrent reads of one instance while another writes end equal to the hash', async () => {
  const [x, y] = [store('x'), store('y')];
  await x.sync(shoot('a', 1, 's1'));
  const all = ['s0', 's1', 's2', 's3'];
  const reads: Promise<Record<string, number>>[] = [];
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 20; i++) {
    reads.push(x.countsOf(['s1', 's2', `s${i % 4}`]));
    writes.push(y.sync(shoot(`e${i}`, 20 + i, `s${i % 3}`)));
  }
  await Promise.all([...reads, ...writes]);
  expect(await x.countsOf(all)).toEqual(await hashCounts(all));
});

it('countsOf: a store rebuilt whose log grows past the copy before it reads again starts the copy over', async () => {
  const [x, y] = [store('x'), store('y')];
  await x.sync(shoot('a', 1, 's1'));
  expect(await x.countsOf(['s1'])).toEqual({ s1: 1 });
  listed = [shoot('a', 1, 's1'), shoot('z', 2, 's1')];
  await rc.del(COUNTS_KEY);
  for (let i = 0; i < 3; i++) await y.sync(shoot(`d${i}`, 10 + i, 's3'));
  expect(await x.countsOf(['s1', 's3'])).toEqual({ s1: 2, s3: 3 });
});

it('countsOf: Redis restored from an older snapshot (same epoch, the log rolled back and grown again) starts the copy over', async () => {
  const [x, y] = [store('x'), store('y')];
  await x.sync(shoot('a', 1, 's1'));
  expect(await x.countsOf(['s1', 's2'])).toEqual({ s1: 1, s2: 0 });
  const snap = {
    counts: await rc.hgetall(COUNTS_KEY),
    records: await rc.hgetall(RECORDS_KEY),
    log: await rc.lrange(CHANGES_KEY, 0, -1),
  };
  await y.sync(shoot('b', 2, 's1'));
  expect(await x.countsOf(['s1'])).toEqual({ s1: 2 });
  await rc.del(COUNTS_KEY, RECORDS_KEY, CHANGES_KEY);
  await rc.hset(COUNTS_KEY, snap.counts);
  await rc.hset(RECORDS_KEY, snap.records);
  await rc.rpush(CHANGES_KEY, ...snap.log);
  await y.sync(shoot('c', 3, 's2'));
  await y.sync(shoot('d', 4, 's2'));
  expect(await x.countsOf(['s1', 's2'])).toEqual({ s1: 1, s2: 2 });
});

it('a store built by an earlier version (no epoch) is rebuilt once before a copy is kept', async () => {
  const x = store('x');
  await x.sync(shoot('a', 1, 's1'));
  await rc.hdel(RECORDS_KEY, '.epoch', '.gen');
  await rc.del(CHANGES_KEY);
  listed = [shoot('a', 1, 's1'), shoot('b', 2, 's2')];
  expect(await x.countsOf(['s1', 's2'])).toEqual({ s1: 1, s2: 1 });
  expect(lists).toBe(2);
  expect(await rc.hexists(RECORDS_KEY, '.epoch')).toBe(1);
});

it('countsOf: a copy whose last entry was trimmed from the log starts over', async () => {
  const [x, y] = [store('x'), store('y')];
  await x.sync(shoot('a', 1, 's1'));
  expect(await x.countsOf(['s1'])).toEqual({ s1: 1 });
  await rc.hset(COUNTS_KEY, 's1', 9); // behind the back: only a copy started over reads it
  for (let i = 0; i < 3; i++) await y.sync(shoot(`t${i}`, 10 + i, 's2'));
  await rc.ltrim(CHANGES_KEY, -4, -1); // the copy's last entry and those after it are still there
  expect(await x.countsOf(['s1'])).toEqual({ s1: 1 });
  await y.sync(shoot('t9', 20, 's2'));
  await rc.ltrim(CHANGES_KEY, -1, -1); // now the copy's last entry is gone
  expect(await x.countsOf(['s1', 's2'])).toEqual({ s1: 9, s2: 4 });
});

it('countsOf: a seed the copy has read is not read again unless the log names it; a rebuild or a log that no longer reaches back starts the copy over', async () => {
  const x = store('x');
  await x.sync(shoot('a', 1, 's1'));
  expect(await x.countsOf(['s1', 's2'])).toEqual({ s1: 1, s2: 0 });
  // a change written behind the scripts' back (no log entry) is not seen: the copy answers
  await rc.hset(COUNTS_KEY, 's1', 5);
  expect(await x.countsOf(['s1'])).toEqual({ s1: 1 });
  // a logged change of s1 (another instance's sync) brings s1's count as the hash has it
  await store('y').sync(shoot('b', 2, 's1'));
  expect(await x.countsOf(['s1', 's2'])).toEqual({ s1: 6, s2: 0 });
  // the log no longer reaches back to the copy's gen: the copy starts over and reads every seed
  await rc.hset(COUNTS_KEY, 's2', 3); // behind the back again
  await store('y').sync(shoot('c', 3, 's3'));
  await rc.del(CHANGES_KEY);
  expect(await x.countsOf(['s1', 's2', 's3'])).toEqual({ s1: 6, s2: 3, s3: 1 });
  // a rebuild (new epoch) starts the copy over too
  listed = [shoot('a', 1, 's1'), shoot('z', 9, 's2')];
  await rc.del(COUNTS_KEY);
  expect(await x.countsOf(['s1', 's2', 's3'])).toEqual({ s1: 1, s2: 1, s3: 0 });
  expect(lists).toBe(2); // the first build and the rebuild
});

it('the change log keeps the last CHANGE_LOG_LENGTH changes', async () => {
  const x = store('x');
  await x.counts();
  const seeds = Array.from({ length: 30 }, (_, i) => `s${i}`);
  await rc.rpush(CHANGES_KEY, ...Array.from({ length: CHANGE_LOG_LENGTH }, () => 'old'));
  for (const [i, seed] of seeds.entries()) await x.sync(shoot(`a${i}`, 1, seed));
  expect(await rc.llen(CHANGES_KEY)).toBe(CHANGE_LOG_LENGTH);
  const tail = await rc.lrange(CHANGES_KEY, -30, -1);
  // `<server time>:<gen> <seed>`, gens counting up from the rebuild
  expect(tail.map((entry) => entry.split(' ')[1])).toEqual(seeds);
  expect(tail.map((entry) => Number(/^\d+\.\d+:(\d+) /.exec(entry)?.[1]))).toEqual(
    seeds.map((_, i) => i + 1),
  );
});
