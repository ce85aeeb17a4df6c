import type { Redis, RedisHandle } from '../redis/index.js';
import { RedisUnavailableError } from '../redis/index.js';
import type { Logger } from '../log/index.js';
import type { IntervalTimers } from './liveness.js';
import { heartbeatLiveness, podLiveness } from './liveness.js';

function apiError(code: number, reason: string): Error {
  return Object.assign(new Error(reason), { code, body: JSON.stringify({ kind: 'Status', code, reason }) });
}

describe('podLiveness', () => {
  const calls: string[] = [];
  const pods: Record<string, unknown> = {
    running: { metadata: { name: 'running' } },
    terminating: { metadata: { name: 'terminating', deletionTimestamp: '2024-01-01T00:00:00Z' } },
  };
  const client = {
    getMetadata: (gvk: { kind: string }, ns: string | undefined, name: string): Promise<any> => {
      calls.push(`${gvk.kind} ${ns}/${name}`);
      if (name === 'boom') return Promise.reject(apiError(403, 'Forbidden'));
      return name in pods ? Promise.resolve(pods[name]) : Promise.reject(apiError(404, 'NotFound'));
    },
  };
  const live = podLiveness(client, 'ls-system');

  it.each([
    ['a running Pod is alive', 'running', true],
    ['a missing Pod is dead', 'gone', false],
    ['a Pod being deleted is dead', 'terminating', false],
  ])('%s', async (_name, owner, want) => {
    expect(await live.isAlive(owner)).toBe(want);
  });

  it('looks in its own namespace, every time (no cache)', async () => {
    calls.length = 0;
    await live.isAlive('running');
    await live.isAlive('running');
    expect(calls).toEqual(['Pod ls-system/running', 'Pod ls-system/running']);
  });

  it('"" is dead without a read', async () => {
    calls.length = 0;
    expect(await live.isAlive('')).toBe(false);
    expect(calls).toEqual([]);
  });

  it('other API errors are thrown (transient: the handler retries)', async () => {
    await expect(live.isAlive('boom')).rejects.toMatchObject({ code: 403 });
  });
});

interface FakeRedis {
  handle: RedisHandle;
  keys: Map<string, { value: string; px: number }>;
  down: boolean;
}

function fakeRedis(): FakeRedis {
  const state: FakeRedis = { keys: new Map(), down: false, handle: undefined as unknown as RedisHandle };
  const client = {
    options: { host: '127.0.0.1', port: 1 },
    set: (key: string, value: string, _px: 'PX', px: number): Promise<string> => {
      state.keys.set(key, { value, px });
      return Promise.resolve('OK');
    },
    exists: (key: string): Promise<number> => Promise.resolve(state.keys.has(key) ? 1 : 0),
  };
  state.handle = {
    get: () =>
      state.down
        ? Promise.reject(
            new RedisUnavailableError('Redis at redis://127.0.0.1:1 is unavailable', 'redis://127.0.0.1:1'),
          )
        : Promise.resolve(client as unknown as Redis),
    close: () => Promise.resolve(),
  };
  return state;
}

function fakeTimers(): IntervalTimers & { running: Map<number, () => void>; tick(): void } {
  let next = 0;
  const running = new Map<number, () => void>();
  return {
    running,
    setInterval: (fn) => {
      running.set(++next, fn);
      return next;
    },
    clearInterval: (h) => {
      running.delete(h as number);
    },
    tick: () => running.forEach((fn) => fn()),
  };
}

function recordingLog(): Logger & { lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const log = {
    name: 'test',
    level: 'debug' as const,
    lines,
    debug: (msg: string) => lines.push({ level: 'debug', msg }),
    info: (msg: string) => lines.push({ level: 'info', msg }),
    warn: (msg: string) => lines.push({ level: 'warn', msg }),
    error: (msg: string) => lines.push({ level: 'error', msg }),
    isLevelEnabled: () => true,
    child: () => log,
  };
  return log;
}

describe('heartbeatLiveness (fake Redis)', () => {
  it('beat writes the per-instance key with the TTL; isAlive = the key exists', async () => {
    const r = fakeRedis();
    const hb = heartbeatLiveness(r.handle, { ttlMs: 9000, now: () => new Date('2024-01-01T00:00:00Z') });
    expect(await hb.isAlive('inst-1')).toBe(false);
    await hb.beat('inst-1');
    expect(r.keys.get('landscape:lock-heartbeat:inst-1')).toEqual({
      value: '2024-01-01T00:00:00.000Z',
      px: 9000,
    });
    expect(hb.keyOf('inst-1')).toBe('landscape:lock-heartbeat:inst-1');
    expect(await hb.isAlive('inst-1')).toBe(true);
    expect(await hb.isAlive('inst-2')).toBe(false);
    expect(await hb.isAlive('')).toBe(false);
  });

  it('hold beats at once, keeps beating while held (one timer per owner) and stops after the last release', async () => {
    const r = fakeRedis();
    const timers = fakeTimers();
    const hb = heartbeatLiveness(r.handle, { ttlMs: 3000, timers });
    const a = await hb.hold('inst-1');
    expect(r.keys.has('landscape:lock-heartbeat:inst-1')).toBe(true);
    const b = await hb.hold('inst-1');
    expect(timers.running.size).toBe(1);
    r.keys.clear();
    timers.tick();
    await new Promise((res) => setImmediate(res));
    expect(r.keys.has('landscape:lock-heartbeat:inst-1')).toBe(true);
    a.release();
    a.release();
    expect(timers.running.size).toBe(1);
    b.release();
    expect(timers.running.size).toBe(0);
  });

  it('Redis down: owners count as alive, hold fails, and it is logged once per instance', async () => {
    const r = fakeRedis();
    const log = recordingLog();
    const hb = heartbeatLiveness(r.handle, { log });
    r.down = true;
    expect(await hb.isAlive('inst-1')).toBe(true);
    expect(await hb.isAlive('inst-2')).toBe(true);
    await expect(hb.hold('me')).rejects.toBeInstanceOf(RedisUnavailableError);
    expect(log.lines).toEqual([
      { level: 'warn', msg: 'Redis unavailable: lock owners count as alive, no lock is taken over' },
    ]);
  });

  it('a failing background beat is logged (once when Redis is down), not thrown', async () => {
    const r = fakeRedis();
    const log = recordingLog();
    const timers = fakeTimers();
    const hb = heartbeatLiveness(r.handle, { log, timers });
    await hb.hold('me');
    r.down = true;
    timers.tick();
    timers.tick();
    await new Promise((res) => setImmediate(res));
    expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    hb.stop();
    expect(timers.running.size).toBe(0);
  });
});
