/**
 * In-flight reconciles per controller across all instances (see ./workers-model.ts).
 *
 *   const counter = createWorkerCounter({ redis, instance: POD_NAME, log });   // once per instance
 *   const inFlight = await counter.startReconcile({ controller: 'deployer-mock', kind: 'DeployItem',
 *                                                   instances: 1, concurrency: 10 });
 *   try { ...reconcile... } finally { await inFlight.done(); }
 *
 * `startReconcile` drops expired entries, adds this reconcile's entry, counts, and logs the seed's
 * "worker threads of controller" line when the count exceeds 70% of instances × concurrency. While
 * reconciles are in flight one timer per instance pushes their expiry forward, so a long reconcile
 * keeps counting and a crashed instance's entries stop counting after at most `ttlMs`.
 *
 * Monitoring never stands in the way of a reconcile: when Redis is down nothing is counted, the
 * reconcile goes on, and the instance says so once in its log; other errors are logged and
 * swallowed. Nothing secret is stored (controller names, instance names, random ids).
 */
import { realIntervalTimers, type IntervalTimers } from '../timers/index.js';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CacheKey, RedisHandle } from '../redis/index.js';
import {
  assertTtl,
  evalScript,
  guardRedis,
  isConnectionError,
  RedisUnavailableError,
} from '../redis/index.js';
import type { Logger } from '../log/index.js';
import { shouldLogWorkers, workerMember, workersKey, workerThreadsLine } from './workers-model.js';

export const DEFAULT_WORKER_TTL_MS = 30_000;

export type { IntervalTimers } from '../timers/index.js';
const realTimers: IntervalTimers = realIntervalTimers;

export interface WorkerCounterOptions {
  /** Absent: nothing is counted (said once in the log, like Redis being down). */
  redis: RedisHandle | undefined;
  /** This instance (POD_NAME, or the lock owner id where replicas are not Pods). */
  instance: string;
  log: Logger;
  /** How long an entry counts without a refresh; default 30 s. */
  ttlMs?: number;
  /** How often in-flight entries are refreshed; default a third of the TTL. */
  refreshEveryMs?: number;
  now?: () => Date;
  /** Request ids; default randomUUID. */
  rand?: () => string;
  timers?: IntervalTimers;
}

export interface ReconcileStart {
  /** The controller (function) name, e.g. `deployer-mock`. */
  controller: string;
  /** The kind it reconciles, printed as `reconciledResourceKind`. */
  kind: string;
  /** The maximum number of instances (max-scale); 0: no limit. */
  instances: number;
  /** Reconciles per instance (containerConcurrency); 0: no limit. */
  concurrency: number;
}

export interface InFlight {
  /** In-flight reconciles of the controller across all instances, this one included; undefined when not counted. */
  readonly count: number | undefined;
  /** Ends this reconcile's entry. Idempotent; never throws. */
  done(): Promise<void>;
}

export interface WorkerCounter {
  startReconcile(start: ReconcileStart): Promise<InFlight>;
  /** The current count of a controller (entries not expired), undefined when Redis cannot say. */
  count(controller: string): Promise<number | undefined>;
  /** Stops the refresh timer (entries then expire on their own). */
  stop(): void;
}

const notCounted: InFlight = { count: undefined, done: () => Promise.resolve() };

function isRedisDown(err: unknown): boolean {
  return err instanceof RedisUnavailableError || isConnectionError(err);
}

/**
 * A reconcile's entry in: expired entries out, this one in scored by its expiry, the count, the
 * key's own expiry pushed on. One script (by SHA1, shared/redis/script.ts) instead of a MULTI of
 * four commands: the transaction's pipeline objects had been ≈ 7 % of deployer-mock's CPU in a V8
 * profile of the deployers bench (2026-11-28). KEYS[1] the controller's set; ARGV now, expiry, member,
 * key TTL (ms).
 */
export const ENTER_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local n = redis.call('ZCARD', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return n
`;

/** Creates the counter of one instance. Does no I/O until a reconcile starts. */
export function createWorkerCounter(opts: WorkerCounterOptions): WorkerCounter {
  const ttlMs = assertTtl(opts.ttlMs ?? DEFAULT_WORKER_TTL_MS);
  const refreshEveryMs = opts.refreshEveryMs ?? Math.max(1, Math.floor(ttlMs / 3));
  const now = opts.now ?? ((): Date => new Date());
  const rand = opts.rand ?? randomUUID;
  const timers = opts.timers ?? realTimers;
  const { log } = opts;
  /** member → key of every entry this instance holds. */
  const held = new Map<string, CacheKey>();
  let timer: unknown;
  let warned = false;

  const report = (err: unknown, what: string): void => {
    if (!isRedisDown(err)) {
      log.error(`worker threads: ${what} failed`, {
        error: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    if (warned) return;
    warned = true;
    log.warn('Redis unavailable: worker threads are not counted, reconciles go on', {
      error: err instanceof Error ? err.message : String(err),
    });
  };

  const client = async (): Promise<Redis> => {
    if (!opts.redis) throw new RedisUnavailableError('no Redis configured (REDIS_URL)', '');
    return opts.redis.get();
  };

  const refresh = async (): Promise<void> => {
    if (held.size === 0) return;
    const redis = await client();
    const expiry = now().getTime() + ttlMs;
    const pipeline = redis.multi();
    for (const [member, key] of held) {
      pipeline.zadd(key, 'XX', expiry, member);
      pipeline.pexpire(key, 2 * ttlMs);
    }
    await guardRedis(redis, () => pipeline.exec());
  };

  const hold = (member: string, key: CacheKey): void => {
    held.set(member, key);
    timer ??= timers.setInterval(() => {
      refresh().catch((err: unknown) => report(err, 'refresh'));
    }, refreshEveryMs);
  };

  const release = (member: string): void => {
    held.delete(member);
    if (held.size > 0 || timer === undefined) return;
    timers.clearInterval(timer);
    timer = undefined;
  };

  const enter = async (key: CacheKey, member: string): Promise<number> => {
    const redis = await client();
    const t = now().getTime();
    const count = await guardRedis(redis, () =>
      evalScript(redis, ENTER_SCRIPT, [key], [t, t + ttlMs, member, 2 * ttlMs]),
    );
    return Number(count);
  };

  const leave = async (key: CacheKey, member: string): Promise<void> => {
    release(member);
    try {
      const redis = await client();
      await guardRedis(redis, () => redis.zrem(key, member));
    } catch (err) {
      report(err, 'done');
    }
  };

  return {
    async startReconcile(start: ReconcileStart): Promise<InFlight> {
      const key = workersKey(start.controller);
      const member = workerMember(opts.instance, rand());
      let count: number;
      try {
        count = await enter(key, member);
      } catch (err) {
        report(err, 'count');
        return notCounted;
      }
      hold(member, key);
      if (shouldLogWorkers(count, start.instances, start.concurrency)) {
        const line = workerThreadsLine(start.controller, start.kind, count);
        log.info(line.msg, line.fields);
      }
      let finished: Promise<void> | undefined;
      return { count, done: () => (finished ??= leave(key, member)) };
    },
    async count(controller: string): Promise<number | undefined> {
      const key = workersKey(controller);
      try {
        const redis = await client();
        return await guardRedis(redis, () => redis.zcount(key, `(${now().getTime()}`, '+inf'));
      } catch (err) {
        report(err, 'count');
        return undefined;
      }
    },
    stop(): void {
      if (timer !== undefined) timers.clearInterval(timer);
      timer = undefined;
      held.clear();
    },
  };
}
