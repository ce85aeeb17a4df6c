/**
 * The open jobs the responsibility check already sent to a deployer (`uid/jobID/version/deployer`),
 * so that the next events of that job (the deployer's own finalizer write, a label) do not send it
 * again. Per instance without Redis; with Redis shared by every instance of the check (SET NX with
 * a TTL), because the event of the deployer's finalizer write lands on any of them: without it, two
 * of three such events sent the job a second time (stop 33's bench: 2.67 reconcile events per item
 * where 2 were due).
 *
 * A claim is local first (two events of one job in flight in one instance claim it once, without a
 * round trip), then in Redis. Redis unavailable: the claim is granted (the job is sent; a deployer
 * copes with a job sent twice: its lock and its memo of finished jobs), said once in the log.
 */
import { BoundedSet } from '../../shared/deployer/items.js';
import type { Logger } from '../../shared/log/index.js';
import { guardRedis, keyspace, RedisUnavailableError, type RedisHandle } from '../../shared/redis/index.js';

export interface SentJobs {
  /** True when `key` was not claimed yet, and now is: the job is to be sent. */
  claim(key: string): Promise<boolean>;
  /** Forgets `key`: its send failed, or no send was made. */
  unclaim(key: string): Promise<void>;
}

/** How long a sent job is remembered: the events of the deployer's writes arrive within seconds. */
export const SENT_JOB_TTL_S = 600;

/** This instance's memory only. */
export function localSentJobs(set = new BoundedSet()): SentJobs {
  return {
    claim: (key) => {
      if (set.has(key)) return Promise.resolve(false);
      set.add(key);
      return Promise.resolve(true);
    },
    unclaim: (key) => {
      set.delete(key);
      return Promise.resolve();
    },
  };
}

/** Shared by the instances of `functionName` through Redis (`landscape:<fn>-sent:<key>`), this instance's memory in front. */
export function sharedSentJobs(
  redis: RedisHandle,
  functionName: string,
  log: Logger,
  set = new BoundedSet(),
): SentJobs {
  const keys = keyspace(`${functionName}-sent`);
  const local = localSentJobs(set);
  let saidDown = false;
  const unavailable = (err: unknown): boolean => {
    if (!(err instanceof RedisUnavailableError)) return false;
    if (!saidDown) {
      saidDown = true;
      log.warn('Redis is unavailable: open jobs are remembered by this instance only', {
        error: err.message,
      });
    }
    return true;
  };
  return {
    claim: async (key) => {
      if (!(await local.claim(key))) return false;
      try {
        const client = await redis.get();
        const set = await guardRedis(client, () =>
          client.set(keys.key(key), '1', 'EX', SENT_JOB_TTL_S, 'NX'),
        );
        saidDown = false;
        return set === 'OK';
      } catch (err) {
        if (unavailable(err)) return true;
        await local.unclaim(key);
        throw err;
      }
    },
    unclaim: async (key) => {
      await local.unclaim(key);
      try {
        const client = await redis.get();
        await guardRedis(client, () => client.del(keys.key(key)));
      } catch (err) {
        // the key expires: until then another event of this job is not sent (a resync sends it)
        if (!unavailable(err)) throw err;
      }
    },
  };
}
