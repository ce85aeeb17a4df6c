/**
 * The requeue model (pure): what is queued, how it is encoded in the sorted set, and the due-time
 * math. DESIGN "Requeue, never wait": a handler records "look at X again at time T" in a Redis
 * sorted set per target function; the requeue ticker re-emits `dev.landscape.requeue` when due.
 *
 * Member = the object key `<kind>/<namespace>/<name>` (namespace empty for cluster-scoped
 * objects), so one object is queued at most once per target; score = the due time in epoch ms.
 */
import { isOneOf } from '@landscape/apimachinery';
import { isFamilyName, keyspace, type CacheKey } from '../redis/index.js';

/** What a requeue points at (the `kind`, `namespace`, `name` attributes of the event). */
export interface ObjectRef {
  kind: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
}

export interface RequeueItem extends ObjectRef {
  /** The function the `dev.landscape.requeue` event is for (its Trigger filters on `target`). */
  target: string;
  /** When the object should be looked at again. */
  at: Date;
}

/**
 * What happens when the object is already queued for the target:
 * - `earliest` (default): keep the earlier of the two times. A handler that asks to look again
 *   in 5 minutes must not postpone an earlier look someone else asked for; looking early is
 *   harmless (reconciles are level-based and idempotent), looking late is not.
 * - `replace`: the new time wins (e.g. a handler that knows the old time is obsolete).
 * - `latest`: keep the later time (a "not before" that debounces).
 */
export const REQUEUE_MODES = ['earliest', 'replace', 'latest'] as const;
export type RequeueMode = (typeof REQUEUE_MODES)[number];

export const isRequeueMode: (value: unknown) => value is RequeueMode = isOneOf(REQUEUE_MODES);

/** Bad input to the requeue primitive (a programming error, not retried). */
export class RequeueError extends Error {
  override readonly name = 'RequeueError';
  readonly transient = false;
}

const KIND = /^[A-Za-z][A-Za-z0-9]*$/;
const SEGMENT = /^[^/\s]+$/;

export const REQUEUE_KEYS = keyspace('requeue');

/** The sorted set of one target function. */
export function queueKey(target: string): CacheKey {
  if (!isFamilyName(target)) throw new RequeueError(`invalid requeue target ${JSON.stringify(target)}`);
  return REQUEUE_KEYS.key('queue', target);
}

/** The set of every target that has ever been requeued to (so the ticker finds them all). */
export const TARGETS_KEY: CacheKey = REQUEUE_KEYS.key('targets');

export function validateRef(ref: ObjectRef): ObjectRef {
  if (!KIND.test(ref.kind)) throw new RequeueError(`invalid kind ${JSON.stringify(ref.kind)}`);
  if (!SEGMENT.test(ref.name)) throw new RequeueError(`invalid name ${JSON.stringify(ref.name)}`);
  if (ref.namespace !== '' && !SEGMENT.test(ref.namespace)) {
    throw new RequeueError(`invalid namespace ${JSON.stringify(ref.namespace)}`);
  }
  return ref;
}

/** `<kind>/<namespace>/<name>`. */
export function encodeMember(ref: ObjectRef): string {
  validateRef(ref);
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** The object of a member, or undefined when it is not one this module wrote. */
export function decodeMember(member: string): ObjectRef | undefined {
  const parts = member.split('/');
  if (parts.length !== 3) return undefined;
  const [kind, namespace, name] = parts as [string, string, string];
  try {
    return validateRef({ kind, namespace, name });
  } catch {
    return undefined;
  }
}

/** The score of a due time (epoch ms). */
export function scoreOf(at: Date): number {
  const ms = at.getTime();
  if (!Number.isFinite(ms)) throw new RequeueError('requeue time is not a valid date');
  return ms;
}

/** The time a merge under `mode` keeps, given the queued score (if any) and the new one. */
export function mergeScore(
  existing: number | undefined,
  next: number,
  mode: RequeueMode = 'earliest',
): number {
  if (existing === undefined || mode === 'replace') return next;
  return mode === 'earliest' ? Math.min(existing, next) : Math.max(existing, next);
}

/** Whether an item queued at `score` is due at `now`. */
export function isDue(score: number, now: Date): boolean {
  return score <= now.getTime();
}

/** `now + delayMs` (delay clamped at 0). */
export function after(now: Date, delayMs: number): Date {
  return new Date(now.getTime() + Math.max(0, delayMs));
}

export interface BackoffOptions {
  /** 0 for the first retry. */
  attempt: number;
  baseMs: number;
  maxMs: number;
  /** [0, 1); with it the delay is spread over [delay/2, delay) ("equal jitter"). */
  rand?: () => number;
}

/** Exponential backoff for a requeue after a failed attempt: base × 2^attempt, capped at max. */
export function backoffDelay(opts: BackoffOptions): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, opts.attempt));
  if (!opts.rand) return exp;
  return Math.floor(exp / 2 + (exp / 2) * opts.rand());
}
