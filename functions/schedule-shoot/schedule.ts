/**
 * The shoot scheduler's I/O around ./scheduler.ts, for one Shoot event:
 *
 * 1. Read the Shoot (gone: it counts nowhere any more) and apply it to the usage counts (./usage.ts).
 * 2. When `shouldSchedule`: read the Seeds (./seed-cache.ts), the CloudProfile and the region
 *    configs (./inputs.ts), then decide reading the counts of the seeds the decision needs only
 *    (./scheduler-fast.ts: the same decision as `decideSchedule` with every count).
 * 3. On success reserve a slot on the chosen seed atomically (only while usage < allocatable) and
 *    bind as gardener-scheduler does (pkg/scheduler/controller/shoot/reconciler.go:
 *    `SubResource("binding").Update(ctx, shoot)`): a PUT of the whole Shoot with `spec.seedName`
 *    set to `shoots/binding`, the only way gardener-apiserver lets `spec.seedName` change. The
 *    body carries `metadata.resourceVersion`, so the API server refuses it (Conflict) when the
 *    shoot changed — a shoot is never bound twice. A full seed (other replicas took the last
 *    slots) or a conflict means deciding again with fresh counts and a fresh shoot,
 *    `reserveAttempts` times at most; then the shoot is requeued. Event SchedulingSuccessful.
 * 4. On failure — no seed fits, or the API server refused the binding (403/422: its admission
 *    checks, e.g. a seed being deleted): Event SchedulingFailed, `status.lastOperation`, retry
 *    with backoff (./report.ts), as gardener-scheduler's reportFailedScheduling.
 */
import type { Shoot } from '../../shared/api/core.js';
import { GVK } from '../../shared/api/gvk.js';
import type { Redis } from '../../shared/redis/index.js';
import type { EventObjectRef } from '../../shared/function/index.js';
import {
  isConflict,
  isInvalid,
  isNotFound,
  statusCode,
  statusOf,
  type KubeClient,
} from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { shouldSchedule, type ScheduleSuccess, type SchedulerConfig } from './scheduler.js';
import { decideReadingCounts } from './scheduler-counts.js';
import type { ScheduleShootConfig } from './config.js';
import { allocatableShoots, loadInputs, readShoot, type DecisionInputs, type SeedLister } from './inputs.js';
import { clearRetry, recordShootEvent, reportFailure, requeueShoot } from './report.js';
import { keyOfShoot, shootKey, type UsageStore } from './usage.js';

export interface ScheduleDeps {
  client: KubeClient;
  /** The Seeds (cached briefly per instance; see cachedSeeds). */
  seeds?: SeedLister;
  redis: () => Promise<Redis>;
  usage: UsageStore;
  now: () => number;
  rand: () => number;
  newId: () => string;
  log: Logger;
}

export type ScheduleOutcome =
  /** The shoot does not exist (any more). */
  | { result: 'deleted' }
  /** Nothing to schedule: bound already, another scheduler's, or being deleted. */
  | { result: 'skipped'; seedName?: string }
  | { result: 'scheduled'; seedName: string }
  | { result: 'failed'; description: string; retryInMs: number }
  /** Another replica holds a reservation for this shoot (it is binding it). */
  | { result: 'busy'; retryInMs: number }
  /** Every attempt lost a race (full seeds, conflicts): looked at again soon. */
  | { result: 'retry'; retryInMs: number };

/** One attempt: an outcome, or the shoot to decide again for. */
type Step = { outcome: ScheduleOutcome } | { again: Shoot };

/** How soon a shoot that lost every race is looked at again. */
const CONTENTION_RETRY_MS = 1000;

function refOf(shoot: Shoot): EventObjectRef {
  return { namespace: shoot.metadata?.namespace ?? '', name: shoot.metadata?.name ?? '' };
}

function schedulerConfig(config: ScheduleShootConfig): SchedulerConfig {
  return {
    candidateDeterminationStrategy: config.candidateDeterminationStrategy,
    ...(config.scoring ? { scoring: config.scoring } : {}),
  };
}

async function gone(deps: ScheduleDeps, ref: EventObjectRef): Promise<ScheduleOutcome> {
  await deps.usage.forget(shootKey(ref.namespace, ref.name));
  await clearRetry(deps, ref);
  return { result: 'deleted' };
}

async function failed(
  deps: ScheduleDeps,
  config: ScheduleShootConfig,
  shoot: Shoot,
  description: string,
  viaRequeue: boolean,
): Promise<{ outcome: ScheduleOutcome }> {
  const retryInMs = await reportFailure(deps, config, shoot, description, viaRequeue);
  return { outcome: { result: 'failed', description, retryInMs } };
}

/** After a lost bind: the shoot as it is now, applied to the counts; an outcome when it needs no scheduling. */
async function reread(deps: ScheduleDeps, config: ScheduleShootConfig, shoot: Shoot): Promise<Step> {
  const fresh = await readShoot(deps.client, refOf(shoot));
  if (!fresh) return { outcome: await gone(deps, refOf(shoot)) };
  await deps.usage.sync(fresh);
  if (shouldSchedule(fresh, config.schedulerName)) return { again: fresh };
  return { outcome: { result: 'skipped', seedName: fresh.spec.seedName } };
}

/** The body of the binding: the Shoot as read (its resourceVersion too) with `spec.seedName` set. */
export function bindingOf(shoot: Shoot, seedName: string): Shoot {
  return { ...shoot, spec: { ...shoot.spec, seedName } };
}

/** The API server's definite refusal of a binding (its admission checks): it did not happen. */
function isRefused(err: unknown): boolean {
  return statusCode(err) === 403 || isInvalid(err);
}

/** Binds the shoot to the reserved seed, optimistically (resourceVersion precondition). */
async function bind(
  deps: ScheduleDeps,
  config: ScheduleShootConfig,
  shoot: Shoot,
  decision: ScheduleSuccess,
  viaRequeue: boolean,
): Promise<Step> {
  const ref = refOf(shoot);
  let bound: Shoot;
  try {
    bound = await deps.client.replace<Shoot>(GVK.Shoot, bindingOf(shoot, decision.seedName), {
      subresource: 'binding',
    });
  } catch (err) {
    // Another error leaves the reservation to expire: the binding may have happened.
    if (isNotFound(err)) return { outcome: await gone(deps, ref) };
    if (isRefused(err)) {
      await deps.usage.release(keyOfShoot(shoot), decision.seedName);
      const message = statusOf(err)?.message ?? (err as Error).message;
      return failed(deps, config, shoot, `Failed to schedule Shoot: ${message}`, viaRequeue);
    }
    if (!isConflict(err)) throw err;
    await deps.usage.release(keyOfShoot(shoot), decision.seedName);
    deps.log.debug('the shoot changed while scheduling; deciding again', { shoot: keyOfShoot(shoot) });
    return reread(deps, config, shoot);
  }
  await deps.usage.sync(bound);
  await recordShootEvent(deps, bound, decision.event);
  await clearRetry(deps, ref);
  deps.log.info('Shoot successfully scheduled to seed', {
    shoot: keyOfShoot(shoot),
    seed: decision.seedName,
    candidates: decision.candidates,
  });
  return { outcome: { result: 'scheduled', seedName: decision.seedName } };
}

/** Decide with fresh counts, reserve, bind. */
async function attempt(
  deps: ScheduleDeps,
  config: ScheduleShootConfig,
  shoot: Shoot,
  inputs: DecisionInputs,
  viaRequeue: boolean,
): Promise<Step> {
  const decision = await decideReadingCounts({ shoot, ...inputs, config: schedulerConfig(config) }, (names) =>
    deps.usage.countsOf(names),
  );
  if (!decision.ok) return failed(deps, config, shoot, decision.description, viaRequeue);
  const key = keyOfShoot(shoot);
  const reserved = await deps.usage.reserve(key, decision.seedName, allocatableShoots(decision.seed));
  if (reserved.result === 'busy') {
    await requeueShoot(deps, refOf(shoot), config.reservationTimeout);
    deps.log.debug('another replica is binding the shoot', { shoot: key, seed: reserved.seed });
    return { outcome: { result: 'busy', retryInMs: config.reservationTimeout } };
  }
  if (reserved.result === 'full') {
    deps.log.debug('the seed filled up meanwhile; deciding again', { shoot: key, seed: decision.seedName });
    return { again: shoot };
  }
  return bind(deps, config, shoot, decision, viaRequeue);
}

/** Steps 2–4 for a shoot that should be scheduled. */
async function schedule(
  deps: ScheduleDeps,
  config: ScheduleShootConfig,
  shoot: Shoot,
  viaRequeue: boolean,
): Promise<ScheduleOutcome> {
  const loaded = await loadInputs(deps.client, config, shoot, deps.seeds);
  if (!loaded.ok) {
    const description = `Failed to schedule Shoot: ${loaded.message}`;
    return (await failed(deps, config, shoot, description, viaRequeue)).outcome;
  }
  let current = shoot;
  for (let i = 0; i < config.reserveAttempts; i++) {
    const step = await attempt(deps, config, current, loaded.inputs, viaRequeue);
    if ('outcome' in step) return step.outcome;
    current = step.again;
  }
  await requeueShoot(deps, refOf(current), CONTENTION_RETRY_MS);
  deps.log.info('every scheduling attempt lost a race; looking again soon', {
    shoot: keyOfShoot(current),
    attempts: config.reserveAttempts,
  });
  return { result: 'retry', retryInMs: CONTENTION_RETRY_MS };
}

/** One Shoot event (an API-server event or a requeue): level-based, idempotent. */
export async function reconcileShoot(
  deps: ScheduleDeps,
  config: ScheduleShootConfig,
  ref: EventObjectRef,
  viaRequeue: boolean,
): Promise<ScheduleOutcome> {
  const shoot = await readShoot(deps.client, ref);
  if (!shoot) return gone(deps, ref);
  await deps.usage.sync(shoot);
  if (!shouldSchedule(shoot, config.schedulerName)) {
    await clearRetry(deps, ref);
    return { result: 'skipped', seedName: shoot.spec.seedName };
  }
  return schedule(deps, config, shoot, viaRequeue);
}
