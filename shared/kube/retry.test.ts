import { jest } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import { ConflictRetryExhaustedError } from './errors.js';
import { updateWithConflictRetry } from './retry.js';

const conflict = (): ApiException<string> =>
  new ApiException(409, 'x', JSON.stringify({ kind: 'Status', code: 409, reason: 'Conflict' }), {});
const alreadyExists = (): ApiException<string> =>
  new ApiException(409, 'x', JSON.stringify({ kind: 'Status', code: 409, reason: 'AlreadyExists' }), {});

interface Obj {
  rv: number;
  value: string;
}

/** A fake store with optimistic concurrency; `interfere` writes behind our back after the n-th read. */
function fakeStore(interfereOnReads: number[] = []): {
  get: () => Promise<Obj>;
  update: (o: Obj) => Promise<Obj>;
  reads: () => number;
  writes: () => number;
  current: () => Obj;
} {
  let stored: Obj = { rv: 1, value: 'initial' };
  let reads = 0;
  let writes = 0;
  return {
    get: () => {
      reads += 1;
      const copy = { ...stored };
      if (interfereOnReads.includes(reads)) stored = { rv: stored.rv + 1, value: `other-${reads}` };
      return Promise.resolve(copy);
    },
    update: (o) => {
      writes += 1;
      if (o.rv !== stored.rv) return Promise.reject(conflict());
      stored = { ...o, rv: o.rv + 1 };
      return Promise.resolve({ ...stored });
    },
    reads: () => reads,
    writes: () => writes,
    current: () => stored,
  };
}

describe('updateWithConflictRetry', () => {
  it('writes once when nothing interferes and never sleeps', async () => {
    const store = fakeStore();
    const sleep = jest.fn((_ms: number) => Promise.resolve());
    const out = await updateWithConflictRetry(store.get, (o) => ({ ...o, value: 'mine' }), store.update, {
      sleep,
    });
    expect(out).toEqual({ rv: 2, value: 'mine' });
    expect(store.reads()).toBe(1);
    expect(sleep).not.toHaveBeenCalled();
  });

  it('re-reads on Conflict and applies the change to the fresh object', async () => {
    const store = fakeStore([1, 2]);
    const slept: number[] = [];
    const seen: string[] = [];
    const out = await updateWithConflictRetry(
      store.get,
      (o) => {
        seen.push(o.value);
        return { ...o, value: `${o.value}+mine` };
      },
      store.update,
      { retries: 5, backoff: (n) => n * 100, sleep: (ms) => Promise.resolve(void slept.push(ms)) },
    );
    expect(seen).toEqual(['initial', 'other-1', 'other-2']);
    expect(out.value).toBe('other-2+mine');
    expect(slept).toEqual([100, 200]);
  });

  it('gives up after the given number of attempts with a typed error carrying the conflict', async () => {
    const store = fakeStore([1, 2, 3, 4]);
    const err: unknown = await updateWithConflictRetry(
      store.get,
      (o) => ({ ...o, value: 'x' }),
      store.update,
      {
        retries: 3,
        sleep: () => Promise.resolve(),
      },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictRetryExhaustedError);
    expect((err as ConflictRetryExhaustedError).attempts).toBe(3);
    expect((err as Error).cause).toBeInstanceOf(ApiException);
    expect(store.writes()).toBe(3);
  });

  it('uses a constant backoff given as a number, default 10 ms', async () => {
    const slept: number[] = [];
    const store = fakeStore([1]);
    await updateWithConflictRetry(store.get, (o) => ({ ...o, value: 'x' }), store.update, {
      sleep: (ms) => Promise.resolve(void slept.push(ms)),
    });
    expect(slept).toEqual([10]);
  });

  it('does not write when mutate returns undefined', async () => {
    const store = fakeStore();
    const out = await updateWithConflictRetry(store.get, () => undefined, store.update);
    expect(out).toEqual({ rv: 1, value: 'initial' });
    expect(store.writes()).toBe(0);
  });

  it('throws other errors at once, AlreadyExists included', async () => {
    const update = jest.fn((_n: number): Promise<number> => Promise.reject(alreadyExists()));
    const err: unknown = await updateWithConflictRetry(
      () => Promise.resolve(1),
      () => 2,
      update,
      {
        sleep: () => Promise.resolve(),
      },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    expect(update).toHaveBeenCalledTimes(1);
    const getErr = new Error('get failed');
    await expect(
      updateWithConflictRetry(
        () => Promise.reject(getErr),
        () => 1,
        () => Promise.resolve(1),
      ),
    ).rejects.toBe(getErr);
  });

  it('supports async mutate and a custom retryable predicate', async () => {
    let calls = 0;
    const out = await updateWithConflictRetry(
      () => Promise.resolve(calls),
      (n) => Promise.resolve(n + 10),
      (n) => {
        calls += 1;
        return calls < 2 ? Promise.reject(new Error('retry me')) : Promise.resolve(n);
      },
      { isRetryable: (e) => (e as Error).message === 'retry me', sleep: () => Promise.resolve() },
    );
    expect(out).toBe(11);
  });

  it('makes at least one attempt', async () => {
    const store = fakeStore();
    await updateWithConflictRetry(store.get, (o) => ({ ...o, value: 'y' }), store.update, { retries: 0 });
    expect(store.current().value).toBe('y');
  });
});
