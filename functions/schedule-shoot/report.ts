/**
 * What the scheduler writes besides the binding: core/v1 Events on the Shoot (as upstream's event
 * recorder writes them), `status.lastOperation` of a shoot that could not be scheduled, and the
 * retries (shared/requeue: `dev.landscape.requeue` events for this function, with exponential
 * backoff per shoot counted in `landscape:schedule-shoot:attempts`).
 */
import type { Shoot } from '../../shared/api/core.js';
import { GVK } from '../../shared/api/gvk.js';
import { guardRedis, type Redis } from '../../shared/redis/index.js';
import type { EventObjectRef } from '../../shared/function/index.js';
import { newEventObject } from '../../shared/kube/events.js';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { backoffDelay, cancel, requeue, type ObjectRef } from '../../shared/requeue/index.js';
import { schedulingFailedLastOperation, ShootSchedulingEvents, type ScheduleEvent } from './scheduler.js';
import { FUNCTION_NAME, type ScheduleShootConfig } from './config.js';
import { KEYS, keyOfShoot } from './usage.js';

/** Shoot key → failed attempts so far (the backoff exponent). */
export const ATTEMPTS_KEY = KEYS.key('attempts');
/** The Event source, as upstream's scheduler names its recorder. */
export const EVENT_COMPONENT = 'gardener-scheduler';

export interface ReportDeps {
  client: KubeClient;
  redis: () => Promise<Redis>;
  now: () => number;
  rand: () => number;
  newId: () => string;
  log: Logger;
}

function requeueRef(ref: EventObjectRef): ObjectRef {
  return { kind: 'Shoot', namespace: ref.namespace, name: ref.name };
}

function refOfShoot(shoot: Shoot): EventObjectRef {
  return { namespace: shoot.metadata?.namespace ?? '', name: shoot.metadata?.name ?? '' };
}

/** A core/v1 Event on the shoot (pure). */
export function shootEventObject(
  shoot: Shoot,
  event: ScheduleEvent,
  opts: { now: Date; newId: () => string },
): Record<string, unknown> {
  return newEventObject(GVK.Shoot, shoot.metadata, event, { component: EVENT_COMPONENT, ...opts });
}

/** Records the Event; a failure is logged, not thrown (the decision stands without it). */
export async function recordShootEvent(deps: ReportDeps, shoot: Shoot, event: ScheduleEvent): Promise<void> {
  try {
    await deps.client.create(
      GVK.Event,
      shootEventObject(shoot, event, { now: new Date(deps.now()), newId: deps.newId }),
    );
  } catch (err) {
    deps.log.warn('cannot record the Event', {
      shoot: keyOfShoot(shoot),
      reason: event.reason,
      error: String(err),
    });
  }
}

/** The shoot was scheduled (or needs no scheduler any more): its retries end. */
export async function clearRetry(deps: ReportDeps, ref: EventObjectRef): Promise<void> {
  const redis = await deps.redis();
  const key = `${ref.namespace}/${ref.name}`;
  const had = await guardRedis(redis, () => redis.hdel(ATTEMPTS_KEY, key));
  if (had > 0) await cancel(redis, FUNCTION_NAME, requeueRef(ref));
}

/** Looks at the shoot again after `delayMs` (an earlier queued look is kept). */
export async function requeueShoot(deps: ReportDeps, ref: EventObjectRef, delayMs: number): Promise<void> {
  const at = new Date(deps.now() + Math.max(0, delayMs));
  await requeue(await deps.redis(), { target: FUNCTION_NAME, ...requeueRef(ref), at });
}

function sameFailure(shoot: Shoot, description: string): boolean {
  const last = shoot.status?.lastOperation;
  return last?.type === 'Create' && last.state === 'Pending' && last.description === description;
}

async function writeFailure(deps: ReportDeps, shoot: Shoot, description: string): Promise<void> {
  await recordShootEvent(deps, shoot, {
    type: 'Warning',
    reason: ShootSchedulingEvents.failed,
    message: description,
  });
  const lastOperation = schedulingFailedLastOperation(description, new Date(deps.now()));
  try {
    await deps.client.patchStatus(GVK.Shoot, refOfShoot(shoot), { status: { lastOperation } });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * A shoot that could not be scheduled: the SchedulingFailed Event and `status.lastOperation`
 * {Create, Pending, description}, then a retry with backoff. The Event and the status are written
 * on every retry (a requeue event) and whenever the description changes, but not again for an API
 * event that finds the same failure — the status write's own update event would otherwise loop
 * past the backoff. Returns the delay of the retry.
 */
export async function reportFailure(
  deps: ReportDeps,
  config: ScheduleShootConfig,
  shoot: Shoot,
  description: string,
  viaRequeue: boolean,
): Promise<number> {
  const redis = await deps.redis();
  const key = keyOfShoot(shoot);
  let attempt: number;
  if (viaRequeue || !sameFailure(shoot, description)) {
    await writeFailure(deps, shoot, description);
    attempt = (await guardRedis(redis, () => redis.hincrby(ATTEMPTS_KEY, key, 1))) - 1;
  } else {
    attempt = Number(await guardRedis(redis, () => redis.hget(ATTEMPTS_KEY, key))) || 0;
  }
  const delayMs = backoffDelay({
    attempt,
    baseMs: config.retrySyncPeriod,
    maxMs: config.maxRetryPeriod,
    rand: deps.rand,
  });
  await requeueShoot(deps, refOfShoot(shoot), delayMs);
  deps.log.info('Failed to schedule Shoot', { shoot: key, description, attempt, retryInMs: delayMs });
  return delayMs;
}
