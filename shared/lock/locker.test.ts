import type { GroupVersionKind } from '../api/gvk.js';
import type { SyncObject } from '../api/landscaper.js';
import type { LockTarget } from './decide.js';
import type { Liveness, LivenessHold } from './liveness.js';
import type { LockClient } from './locker.js';
import { createLocker } from './locker.js';
import { SyncObjectNameError } from './names.js';

function apiError(code: number, reason: string): Error {
  return Object.assign(new Error(reason), { code, body: JSON.stringify({ kind: 'Status', code, reason }) });
}

/** An in-memory SyncObject store with the API server's optimistic concurrency. */
class FakeApi {
  readonly objects = new Map<string, SyncObject>();
  readonly log: string[] = [];
  private rv = 0;
  /** Runs before a write is applied (to inject a race or a failure). */
  beforeWrite: ((verb: string, so: SyncObject) => void) | undefined;
  /** Runs after a write was applied, before its answer (to lose the answer). */
  afterWrite: ((verb: string) => void) | undefined;

  key(ns: string | undefined, name: string | undefined): string {
    return `${ns}/${name}`;
  }

  put(so: SyncObject): SyncObject {
    const stored = structuredClone({
      ...so,
      metadata: { ...so.metadata, resourceVersion: String(++this.rv) },
    });
    this.objects.set(this.key(so.metadata?.namespace, so.metadata?.name), stored);
    return structuredClone(stored);
  }

  readonly client: LockClient = {
    get: <T>(_g: GroupVersionKind, ns: string | undefined, name: string): Promise<T> => {
      this.log.push(`get ${name}`);
      const so = this.objects.get(this.key(ns, name));
      return so ? Promise.resolve(structuredClone(so) as T) : Promise.reject(apiError(404, 'NotFound'));
    },
    create: <T>(_g: GroupVersionKind, obj: T): Promise<T> => {
      const so = obj as SyncObject;
      this.log.push(`create ${so.metadata?.name} ${so.spec.podName}`);
      this.beforeWrite?.('create', so);
      if (this.objects.has(this.key(so.metadata?.namespace, so.metadata?.name))) {
        return Promise.reject(apiError(409, 'AlreadyExists'));
      }
      const made = this.put(so) as T;
      this.afterWrite?.('create');
      return Promise.resolve(made);
    },
    replace: <T>(_g: GroupVersionKind, obj: T): Promise<T> => {
      const so = obj as SyncObject;
      this.log.push(`replace ${so.metadata?.name} ${so.spec.podName}`);
      this.beforeWrite?.('replace', so);
      const cur = this.objects.get(this.key(so.metadata?.namespace, so.metadata?.name));
      if (!cur) return Promise.reject(apiError(404, 'NotFound'));
      if (cur.metadata?.resourceVersion !== so.metadata?.resourceVersion) {
        return Promise.reject(apiError(409, 'Conflict'));
      }
      const next = this.put(so) as T;
      this.afterWrite?.('replace');
      return Promise.resolve(next);
    },
  };
}

const T: LockTarget = {
  kind: 'DeployItem',
  name: 'di',
  namespace: 'ns',
  uid: '5a1e6b2c-0000-4000-8000-000000000001',
};
const NAME = `mock-${T.uid}`;
const NOW = new Date('2024-03-04T05:06:07Z');

function liveness(alive: Record<string, boolean> = {}): Liveness & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    isAlive: (owner) => {
      asked.push(owner);
      return Promise.resolve(alive[owner] ?? false);
    },
  };
}

function setup(
  owner = 'a',
  live: Liveness = liveness(),
): { api: FakeApi; locker: ReturnType<typeof createLocker> } {
  const api = new FakeApi();
  return {
    api,
    locker: createLocker({ client: api.client, prefix: 'mock', owner, liveness: live, now: () => NOW }),
  };
}

function stored(api: FakeApi): SyncObject | undefined {
  return api.objects.get(`ns/${NAME}`);
}

describe('createLocker (in-memory API)', () => {
  it('creates the SyncObject <prefix>-<uid> in the object namespace, owned by me', async () => {
    const { api, locker } = setup();
    expect(await locker.acquire(T)).toEqual({ locked: true, reason: 'created' });
    expect(stored(api)?.spec).toEqual({
      podName: 'a',
      kind: 'DeployItem',
      name: 'di',
      lastUpdateTime: '2024-03-04T05:06:07Z',
      prefix: 'mock',
    });
  });

  it('the same instance does not lock the same object twice at once (also when concurrent)', async () => {
    const { locker } = setup();
    const results = await Promise.all([locker.acquire(T), locker.acquire(T), locker.acquire(T)]);
    expect(results.filter((r) => r.locked)).toHaveLength(1);
    expect(await locker.acquire(T)).toEqual({
      locked: false,
      reason: 'locked by another invocation of this instance',
    });
    await locker.release(T);
    expect(await locker.acquire(T)).toEqual({ locked: true, reason: 'taken over: unlocked' });
  });

  it('a SyncObject still owned by me (after a restart) is locked without a write', async () => {
    const { api, locker } = setup();
    api.put({
      metadata: { name: NAME, namespace: 'ns' },
      spec: { podName: 'a', kind: 'DeployItem', name: 'di', lastUpdateTime: 'x', prefix: 'mock' },
    });
    api.log.length = 0;
    expect(await locker.acquire(T)).toEqual({ locked: true, reason: 'already mine' });
    expect(api.log).toEqual([`get ${NAME}`]);
  });

  it('release sets podName "" and lastUpdateTime, never deletes', async () => {
    const { api, locker } = setup();
    await locker.acquire(T);
    await locker.release(T);
    expect(stored(api)?.spec.podName).toBe('');
    expect(stored(api)?.spec.lastUpdateTime).toBe('2024-03-04T05:06:07Z');
  });

  it('a live owner keeps the lock; a dead one is taken over with the resourceVersion read', async () => {
    const live = liveness({ b: true });
    const { api, locker } = setup('a', live);
    api.put({
      metadata: { name: NAME, namespace: 'ns' },
      spec: { podName: 'b', kind: 'DeployItem', name: 'di', lastUpdateTime: 'x', prefix: 'mock' },
    });
    expect(await locker.acquire(T)).toEqual({ locked: false, reason: 'locked by b' });
    expect(live.asked).toEqual(['b']);
    api.put({ ...stored(api)!, spec: { ...stored(api)!.spec, podName: 'c' } });
    expect(await locker.acquire(T)).toEqual({ locked: true, reason: 'taken over: owner c is gone' });
    expect(stored(api)?.spec.podName).toBe('a');
  });

  it('a take-over that loses the race (Conflict) is not locked', async () => {
    const { api, locker } = setup();
    api.put({
      metadata: { name: NAME, namespace: 'ns' },
      spec: { podName: 'dead', kind: 'DeployItem', name: 'di', lastUpdateTime: 'x', prefix: 'mock' },
    });
    api.beforeWrite = (verb) => {
      if (verb === 'replace') api.put({ ...stored(api)!, spec: { ...stored(api)!.spec, podName: 'z' } });
    };
    expect(await locker.acquire(T)).toEqual({
      locked: false,
      reason: 'changed concurrently by another owner',
    });
    expect(stored(api)?.spec.podName).toBe('z');
  });

  it('a create that loses the race (AlreadyExists) is not locked and gives the liveness hold back', async () => {
    const released: string[] = [];
    const live: Liveness = {
      isAlive: () => Promise.resolve(true),
      hold: (owner): Promise<LivenessHold> => Promise.resolve({ release: () => released.push(owner) }),
    };
    const { api, locker } = setup('a', live);
    api.beforeWrite = (verb, so) => {
      if (verb === 'create') api.put({ ...so, spec: { ...so.spec, podName: 'other' } });
    };
    expect(await locker.acquire(T)).toEqual({
      locked: false,
      reason: 'created concurrently by another owner',
    });
    expect(released).toEqual(['a']);
  });

  it('announces liveness before it writes the lock; cannot announce → not locked, nothing written', async () => {
    const order: string[] = [];
    let fail = false;
    const live: Liveness = {
      isAlive: () => Promise.resolve(true),
      hold: (): Promise<LivenessHold> => {
        order.push('hold');
        return fail
          ? Promise.reject(new Error('Redis down'))
          : Promise.resolve({ release: () => order.push('unhold') });
      },
    };
    const { api, locker } = setup('a', live);
    api.beforeWrite = (verb) => order.push(verb);
    await locker.acquire(T);
    await locker.release(T);
    expect(order).toEqual(['hold', 'create', 'replace', 'unhold']);
    api.objects.clear();
    fail = true;
    expect(await locker.acquire(T)).toEqual({
      locked: false,
      reason: 'cannot announce liveness: Error: Redis down',
    });
    expect(api.objects.size).toBe(0);
  });

  it('release does nothing when someone else took the lock over', async () => {
    const { api, locker } = setup();
    await locker.acquire(T);
    api.put({ ...stored(api)!, spec: { ...stored(api)!.spec, podName: 'b' } });
    api.log.length = 0;
    await locker.release(T);
    expect(api.log).toEqual([`get ${NAME}`]);
    expect(stored(api)?.spec.podName).toBe('b');
  });

  it('release retries on Conflict and re-reads', async () => {
    const { api, locker } = setup();
    await locker.acquire(T);
    let once = true;
    api.beforeWrite = (verb) => {
      if (verb === 'replace' && once) {
        once = false;
        api.put(stored(api)!);
      }
    };
    await locker.release(T);
    expect(stored(api)?.spec.podName).toBe('');
    expect(api.log.filter((l) => l.startsWith('replace'))).toHaveLength(2);
  });

  it('release retries a transient failure (500, 429) after a pause, but not a 403', async () => {
    const { api, locker } = setup();
    await locker.acquire(T);
    const failures = [apiError(500, 'InternalError'), apiError(429, 'TooManyRequests')];
    api.beforeWrite = (verb) => {
      const next = verb === 'replace' ? failures.shift() : undefined;
      if (next) throw next;
    };
    await locker.release(T);
    expect(stored(api)?.spec.podName).toBe('');
    expect(api.log.filter((l) => l.startsWith('replace'))).toHaveLength(3);

    await locker.acquire(T);
    api.beforeWrite = (verb) => {
      if (verb === 'replace') throw apiError(403, 'Forbidden');
    };
    await expect(locker.release(T)).rejects.toMatchObject({ code: 403 });
  });

  it('other API errors are thrown, and the object can be tried again', async () => {
    const { api, locker } = setup();
    api.beforeWrite = () => {
      throw apiError(500, 'InternalError');
    };
    await expect(locker.acquire(T)).rejects.toMatchObject({ code: 500 });
    api.beforeWrite = undefined;
    expect((await locker.acquire(T)).locked).toBe(true);
  });

  it('a lock write applied but its answer lost is read back: mine, so locked (create and take-over)', async () => {
    const { api, locker } = setup();
    const hangUp = (): never => {
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    };
    api.afterWrite = hangUp;
    expect(await locker.acquire(T)).toEqual({ locked: true, reason: 'created (its answer lost, read back)' });
    expect(api.log).toEqual([`get ${NAME}`, `create ${NAME} a`, `get ${NAME}`]);
    api.afterWrite = undefined;
    await locker.release(T);
    expect(stored(api)?.spec.podName).toBe('');
    api.afterWrite = hangUp;
    expect((await locker.acquire(T)).reason).toBe('taken over: unlocked (its answer lost, read back)');
    expect(stored(api)?.spec.podName).toBe('a');
  });

  it('a lock write lost before it was applied (no answer) is thrown, nothing held', async () => {
    const { api, locker } = setup();
    api.beforeWrite = () => {
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    };
    await expect(locker.acquire(T)).rejects.toThrow('socket hang up');
    expect(stored(api)).toBeUndefined();
    api.beforeWrite = undefined;
    expect((await locker.acquire(T)).locked).toBe(true);
  });

  it('withLock runs fn under the lock and unlocks, also when fn throws (its error wins)', async () => {
    const { api, locker } = setup();
    const seen: string[] = [];
    const ok = await locker.withLock(T, () => {
      seen.push(stored(api)!.spec.podName);
      return Promise.resolve(42);
    });
    expect(ok).toEqual({ locked: true, value: 42 });
    expect(seen).toEqual(['a']);
    expect(stored(api)?.spec.podName).toBe('');
    await expect(locker.withLock(T, () => Promise.reject(new Error('reconcile failed')))).rejects.toThrow(
      'reconcile failed',
    );
    expect(stored(api)?.spec.podName).toBe('');
  });

  it('withLock does not run fn when not locked', async () => {
    const { api, locker } = setup('a', liveness({ b: true }));
    api.put({
      metadata: { name: NAME, namespace: 'ns' },
      spec: { podName: 'b', kind: 'DeployItem', name: 'di', lastUpdateTime: 'x', prefix: 'mock' },
    });
    let ran = false;
    const res = await locker.withLock(T, () => {
      ran = true;
      return Promise.resolve(1);
    });
    expect(res).toEqual({ locked: false, reason: 'locked by b' });
    expect(ran).toBe(false);
  });

  it('a name that cannot exist is a SyncObjectNameError (terminal), with no request made', async () => {
    const { api, locker } = setup();
    await expect(locker.acquire({ ...T, uid: 'NOT_A_UID' })).rejects.toBeInstanceOf(SyncObjectNameError);
    await expect(locker.acquire({ ...T, uid: 'x'.repeat(300) })).rejects.toThrow(
      /no more than 253 characters/,
    );
    expect(api.log).toEqual([]);
  });

  it('a bad prefix or an empty owner fails at construction', () => {
    const api = new FakeApi();
    const live = liveness();
    expect(() =>
      createLocker({ client: api.client, prefix: 'Bad_Prefix', owner: 'a', liveness: live }),
    ).toThrow(SyncObjectNameError);
    expect(() => createLocker({ client: api.client, prefix: 'mock', owner: '', liveness: live })).toThrow(
      /owner identity is empty/,
    );
  });
});

describe('createLocker with writeFirst (the read saved where the own last write tells the outcome)', () => {
  function writeFirst(
    owner = 'a',
    live: Liveness = liveness(),
  ): { api: FakeApi; locker: ReturnType<typeof createLocker> } {
    const api = new FakeApi();
    const locker = createLocker({
      client: api.client,
      prefix: 'mock',
      owner,
      liveness: live,
      now: () => NOW,
      writeFirst: true,
    });
    return { api, locker };
  }

  it('creates without a read when told none exists, unlocks and takes it again with one write each', async () => {
    const { api, locker } = writeFirst();
    expect(await locker.acquire(T, { absent: true })).toEqual({ locked: true, reason: 'created' });
    await locker.release(T);
    expect(await locker.acquire(T)).toEqual({ locked: true, reason: 'taken over: unlocked' });
    await locker.release(T);
    expect(api.log).toEqual([
      `create ${NAME} a`,
      `replace ${NAME} `,
      `replace ${NAME} a`,
      `replace ${NAME} `,
    ]);
    expect(stored(api)?.spec.podName).toBe('');
  });

  it('without the hint or an own write, reads first as upstream', async () => {
    const { api, locker } = writeFirst();
    expect(await locker.acquire(T)).toEqual({ locked: true, reason: 'created' });
    expect(api.log).toEqual([`get ${NAME}`, `create ${NAME} a`]);
  });

  it('a SyncObject that exists although told none does: AlreadyExists, then read and decide', async () => {
    const { api, locker } = writeFirst('a', liveness({ b: true }));
    api.put({
      metadata: { name: NAME, namespace: 'ns' },
      spec: { podName: 'b', kind: 'DeployItem', name: 'di', lastUpdateTime: 'x', prefix: 'mock' },
    });
    expect(await locker.acquire(T, { absent: true })).toEqual({ locked: false, reason: 'locked by b' });
    expect(api.log).toEqual([`create ${NAME} a`, `get ${NAME}`]);
  });

  it('someone else locked it since my unlock: Conflict, then read, and not locked while they live', async () => {
    const { api, locker } = writeFirst('a', liveness({ b: true }));
    await locker.acquire(T, { absent: true });
    await locker.release(T);
    api.put({ ...stored(api)!, spec: { ...stored(api)!.spec, podName: 'b' } });
    api.log.length = 0;
    expect((await locker.acquire(T)).locked).toBe(false);
    expect(api.log).toEqual([`replace ${NAME} a`, `get ${NAME}`]);
    expect(stored(api)?.spec.podName).toBe('b');
  });

  it('release after someone took the lock over: Conflict, then read, and nothing written', async () => {
    const { api, locker } = writeFirst();
    await locker.acquire(T, { absent: true });
    api.put({ ...stored(api)!, spec: { ...stored(api)!.spec, podName: 'b' } });
    api.log.length = 0;
    await locker.release(T);
    expect(api.log).toEqual([`replace ${NAME} `, `get ${NAME}`]);
    expect(stored(api)?.spec.podName).toBe('b');
  });
});
