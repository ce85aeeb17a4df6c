/**
 * The open jobs the responsibility check already sent to a deployer (`uid/jobID/version/deployer`),
 * so that the next events of that job (the deployer's own finalizer write, a label) do not send it
 * again. Per instance without Redis; with Redis shared by every instance of the check (a key with
 * a TTL), because the event of the deployer's finalizer write lands on any of them: without it,
 * two of three such events sent the job a second time (stop 33's bench: 2.67 reconcile events per
 * item where 2 were due).
 *
 * A claim names the event it was made for: a redelivery of that event (the broker retries it when
 * its send failed, or when the reply that carried the job was not published) may send the job
 * again; any other event of the job may not. A claim is local first (two events of one job in
 * flight in one instance claim it once, without a round trip), then in Redis (one script). Redis
 * unavailable: the claim is granted (the job is sent; a deployer copes with a job sent twice: its
 * lock and its memo of finished jobs), said once in the log.
 */
import type { Logger } from '../../shared/log/index.js';
import {
  evalScript,
  guardRedis,
  keyspace,
  RedisUnavailableError,
  type RedisHandle,
} from '../../shared/redis/index.js';

export interface SentJobs {
  /**
   * True when `key` was not claimed yet (now it is, by `by`: the id of the event being handled),
   * or was claimed by `by` itself: a redelivery of the event that claimed it (its send, or the
   * reply that carried it, may not have gone out). False: sent for another event.
   */
  claim(key: string, by: string): Promise<boolean>;
  /** Forgets `key` if `by` holds it: its send failed, or no send was made. */
  unclaim(key: string, by: string): Promise<void>;
}

/** How long a sent job is remembered: the events of the deployer's writes arrive within seconds. */
export const SENT_JOB_TTL_S = 600;

/** Claims of this instance, the oldest forgotten first beyond `max`. */
class Claims {
  private readonly byKey = new Map<string, string>();
  constructor(private readonly max = 10_000) {}
  holder(key: string): string | undefined {
    return this.byKey.get(key);
  }
  set(key: string, by: string): void {
    this.byKey.delete(key);
    this.byKey.set(key, by);
    if (this.byKey.size > this.max) this.byKey.delete(this.byKey.keys().next().value as string);
  }
  delete(key: string, by: string): void {
    if (this.byKey.get(key) === by) this.byKey.delete(key);
  }
}

/** This instance's memory only. */
export function localSentJobs(max?: number): SentJobs & { hold(key: string, by: string): void } {
  const claims = new Claims(max);
  return {
    hold: (key, by) => claims.set(key, by),
    claim: (key, by) => {
      const holder = claims.holder(key);
      if (holder !== undefined && holder !== by) return Promise.resolve(false);
      claims.set(key, by);
      return Promise.resolve(true);
    },
    unclaim: (key, by) => {
      claims.delete(key, by);
      return Promise.resolve();
    },
  };
}

/** The holder: ARGV[1] when claimed now (or held by it already), else the event that holds it. */
const CLAIM = `local v = redis.call('GET', KEYS[1])
if not v then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) return ARGV[1] end
return v`;

/** Deletes the key only while ARGV[1] holds it. */
const UNCLAIM = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Shared by the instances of `functionName` through Redis (`landscape:<fn>-sent:<key>`), this instance's memory in front. */
export function sharedSentJobs(
  redis: RedisHandle,
  functionName: string,
  log: Logger,
  max?: number,
): SentJobs {
  const keys = keyspace(`${functionName}-sent`);
  const local = localSentJobs(max);
  let saidDown = false;
  // any Redis failure (unreachable, OOM, READONLY after a failover, ...): remembered here only
  const failed = (err: unknown): void => {
    if (saidDown) return;
    saidDown = true;
    const error = err instanceof Error ? err.message : String(err);
    const what = err instanceof RedisUnavailableError ? 'unavailable' : 'failing';
    log.warn(`Redis is ${what}: open jobs are remembered by this instance only`, { error });
  };
  const run = async (script: string, key: string, args: Array<string | number>): Promise<unknown> => {
    const client = await redis.get();
    return guardRedis(client, () => evalScript(client, script, [keys.key(key)], args));
  };
  return {
    claim: async (key, by) => {
      if (!(await local.claim(key, by))) return false;
      try {
        const holder = String(await run(CLAIM, key, [by, SENT_JOB_TTL_S]));
        saidDown = false;
        // another instance's claim: remembered here as that event's
        if (holder !== by) local.hold(key, holder);
        return holder === by;
      } catch (err) {
        failed(err);
        return true;
      }
    },
    unclaim: async (key, by) => {
      await local.unclaim(key, by);
      try {
        await run(UNCLAIM, key, [by]);
      } catch (err) {
        // the key expires: until then another event of this job is not sent (a resync sends it)
        failed(err);
      }
    },
  };
}
