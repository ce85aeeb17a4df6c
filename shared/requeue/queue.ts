/**
 * The requeue primitive over Redis. One sorted set per target function; member = object key,
 * score = due time. `due` pops atomically (one Lua script), so two tickers never hand the same
 * item over twice. Every failure to reach Redis is a RedisUnavailableError (transient).
 */
import { evalScript, guardRedis, type Redis } from '../redis/index.js';
import {
  decodeMember,
  encodeMember,
  queueKey,
  RequeueError,
  scoreOf,
  TARGETS_KEY,
  type ObjectRef,
  type RequeueItem,
  type RequeueMode,
} from './model.js';

export interface RequeueOptions {
  /** Default `earliest` (see REQUEUE_MODES). */
  mode?: RequeueMode;
}

const ZADD_FLAG = { earliest: 'LT', latest: 'GT' } as const;

/**
 * Records "look at `item` again at `item.at`" for `item.target`. Idempotent per object: queuing
 * the same object twice keeps one entry, at the earlier time unless `mode` says otherwise.
 * Returns whether the queued time changed (or the item was added).
 */
export async function requeue(redis: Redis, item: RequeueItem, opts: RequeueOptions = {}): Promise<boolean> {
  const key = queueKey(item.target);
  const member = encodeMember(item);
  const score = scoreOf(item.at);
  const mode = opts.mode ?? 'earliest';
  const result = await guardRedis(redis, () => {
    const tx = redis.multi();
    if (mode === 'replace') tx.zadd(key, 'CH', score, member);
    else tx.zadd(key, ZADD_FLAG[mode], 'CH', score, member);
    tx.sadd(TARGETS_KEY, item.target);
    return tx.exec();
  });
  if (!result) throw new RequeueError('requeue transaction was aborted');
  const [zaddErr, changed] = result[0] ?? [];
  if (zaddErr) throw zaddErr;
  return Number(changed) > 0;
}

/** Removes the object from the target's queue; true when it was queued. */
export async function cancel(redis: Redis, target: string, ref: ObjectRef): Promise<boolean> {
  const key = queueKey(target);
  const member = encodeMember(ref);
  return (await guardRedis(redis, () => redis.zrem(key, member))) > 0;
}

/** An item handed over by {@link due}: removed from the queue, to be emitted now. */
export type DueItem = RequeueItem;

/**
 * Pops (atomically) up to `limit` items that are due: ZRANGEBYSCORE and ZREM in one Lua script.
 * Two tickers running at once get disjoint items.
 */
const POP_DUE = `
local items = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
for i = 1, #items, 2 do
  redis.call('ZREM', KEYS[1], items[i])
end
return items
`;

/** `[member, score, member, score, ...]` from a flat (RESP2) or paired (RESP3) reply (pure). */
function flatten(reply: readonly unknown[]): unknown[] {
  return reply.flatMap((r) => (Array.isArray(r) ? (r as unknown[]) : [r]));
}

/** Decodes a `[member, score, ...]` reply (flat or in pairs) into items; skips foreign members (pure). */
export function decodeDue(target: string, reply: readonly unknown[]): DueItem[] {
  const flat = flatten(reply);
  const out: DueItem[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const ref = decodeMember(String(flat[i]));
    const score = Number(flat[i + 1]);
    if (ref && Number.isFinite(score)) out.push({ target, ...ref, at: new Date(score) });
  }
  return out;
}

/** Pops the items of `target` due at `now`, earliest first, at most `limit`. */
export async function due(redis: Redis, target: string, now: Date, limit: number): Promise<DueItem[]> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RequeueError(`limit must be a positive integer, got ${limit}`);
  const key = queueKey(target);
  const reply = await guardRedis(redis, () => evalScript(redis, POP_DUE, [key], [scoreOf(now), limit]));
  return decodeDue(target, Array.isArray(reply) ? reply : []);
}

/** The queued items of `target` (not removed), earliest first: for status and tests. */
export async function pending(redis: Redis, target: string, limit = 1000): Promise<RequeueItem[]> {
  const key = queueKey(target);
  const reply = await guardRedis(redis, () => redis.zrange(key, 0, String(limit - 1), 'WITHSCORES'));
  return decodeDue(target, reply);
}

/** Every target that has been requeued to, sorted. */
export async function knownTargets(redis: Redis): Promise<string[]> {
  const members = await guardRedis(redis, () => redis.smembers(TARGETS_KEY));
  return [...members].sort();
}

/**
 * Puts handed-over items back (earliest mode, at their original times) when emitting them
 * failed, so a failed delivery is retried on the next tick instead of being lost.
 */
export async function restore(redis: Redis, items: readonly DueItem[]): Promise<void> {
  for (const item of items) await requeue(redis, item, { mode: 'earliest' });
}
