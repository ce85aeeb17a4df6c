/**
 * The worker-threads counter against a private redis-server: counts across instances, survives a
 * crashed instance (its entries expire), keeps long reconciles counted, logs the seed line above
 * 70%, and lets reconciles go on (saying so once) while Redis is down.
 */
import { Writable } from 'node:stream';
import { lazyRedis, type RedisHandle } from '../../../shared/redis/index.js';
import { createLogger, type Logger } from '../../../shared/log/index.js';
import {
  createWorkerCounter,
  workersKey,
  type IntervalTimers,
  type ReconcileStart,
  type WorkerCounter,
} from '../../../shared/monitoring/index.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

let server: TestRedis;
const handles: RedisHandle[] = [];
const counters: WorkerCounter[] = [];

beforeAll(async () => {
  server = await startRedis();
});

afterEach(() => {
  counters.splice(0).forEach((c) => c.stop());
});

afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  await server.stop();
});

function capture(name: string): { log: Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb): void {
      chunks.push(chunk.toString());
      cb();
    },
  });
  const log = createLogger({ name, destination });
  return {
    log,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Timers that run only when told. */
function manualTimers(): IntervalTimers & { tick(): void } {
  const fns = new Map<number, () => void>();
  let next = 1;
  return {
    setInterval: (fn) => {
      fns.set(next, fn);
      return next++;
    },
    clearInterval: (h) => void fns.delete(h as number),
    tick: () => fns.forEach((fn) => fn()),
  };
}

interface Instance {
  counter: WorkerCounter;
  lines: () => Record<string, unknown>[];
  timers: ReturnType<typeof manualTimers>;
}

/** One function instance with its own Redis client, sharing a clock with the others. */
function instance(name: string, clock: { now: number }, ttlMs = 10_000): Instance {
  const redis = lazyRedis({ url: server.url, connectionName: name, maxReconnects: 1 });
  handles.push(redis);
  const { log, lines } = capture('deployer-mock');
  const timers = manualTimers();
  const counter = createWorkerCounter({
    redis,
    instance: name,
    log,
    ttlMs,
    now: () => new Date(clock.now),
    timers,
  });
  counters.push(counter);
  return { counter, lines, timers };
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 50));

describe('worker threads across instances', () => {
  const start = (controller: string): ReconcileStart => ({
    controller,
    kind: 'DeployItem',
    instances: 2,
    concurrency: 2,
  });

  it('counts the reconciles of every instance and forgets finished ones', async () => {
    const clock = { now: Date.now() };
    const a = instance('pod-a', clock);
    const b = instance('pod-b', clock);
    const r1 = await a.counter.startReconcile(start('count-test'));
    const r2 = await b.counter.startReconcile(start('count-test'));
    const r3 = await a.counter.startReconcile(start('count-test'));
    expect([r1.count, r2.count, r3.count]).toEqual([1, 2, 3]);
    expect(await b.counter.count('count-test')).toBe(3);
    expect(await a.counter.count('another-controller')).toBe(0);
    await r2.done();
    await r2.done();
    expect(await a.counter.count('count-test')).toBe(2);
    await r1.done();
    await r3.done();
    expect(await a.counter.count('count-test')).toBe(0);
  });

  it('logs the seed line at the start of a reconcile above 70% of instances × concurrency', async () => {
    const clock = { now: Date.now() };
    const a = instance('pod-a', clock);
    const b = instance('pod-b', clock);
    const started = [];
    for (const who of [a, b, a, b]) started.push(await who.counter.startReconcile(start('log-test')));
    // max 4: 1 and 2 are not above 70%, 3 (75%) and 4 are.
    expect(a.lines()).toEqual([
      expect.objectContaining({
        level: 'info',
        logger: 'deployer-mock',
        msg: 'worker threads of controller log-test',
        reconciledResourceKind: 'DeployItem',
        usedWorkerThreads: 3,
      }),
    ]);
    expect(Object.keys(a.lines()[0])).toEqual([
      'level',
      'ts',
      'logger',
      'msg',
      'reconciledResourceKind',
      'usedWorkerThreads',
    ]);
    expect(b.lines().map((l) => l['usedWorkerThreads'])).toEqual([4]);
    await Promise.all(started.map((s) => s.done()));
  });

  it('stops counting a crashed instance once its entries expire', async () => {
    const clock = { now: Date.now() };
    const crashed = instance('pod-crashed', clock, 10_000);
    const alive = instance('pod-alive', clock, 10_000);
    await crashed.counter.startReconcile(start('crash-test'));
    await crashed.counter.startReconcile(start('crash-test'));
    crashed.counter.stop(); // the process is gone: no done(), no refresh
    const mine = await alive.counter.startReconcile(start('crash-test'));
    expect(mine.count).toBe(3);
    clock.now += 10_001;
    alive.timers.tick(); // the live instance refreshes its own entry
    await settle();
    expect(await alive.counter.count('crash-test')).toBe(1);
    const next = await alive.counter.startReconcile(start('crash-test'));
    expect(next.count).toBe(2);
    const redis = await handles[handles.length - 1].get();
    expect(await redis.zcard(workersKey('crash-test'))).toBe(2);
    expect(await redis.pttl(workersKey('crash-test'))).toBeGreaterThan(0);
    await mine.done();
    await next.done();
  });

  it('keeps a long reconcile counted while its instance refreshes it', async () => {
    const clock = { now: Date.now() };
    const a = instance('pod-long', clock, 9000);
    const long = await a.counter.startReconcile(start('long-test'));
    for (let i = 0; i < 5; i++) {
      clock.now += 3000;
      a.timers.tick();
      await settle();
    }
    expect(await a.counter.count('long-test')).toBe(1);
    await long.done();
    expect(await a.counter.count('long-test')).toBe(0);
  });
});

describe('worker threads while Redis is down', () => {
  const down = { controller: 'down-test', kind: 'DeployItem', instances: 1, concurrency: 10 };

  it('lets reconciles go on, says so once, and counts again when Redis is back', async () => {
    const clock = { now: Date.now() };
    const a = instance('pod-down', clock);
    const before = await a.counter.startReconcile(down);
    expect(before.count).toBe(1);
    await server.stop();
    const during = [];
    for (let i = 0; i < 3; i++) {
      during.push(await a.counter.startReconcile(down));
    }
    expect(during.map((d) => d.count)).toEqual([undefined, undefined, undefined]);
    await before.done();
    await Promise.all(during.map((d) => d.done()));
    expect(a.lines().map((l) => [l['level'], l['msg']])).toEqual([
      ['warn', 'Redis unavailable: worker threads are not counted, reconciles go on'],
    ]);
    await server.restart();
    // The client reconnects (or is rebuilt) within a few hundred ms; until then nothing is counted.
    const deadline = Date.now() + 5000;
    let after = await a.counter.startReconcile(down);
    while (after.count === undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = await a.counter.startReconcile(down);
    }
    expect(after.count).toBe(1);
    await after.done();
    expect(a.lines()).toHaveLength(1);
  });
});
