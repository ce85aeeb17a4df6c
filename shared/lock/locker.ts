/**
 * The SyncObject locker (specs/landscaper.md, "SyncObject lock"): the thin I/O shell around
 * decideAcquire/decideRelease. Every read goes to the API server (never a cache); a create that
 * finds the SyncObject already there, or a take-over whose resourceVersion is stale, means "not
 * locked". Unlock sets podName "" and never deletes. Within one instance the same object is not
 * locked twice at once either (an instance may run several invocations concurrently).
 *
 * `writeFirst` (off by default: read first, as upstream) saves the read before a write where the
 * outcome is known to be the same: the instance remembers the SyncObjects it wrote itself, and
 * takes an unlocked one it left behind, or unlocks one it holds, by an update on that
 * resourceVersion; where the caller expects no SyncObject yet (`hint.absent`) it creates first.
 * Every such write is optimistic, so a SyncObject anyone else changed since answers Conflict (or
 * AlreadyExists, NotFound), and then the locker reads and decides as it always does.
 */
import { GVK } from '../api/gvk.js';
import type { SyncObject } from '../api/landscaper.js';
import type { KubeClient } from '../kube/client.js';
import {
  ConflictRetryExhaustedError,
  isAlreadyExists,
  isConflict,
  isNotFound,
  isTransientError,
  statusCode,
} from '../kube/errors.js';
import type { Logger } from '../log/index.js';
import type { LockTarget } from './decide.js';
import { decideAcquire, decideRelease, newSyncObject, withOwner } from './decide.js';
import type { Liveness, LivenessHold } from './liveness.js';
import { syncObjectName } from './names.js';
import { silentLogger } from './silent.js';

/** What the locker needs of a KubeClient. */
export type LockClient = Pick<KubeClient, 'get' | 'create' | 'replace'>;

export interface LockerOptions {
  client: LockClient;
  /** The controller, e.g. `manifest`, `mock`: SyncObjects are named `<prefix>-<uid>`. */
  prefix: string;
  /** This instance's identity (see lockOwner). */
  owner: string;
  liveness: Liveness;
  now?: () => Date;
  log?: Logger;
  /** Write without the read where this instance's own last write (or `hint.absent`) tells the outcome. */
  writeFirst?: boolean;
}

/** What the caller expects of the SyncObject (`writeFirst` only). */
export interface LockHint {
  /** No SyncObject is expected (e.g. the object was never locked): create first. */
  absent?: boolean;
}

export interface LockResult {
  locked: boolean;
  /** Why not locked (or how it was locked), for logs. */
  reason?: string;
}

export type WithLockResult<T> = { locked: true; value: T } | { locked: false; reason: string };

export interface Locker {
  readonly prefix: string;
  readonly owner: string;
  /**
   * Tries once to lock `target` for this owner. Throws SyncObjectNameError (terminal) when the
   * SyncObject name cannot exist, and API errors other than the expected races (transient).
   */
  acquire(target: LockTarget, hint?: LockHint): Promise<LockResult>;
  /** Unlocks (podName "", lastUpdateTime now) when this owner still holds the lock. Never deletes. */
  release(target: LockTarget): Promise<void>;
  /** acquire, run `fn`, release (also when `fn` throws; its error wins). */
  withLock<T>(target: LockTarget, fn: () => Promise<T>, hint?: LockHint): Promise<WithLockResult<T>>;
}

const RELEASE_ATTEMPTS = 6;
/** SyncObjects remembered (`writeFirst`); forgetting one only costs a read. */
const KNOWN_MAX = 10_000;
const RELEASE_PAUSE_MS = 50;

const NO_HOLD: LivenessHold = { release: () => undefined };

interface Attempt {
  result: LockResult;
  hold?: LivenessHold;
}

class SyncObjectLocker implements Locker {
  /** Per `namespace/name`: the liveness hold of a lock this instance holds (or is acquiring). */
  private readonly local = new Map<string, LivenessHold | undefined>();
  /** Per `namespace/name`: the SyncObject as this instance's own last write left it (`writeFirst`). */
  private readonly known = new Map<string, SyncObject>();
  private readonly now: () => Date;
  private readonly log: Logger;

  constructor(private readonly o: LockerOptions) {
    if (o.owner === '') throw new Error('locker: the owner identity is empty');
    syncObjectName(o.prefix, '00000000-0000-0000-0000-000000000000');
    this.now = o.now ?? ((): Date => new Date());
    this.log = o.log ?? silentLogger;
  }

  get prefix(): string {
    return this.o.prefix;
  }

  get owner(): string {
    return this.o.owner;
  }

  async acquire(target: LockTarget, hint: LockHint = {}): Promise<LockResult> {
    const name = syncObjectName(this.o.prefix, target.uid);
    const key = `${target.namespace}/${name}`;
    if (this.local.has(key))
      return { locked: false, reason: 'locked by another invocation of this instance' };
    this.local.set(key, undefined);
    let attempt: Attempt;
    try {
      attempt = (await this.tryWriteFirst(target, name, hint)) ?? (await this.tryAcquire(target, name));
    } catch (err) {
      this.local.delete(key);
      throw err;
    }
    if (attempt.result.locked) this.local.set(key, attempt.hold);
    else this.local.delete(key);
    this.log.debug(attempt.result.locked ? 'locked' : 'not locked', {
      syncObject: key,
      reason: attempt.result.reason,
    });
    return attempt.result;
  }

  /** The write without a read (`writeFirst`); undefined when it does not apply or lost (then read). */
  private async tryWriteFirst(
    target: LockTarget,
    name: string,
    hint: LockHint,
  ): Promise<Attempt | undefined> {
    if (!this.o.writeFirst) return undefined;
    const known = this.known.get(`${target.namespace}/${name}`);
    let attempt: Attempt | undefined;
    if (known && (known.spec?.podName ?? '') === '') {
      const next = withOwner(known, this.o.owner, this.now());
      attempt = await this.write(
        () => this.o.client.replace(GVK.SyncObject, next),
        'taken over: unlocked',
        target.namespace,
        name,
      );
    } else if (!known && hint.absent) {
      const so = newSyncObject({ name, prefix: this.o.prefix, target, owner: this.o.owner, now: this.now() });
      attempt = await this.write(
        () => this.o.client.create(GVK.SyncObject, so),
        'created',
        target.namespace,
        name,
      );
    }
    if (attempt?.result.locked) return attempt;
    this.known.delete(`${target.namespace}/${name}`);
    return undefined;
  }

  private remember(so: unknown): void {
    if (!this.o.writeFirst || typeof so !== 'object' || so === null) return;
    const meta = (so as SyncObject).metadata;
    const key = `${meta?.namespace}/${meta?.name}`;
    this.known.delete(key);
    this.known.set(key, so as SyncObject);
    if (this.known.size > KNOWN_MAX) this.known.delete(this.known.keys().next().value as string);
  }

  private async tryAcquire(target: LockTarget, name: string): Promise<Attempt> {
    const existing = await this.read(target.namespace, name);
    let step = decideAcquire(existing, this.o.owner);
    if (step.action === 'checkLiveness') {
      step = decideAcquire(existing, this.o.owner, await this.o.liveness.isAlive(step.owner));
    }
    switch (step.action) {
      case 'mine':
        return this.write(() => Promise.resolve(), 'already mine', target.namespace, name);
      case 'create': {
        const so = newSyncObject({
          name,
          prefix: this.o.prefix,
          target,
          owner: this.o.owner,
          now: this.now(),
        });
        return this.write(() => this.o.client.create(GVK.SyncObject, so), 'created', target.namespace, name);
      }
      case 'takeOver': {
        const next = withOwner(existing!, this.o.owner, this.now());
        return this.write(
          () => this.o.client.replace(GVK.SyncObject, next),
          `taken over: ${step.reason}`,
          target.namespace,
          name,
        );
      }
      case 'notLocked':
        return { result: { locked: false, reason: step.reason } };
      default:
        return { result: { locked: false, reason: 'owner liveness unknown' } };
    }
  }

  /**
   * Makes the owner visibly alive, then writes; a lost race gives "not locked". A write whose
   * answer never came (a dropped connection, a timeout) may have been applied: the SyncObject is
   * read back, and when it names me the lock is mine. Left unread, it would stay mine with nobody
   * working under it until this instance happened to get the object again or died.
   */
  private async write(
    fn: () => Promise<unknown>,
    how: string,
    namespace: string,
    name: string,
  ): Promise<Attempt> {
    let hold: LivenessHold;
    try {
      hold = this.o.liveness.hold ? await this.o.liveness.hold(this.o.owner) : NO_HOLD;
    } catch (err) {
      return { result: { locked: false, reason: `cannot announce liveness: ${String(err)}` } };
    }
    try {
      this.remember(await fn());
    } catch (err) {
      const lost = lostRace(err);
      if (!lost && statusCode(err) === undefined && (await this.appliedAfterAll(namespace, name))) {
        return { result: { locked: true, reason: `${how} (its answer lost, read back)` }, hold };
      }
      hold.release();
      if (lost) return { result: { locked: false, reason: lost } };
      throw err;
    }
    return { result: { locked: true, reason: how }, hold };
  }

  /** After a write with no answer: does the SyncObject name me now? False when that cannot be read either. */
  private async appliedAfterAll(namespace: string, name: string): Promise<boolean> {
    try {
      const so = await this.read(namespace, name);
      if (so?.spec?.podName !== this.o.owner || so.metadata?.deletionTimestamp) return false;
      this.remember(so);
      return true;
    } catch {
      return false;
    }
  }

  async release(target: LockTarget): Promise<void> {
    const name = syncObjectName(this.o.prefix, target.uid);
    const key = `${target.namespace}/${name}`;
    try {
      await this.unlock(target.namespace, name);
    } finally {
      this.local.get(key)?.release();
      this.local.delete(key);
    }
  }

  /**
   * Gives the lock back, retrying a lost race at once and a transient failure (429, 5xx, no
   * answer) after a short pause: a lock left behind by a failed release stays held until its
   * owner is gone, so it is worth a few tries.
   */
  private async unlock(namespace: string, name: string): Promise<void> {
    let last: unknown;
    for (let i = 0; i < RELEASE_ATTEMPTS; i++) {
      try {
        await this.unlockOnce(namespace, name);
        return;
      } catch (err) {
        if (!isConflict(err) && !isTransientError(err)) throw err;
        last = err;
        if (!isConflict(err)) await new Promise((r) => setTimeout(r, RELEASE_PAUSE_MS * 2 ** i));
      }
    }
    if (isConflict(last)) throw new ConflictRetryExhaustedError(RELEASE_ATTEMPTS, last);
    throw last;
  }

  /** One read and, when the lock is still mine, one unlocking write (`writeFirst`: the write first). */
  private async unlockOnce(namespace: string, name: string): Promise<void> {
    if (await this.unlockKnown(namespace, name)) return;
    const existing = await this.read(namespace, name);
    const step = decideRelease(existing, this.o.owner);
    if (step.action === 'none') {
      this.log.debug('nothing to unlock', { syncObject: `${namespace}/${name}`, reason: step.reason });
      return;
    }
    this.remember(await this.o.client.replace(GVK.SyncObject, withOwner(existing!, '', this.now())));
  }

  /** Unlocks the SyncObject as this instance's own write left it; false when unknown or changed since. */
  private async unlockKnown(namespace: string, name: string): Promise<boolean> {
    const key = `${namespace}/${name}`;
    const known = this.known.get(key);
    if (!known || known.spec?.podName !== this.o.owner) return false;
    this.known.delete(key);
    try {
      this.remember(await this.o.client.replace(GVK.SyncObject, withOwner(known, '', this.now())));
      return true;
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return false;
      throw err;
    }
  }

  async withLock<T>(target: LockTarget, fn: () => Promise<T>, hint?: LockHint): Promise<WithLockResult<T>> {
    const res = await this.acquire(target, hint);
    if (!res.locked) return { locked: false, reason: res.reason ?? 'not locked' };
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      await this.release(target).catch((e: unknown) => {
        this.log.error('unlock failed', { uid: target.uid, error: String(e) });
      });
      throw err;
    }
    await this.release(target);
    return { locked: true, value };
  }

  private async read(namespace: string, name: string): Promise<SyncObject | undefined> {
    try {
      return await this.o.client.get<SyncObject>(GVK.SyncObject, namespace, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}

function lostRace(err: unknown): string | undefined {
  if (isAlreadyExists(err)) return 'created concurrently by another owner';
  if (isConflict(err)) return 'changed concurrently by another owner';
  if (isNotFound(err)) return 'deleted concurrently';
  return undefined;
}

/** A locker for one controller (`prefix`) and one owner. Does no I/O until called. */
export function createLocker(options: LockerOptions): Locker {
  return new SyncObjectLocker(options);
}
