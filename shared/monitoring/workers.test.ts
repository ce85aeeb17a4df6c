import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { RedisUnavailableError, type RedisHandle } from '../redis/index.js';
import { createLogger, type Logger } from '../log/index.js';
import { createWorkerCounter, type IntervalTimers } from './index.js';
import { ENTER_SCRIPT } from './workers.js';

function capture(): { log: Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb): void {
      chunks.push(chunk.toString());
      cb();
    },
  });
  const log = createLogger({ name: 'deployer-mock', destination: stream, now: () => 0 });
  const lines = (): Record<string, unknown>[] =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { log, lines };
}

/**
 * A Redis that records the entry script's keys and arguments (answering its count with `card`, or
 * failing with `fail`), the refresh's MULTI and the ZREM; the script itself runs against a real
 * redis-server in test/integration/monitoring/workers.test.ts.
 */
function fakeRedis(opts: { card?: number; fail?: Error } = {}): {
  handle: RedisHandle;
  commands: unknown[][];
} {
  const commands: unknown[][] = [];
  const chain = (): Record<string, unknown> => {
    const replies: [null, unknown][] = [];
    const c: Record<string, unknown> = {};
    for (const cmd of ['zadd', 'pexpire']) {
      c[cmd] = (...args: unknown[]) => {
        commands.push([cmd, ...args]);
        replies.push([null, 1]);
        return c;
      };
    }
    c['exec'] = () => Promise.resolve(replies);
    return c;
  };
  const client = {
    options: { host: '127.0.0.1', port: 1 },
    multi: chain,
    evalsha: (sha: string, keyCount: number, ...rest: unknown[]) => {
      expect(sha).toBe(createHash('sha1').update(ENTER_SCRIPT).digest('hex'));
      commands.push(['enter', ...rest.slice(0, keyCount), '|', ...rest.slice(keyCount)]);
      return opts.fail ? Promise.reject(opts.fail) : Promise.resolve(opts.card);
    },
    zrem: (...args: unknown[]) => {
      commands.push(['zrem', ...args]);
      return Promise.resolve(1);
    },
  } as unknown as Redis;
  return { handle: { get: () => Promise.resolve(client), close: () => Promise.resolve() }, commands };
}

const down: RedisHandle = {
  get: () => Promise.reject(new RedisUnavailableError('Redis at redis://x:1 is unavailable', 'redis://x:1')),
  close: () => Promise.resolve(),
};

/** Timers that run only when told. */
function manualTimers(): IntervalTimers & { fns: Map<number, () => void>; tick(): void } {
  const fns = new Map<number, () => void>();
  let next = 1;
  return {
    fns,
    setInterval: (fn) => {
      fns.set(next, fn);
      return next++;
    },
    clearInterval: (h) => void fns.delete(h as number),
    tick: () => fns.forEach((fn) => fn()),
  };
}

const START = { controller: 'deployer-mock', kind: 'DeployItem', instances: 2, concurrency: 5 };

describe('createWorkerCounter without Redis', () => {
  it.each([
    ['Redis down', down],
    ['no Redis configured', undefined],
  ])('%s: counts nothing, lets reconciles go on, says so once', async (_name, redis) => {
    const { log, lines } = capture();
    const counter = createWorkerCounter({ redis, instance: 'pod-a', log, timers: manualTimers() });
    const a = await counter.startReconcile(START);
    const b = await counter.startReconcile(START);
    expect(a.count).toBeUndefined();
    expect(b.count).toBeUndefined();
    await a.done();
    await b.done();
    expect(await counter.count('deployer-mock')).toBeUndefined();
    const out = lines();
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      level: 'warn',
      logger: 'deployer-mock',
      msg: 'Redis unavailable: worker threads are not counted, reconciles go on',
    });
  });

  it('logs other Redis errors every time and still lets the reconcile go on', async () => {
    const { log, lines } = capture();
    const { handle } = fakeRedis({ fail: new Error('WRONGTYPE Operation against a key') });
    const counter = createWorkerCounter({ redis: handle, instance: 'pod-a', log, timers: manualTimers() });
    expect((await counter.startReconcile(START)).count).toBeUndefined();
    expect((await counter.startReconcile(START)).count).toBeUndefined();
    expect(lines().map((l) => [l['level'], l['msg'], l['error']])).toEqual([
      ['error', 'worker threads: count failed', 'WRONGTYPE Operation against a key'],
      ['error', 'worker threads: count failed', 'WRONGTYPE Operation against a key'],
    ]);
  });
});

describe('createWorkerCounter with a recording Redis', () => {
  it('adds an entry scored by its expiry, drops expired ones, and logs above 70%', async () => {
    const { log, lines } = capture();
    const { handle, commands } = fakeRedis({ card: 8 });
    const timers = manualTimers();
    const counter = createWorkerCounter({
      redis: handle,
      instance: 'pod-a',
      log,
      ttlMs: 30_000,
      now: () => new Date(1_000_000),
      rand: () => 'r1',
      timers,
    });
    const inFlight = await counter.startReconcile(START);
    expect(inFlight.count).toBe(8);
    const key = 'landscape:monitoring:workers:deployer-mock';
    // expired entries before now out, this one scored by its expiry, its key kept twice the TTL
    expect(commands).toEqual([['enter', key, '|', 1_000_000, 1_030_000, 'pod-a/r1', 60_000]]);
    expect(lines()).toEqual([
      {
        level: 'info',
        ts: '1970-01-01T00:00:00.000Z',
        logger: 'deployer-mock',
        msg: 'worker threads of controller deployer-mock',
        reconciledResourceKind: 'DeployItem',
        usedWorkerThreads: 8,
      },
    ]);
    expect(timers.fns.size).toBe(1);
    await inFlight.done();
    await inFlight.done();
    expect(commands.slice(1)).toEqual([['zrem', key, 'pod-a/r1']]);
    expect(timers.fns.size).toBe(0);
  });

  it('does not log at or below 70%', async () => {
    const { log, lines } = capture();
    const counter = createWorkerCounter({
      redis: fakeRedis({ card: 7 }).handle,
      instance: 'pod-a',
      log,
      timers: manualTimers(),
    });
    const inFlight = await counter.startReconcile(START);
    expect(inFlight.count).toBe(7);
    expect(lines()).toEqual([]);
    await inFlight.done();
  });

  it('refreshes the expiry of what is in flight with one timer per instance', async () => {
    const { log } = capture();
    const { handle, commands } = fakeRedis({ card: 1 });
    const timers = manualTimers();
    let now = 0;
    let id = 0;
    const counter = createWorkerCounter({
      redis: handle,
      instance: 'pod-a',
      log,
      ttlMs: 9000,
      now: () => new Date(now),
      rand: () => `r${++id}`,
      timers,
    });
    const a = await counter.startReconcile(START);
    const b = await counter.startReconcile({ ...START, controller: 'other' });
    expect(timers.fns.size).toBe(1);
    commands.length = 0;
    now = 3000;
    timers.tick();
    await new Promise((r) => setImmediate(r));
    expect(commands).toEqual([
      ['zadd', 'landscape:monitoring:workers:deployer-mock', 'XX', 12_000, 'pod-a/r1'],
      ['pexpire', 'landscape:monitoring:workers:deployer-mock', 18_000],
      ['zadd', 'landscape:monitoring:workers:other', 'XX', 12_000, 'pod-a/r2'],
      ['pexpire', 'landscape:monitoring:workers:other', 18_000],
    ]);
    await a.done();
    expect(timers.fns.size).toBe(1);
    await b.done();
    expect(timers.fns.size).toBe(0);
  });
});
