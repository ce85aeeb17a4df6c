/**
 * Heartbeat liveness (replicas that are not Pods: Cloud Functions) against a private
 * redis-server and the embedded API server: a held lock keeps its owner alive past the TTL, a
 * crashed owner is taken over once its key expires, an owner that never beat at once; Redis down
 * → owners count as alive (nothing taken over), logged once per instance.
 */
import { startApiServer } from '@landscape/kube-apiserver';
import type { ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import type { SyncObject } from '../../../shared/api/landscaper.js';
import { lazyRedis } from '../../../shared/redis/index.js';
import type { RedisHandle } from '../../../shared/redis/index.js';
import { createKubeClient, kubeConfigFromYaml } from '../../../shared/kube/index.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import type { HeartbeatLiveness, Locker, LockTarget } from '../../../shared/lock/index.js';
import { createLocker, heartbeatLiveness, lockOwner, newSyncObject } from '../../../shared/lock/index.js';
import { startRedis } from '../../support/redis.js';
import type { TestRedis } from '../../support/redis.js';
import { configMapTarget, ensureNamespace, readSyncObject, recordingLogger } from './support.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'lock-heartbeat';
const TTL_MS = 600;

let srv: ApiServer;
let client: KubeClient;
let redis: TestRedis;
const handles: RedisHandle[] = [];
const livenesses: HeartbeatLiveness[] = [];

beforeAll(async () => {
  [srv, redis] = await Promise.all([
    startApiServer({ crdFiles: crdFiles(), clusters: ['main'] }),
    startRedis(),
  ]);
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()), {
    fieldManager: 'lock-test',
  });
  await ensureNamespace(client, NS);
});

afterAll(async () => {
  for (const l of livenesses) l.stop();
  await Promise.all(handles.map((h) => h.close()));
  await Promise.all([srv?.stop(), redis?.stop()]);
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Instance {
  locker: Locker;
  liveness: HeartbeatLiveness;
  lines: Record<string, unknown>[];
}

/** One function instance: its own Redis client, random owner id and heartbeat. */
function instance(service: string): Instance {
  const handle = lazyRedis({
    url: redis.url,
    connectTimeoutMs: 500,
    commandTimeoutMs: 500,
    maxReconnects: 0,
  });
  handles.push(handle);
  const { log, lines } = recordingLogger(`lock.${service}`);
  const liveness = heartbeatLiveness(handle, { ttlMs: TTL_MS, beatEveryMs: 150, log });
  livenesses.push(liveness);
  const who = lockOwner({ K_SERVICE: service }, () => Math.random().toString(36).slice(2, 10));
  expect(who.liveness).toBe('heartbeat');
  return {
    locker: createLocker({ client, prefix: 'mock', owner: who.owner, liveness, log }),
    liveness,
    lines,
  };
}

/** A SyncObject left behind by an instance that never beat (or whose key is gone). */
async function orphanLock(target: LockTarget, owner: string): Promise<void> {
  await client.create<SyncObject>(
    GVK.SyncObject,
    newSyncObject({ name: `mock-${target.uid}`, prefix: 'mock', target, owner, now: new Date() }),
  );
}

describe('heartbeat liveness with a running Redis', () => {
  it('a held lock keeps its owner alive past the TTL; after release the other instance gets it', async () => {
    const a = instance('fn-a');
    const b = instance('fn-b');
    const target = await configMapTarget(client, NS, 'held');
    expect(await a.locker.acquire(target)).toEqual({ locked: true, reason: 'created' });
    expect(await a.liveness.isAlive(a.locker.owner)).toBe(true);
    await sleep(TTL_MS * 2.5);
    expect(await b.locker.acquire(target)).toEqual({ locked: false, reason: `locked by ${a.locker.owner}` });
    await a.locker.release(target);
    expect(await b.locker.acquire(target)).toEqual({ locked: true, reason: 'taken over: unlocked' });
    await b.locker.release(target);
  });

  it('an owner that never beat is taken over on the next try', async () => {
    const b = instance('fn-b');
    const target = await configMapTarget(client, NS, 'never-beat');
    await orphanLock(target, 'fn-x-crashed');
    expect(await b.locker.acquire(target)).toEqual({
      locked: true,
      reason: 'taken over: owner fn-x-crashed is gone',
    });
    expect((await readSyncObject(client, NS, `mock-${target.uid}`)).spec.podName).toBe(b.locker.owner);
  });

  it('a crashed owner (beats stopped) is taken over once its key expired', async () => {
    const a = instance('fn-a');
    const b = instance('fn-b');
    const target = await configMapTarget(client, NS, 'crashed');
    expect((await a.locker.acquire(target)).locked).toBe(true);
    a.liveness.stop(); // the instance dies without unlocking
    expect((await b.locker.acquire(target)).locked).toBe(false);
    await sleep(TTL_MS + 200);
    expect(await b.liveness.isAlive(a.locker.owner)).toBe(false);
    expect(await b.locker.acquire(target)).toEqual({
      locked: true,
      reason: `taken over: owner ${a.locker.owner} is gone`,
    });
  });

  it('the heartbeat key has the TTL', async () => {
    const a = instance('fn-a');
    await a.liveness.beat('ttl-probe');
    const r = await handles[handles.length - 1].get();
    const pttl = await r.pttl(a.liveness.keyOf('ttl-probe'));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(TTL_MS);
  });
});

describe('Redis down', () => {
  it('owners count as alive (nothing taken over), no new lock is taken, one log line per instance; back to normal after a restart', async () => {
    const b = instance('fn-b');
    const orphaned = await configMapTarget(client, NS, 'redis-down-orphan');
    const fresh = await configMapTarget(client, NS, 'redis-down-fresh');
    await orphanLock(orphaned, 'fn-x-crashed');
    await b.liveness.isAlive('warm-up'); // connect while Redis is up

    await redis.stop();
    expect(await b.liveness.isAlive('fn-x-crashed')).toBe(true);
    for (let i = 0; i < 3; i++) {
      expect(await b.locker.acquire(orphaned)).toEqual({ locked: false, reason: 'locked by fn-x-crashed' });
    }
    const freshTry = await b.locker.acquire(fresh);
    expect(freshTry.locked).toBe(false);
    expect(freshTry.reason).toMatch(/^cannot announce liveness: RedisUnavailableError/);
    const warnings = b.lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      logger: 'lock.fn-b',
      msg: 'Redis unavailable: lock owners count as alive, no lock is taken over',
    });
    expect((await readSyncObject(client, NS, `mock-${orphaned.uid}`)).spec.podName).toBe('fn-x-crashed');

    await redis.restart();
    expect(await b.locker.acquire(orphaned)).toEqual({
      locked: true,
      reason: 'taken over: owner fn-x-crashed is gone',
    });
    expect((await b.locker.acquire(fresh)).locked).toBe(true);
    expect(b.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });
});
