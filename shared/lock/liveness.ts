/**
 * Is a lock owner still alive? Two answers, one per platform:
 *
 * - {@link podLiveness}: replicas are Pods (Knative, the embedded landscape). The owner is a Pod
 *   name in the checker's own namespace (POD_NAMESPACE); NotFound or a deletionTimestamp means
 *   dead. Read fresh on every call (upstream caches a minute; a dead owner is taken over on the
 *   next try here).
 * - {@link heartbeatLiveness}: replicas are not Pods (Cloud Functions). Each instance keeps a key
 *   with a TTL in Redis while it holds a lock; the key exists → alive. When Redis is down the
 *   owner counts as alive (nothing is processed twice), logged once per instance.
 */
import { realIntervalTimers, type IntervalTimers } from '../timers/index.js';
import type { GroupVersionKind } from '../api/gvk.js';
import { GVK } from '../api/gvk.js';
import type { PartialObjectMetadata } from '@landscape/apimachinery';
import type { RedisHandle } from '../redis/index.js';
import { guardRedis, isConnectionError, keyspace, RedisUnavailableError } from '../redis/index.js';
import { isNotFound } from '../kube/errors.js';
import type { Logger } from '../log/index.js';
import { silentLogger } from './silent.js';

/** Keeps an owner visibly alive while it holds a lock; `release` when the lock is given back. */
export interface LivenessHold {
  release(): void;
}

export interface Liveness {
  isAlive(owner: string): Promise<boolean>;
  /**
   * Called by the locker before it writes a lock for `owner` (and on every successful acquire);
   * resolves once other instances can see the owner alive, rejects when that cannot be ensured
   * (then the locker does not take the lock). Absent when the platform knows liveness by itself.
   */
  hold?(owner: string): Promise<LivenessHold>;
}

/** What podLiveness needs of a KubeClient. */
export interface PodMetadataReader {
  getMetadata(
    gvk: GroupVersionKind,
    namespace: string | undefined,
    name: string,
  ): Promise<PartialObjectMetadata>;
}

/** Liveness by Pod: the owner is alive while its Pod exists in `namespace` and is not being deleted. */
export function podLiveness(client: PodMetadataReader, namespace: string): Liveness {
  return {
    async isAlive(owner: string): Promise<boolean> {
      if (owner === '') return false;
      try {
        const pod = await client.getMetadata(GVK.Pod, namespace, owner);
        return !pod.metadata?.deletionTimestamp;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },
  };
}

export const DEFAULT_HEARTBEAT_TTL_MS = 20_000;
export const HEARTBEAT_FAMILY = 'lock-heartbeat';

export type { IntervalTimers } from '../timers/index.js';
const realTimers: IntervalTimers = realIntervalTimers;

export interface HeartbeatOptions {
  /** How long a beat keeps an owner alive; default 20 s. A dead owner is taken over after at most this. */
  ttlMs?: number;
  /** How often a held owner beats; default a third of the TTL. */
  beatEveryMs?: number;
  /** Cache key family; default `lock-heartbeat`. */
  family?: string;
  log?: Logger;
  now?: () => Date;
  timers?: IntervalTimers;
}

export interface HeartbeatLiveness extends Liveness {
  /** Writes the owner's key with the TTL. Rejects (RedisUnavailableError) when Redis is down. */
  beat(owner: string): Promise<void>;
  hold(owner: string): Promise<LivenessHold>;
  /** The key of an owner (for tests and operators). */
  keyOf(owner: string): string;
  /** Stops every running heartbeat. */
  stop(): void;
}

interface Held {
  count: number;
  timer: unknown;
}

function isRedisDown(err: unknown): boolean {
  return err instanceof RedisUnavailableError || isConnectionError(err);
}

/** Liveness by a per-instance heartbeat key with a TTL in Redis. */
export function heartbeatLiveness(redis: RedisHandle, opts: HeartbeatOptions = {}): HeartbeatLiveness {
  const ttlMs = opts.ttlMs ?? DEFAULT_HEARTBEAT_TTL_MS;
  const beatEveryMs = opts.beatEveryMs ?? Math.max(1, Math.floor(ttlMs / 3));
  const ks = keyspace(opts.family ?? HEARTBEAT_FAMILY);
  const log = opts.log ?? silentLogger;
  const now = opts.now ?? ((): Date => new Date());
  const timers = opts.timers ?? realTimers;
  const held = new Map<string, Held>();
  let warned = false;

  const warnOnce = (err: unknown): void => {
    if (warned) return;
    warned = true;
    log.warn('Redis unavailable: lock owners count as alive, no lock is taken over', {
      error: err instanceof Error ? err.message : String(err),
    });
  };

  const beat = async (owner: string): Promise<void> => {
    const client = await redis.get();
    await guardRedis(client, () => client.set(ks.key(owner), now().toISOString(), 'PX', ttlMs));
  };

  const background = (owner: string): void => {
    beat(owner).catch((err: unknown) => {
      if (isRedisDown(err)) warnOnce(err);
      else log.error('lock heartbeat failed', { owner, error: String(err) });
    });
  };

  const release = (owner: string): void => {
    const h = held.get(owner);
    if (!h) return;
    h.count -= 1;
    if (h.count > 0) return;
    timers.clearInterval(h.timer);
    held.delete(owner);
  };

  return {
    beat,
    keyOf: (owner) => ks.key(owner),
    async isAlive(owner: string): Promise<boolean> {
      if (owner === '') return false;
      try {
        const client = await redis.get();
        return (await guardRedis(client, () => client.exists(ks.key(owner)))) === 1;
      } catch (err) {
        if (!isRedisDown(err)) throw err;
        warnOnce(err);
        return true;
      }
    },
    async hold(owner: string): Promise<LivenessHold> {
      await beat(owner).catch((err: unknown) => {
        if (isRedisDown(err)) warnOnce(err);
        throw err;
      });
      const h = held.get(owner);
      if (h) h.count += 1;
      else held.set(owner, { count: 1, timer: timers.setInterval(() => background(owner), beatEveryMs) });
      let released = false;
      return {
        release(): void {
          if (released) return;
          released = true;
          release(owner);
        },
      };
    },
    stop(): void {
      for (const h of held.values()) timers.clearInterval(h.timer);
      held.clear();
    },
  };
}
