/**
 * Running a scaling plan across invocations, pure ("Requeue, never wait"): upstream's scaler
 * sleeps (initialDelay, retry back-off) and polls readyReplicas inside one goroutine; a function
 * cannot, so the progress of one scaling run is a `ScaleFlow` value (kept in Redis by probe-tick)
 * and each pass over it decides what is due now.
 *
 * Per pass over the current level: `needs()` says which resources to observe (metadata + scale
 * subresource to plan, or readiness), `stepLevel()` turns those observations into operations to
 * run now, the time of the next pass, or the level's outcome; `recordOperations()` folds what the
 * operations did back into the flow. Semantics as upstream: levels ascending, same level in
 * parallel, each resource after its initialDelay (again on every attempt), 3 attempts 100 ms
 * apart, then the ready wait (5 s, polled every second); a level with any failure stops later
 * levels with ERR_SCALE_UP / ERR_SCALE_DOWN.
 */
import type { ProberConfig } from '../../shared/watchdog/config.js';
import { formatProbeError, type ProbeErrorCode } from './lease.js';
import {
  MAX_SCALE_ATTEMPTS,
  minTargetReplicasReached,
  orderLevels,
  resourceKey,
  SCALE_RETRY_BACKOFF_MS,
  waitTimeoutMessage,
  type ResourcePlan,
  type ScalableResource,
  type ScaleDirection,
  type ScaleOperation,
} from './scaler.js';

/** One attempt at a resource's operations and wait. */
export interface ResourceAttempt {
  ok: boolean;
  error?: string;
}

/** A resource's progress in the current level. Times are ms since the epoch. */
export interface ResourceRun {
  attempts: ResourceAttempt[];
  /** delay: operations run once `now >= at`; wait: readiness is checked at `at` until `deadline`. */
  phase: 'delay' | 'wait';
  at: number;
  deadline?: number;
}

/** One scaling run in one direction. */
export interface ScaleFlow {
  direction: ScaleDirection;
  /** Index into the direction's ordered levels. */
  levelIndex: number;
  levelStartedAt: number;
  startedAt: number;
  /** By resourceKey(), for the current level only. */
  runs: Record<string, ResourceRun>;
}

export function startFlow(direction: ScaleDirection, now: number): ScaleFlow {
  return { direction, levelIndex: 0, levelStartedAt: now, startedAt: now, runs: {} };
}

/** The dependents scaled in `direction` (those with that direction's scale info), in config order. */
export function dependents(
  config: Pick<ProberConfig, 'dependentResourceInfos'>,
  direction: ScaleDirection,
): ScalableResource[] {
  return config.dependentResourceInfos.flatMap((d) => {
    const info = direction === 'up' ? d.scaleUp : d.scaleDown;
    if (info === undefined) return [];
    return [
      {
        apiVersion: d.ref.apiVersion,
        kind: d.ref.kind,
        name: d.ref.name,
        level: info.level,
        optional: d.optional,
        initialDelayMs: info.initialDelay,
        timeoutMs: info.timeout,
      },
    ];
  });
}

/** The direction's levels (ascending; same level keeps config order). */
export function flowLevels(
  config: Pick<ProberConfig, 'dependentResourceInfos'>,
  direction: ScaleDirection,
): { level: number; resources: ScalableResource[] }[] {
  return orderLevels(dependents(config, direction));
}

/** What a pass must observe about a resource: `plan` (metadata + scale), `ready` (readyReplicas) or nothing. */
export type Need = 'plan' | 'ready' | 'none';

function isDone(run: ResourceRun | undefined): boolean {
  return run?.attempts.some((a) => a.ok) === true;
}

function isExhausted(run: ResourceRun | undefined): boolean {
  return (run?.attempts.length ?? 0) >= MAX_SCALE_ATTEMPTS;
}

/**
 * What to observe now for each resource of the level. A resource not yet started is observed at
 * once: when it needs no operation (already at its target, optional and missing, ignored) its
 * initialDelay is not waited; otherwise it is observed again when the delay is over, right before
 * its operations run.
 */
export function needs(
  flow: ScaleFlow,
  level: readonly ScalableResource[],
  now: number,
): Record<string, Need> {
  const out: Record<string, Need> = {};
  for (const r of level) {
    const key = resourceKey(r);
    const run = flow.runs[key];
    if (isDone(run) || isExhausted(run)) out[key] = 'none';
    else if (run === undefined) out[key] = 'plan';
    else if (run.phase === 'wait') out[key] = run.at <= now ? 'ready' : 'none';
    else out[key] = run.at <= now ? 'plan' : 'none';
  }
  return out;
}

export interface Observation {
  /** Present when the need was `plan`. */
  plan?: ResourcePlan;
  /** Present when the need was `ready`; may come with a plan (read from the same object). */
  readyReplicas?: number;
}

export interface Operate {
  key: string;
  attempt: number;
  operations: ScaleOperation[];
}

export type LevelOutcome =
  | { kind: 'pending'; operate: Operate[]; due: number }
  | { kind: 'done' }
  | { kind: 'failed'; errors: { key: string; error: string }[] };

type Verdict =
  | { v: 'done'; run: ResourceRun }
  | { v: 'failed'; run: ResourceRun; error: string }
  | { v: 'later'; run: ResourceRun }
  | { v: 'operate'; run: ResourceRun; operations: ScaleOperation[] };

/** A failed attempt: retried after initialDelay + 100 ms, or final after the 3rd. */
function failAttempt(run: ResourceRun, error: string, r: ScalableResource, now: number): Verdict {
  const attempts = [...run.attempts, { ok: false, error }];
  const next: ResourceRun = { attempts, phase: 'delay', at: now + r.initialDelayMs + SCALE_RETRY_BACKOFF_MS };
  return attempts.length >= MAX_SCALE_ATTEMPTS
    ? { v: 'failed', run: next, error }
    : { v: 'later', run: next };
}

function succeed(run: ResourceRun): Verdict {
  return { v: 'done', run: { ...run, attempts: [...run.attempts, { ok: true }] } };
}

function startWait(run: ResourceRun, plan: ResourcePlan, now: number, checkNow: boolean): ResourceRun {
  const wait = plan.wait!;
  return {
    attempts: run.attempts,
    phase: 'wait',
    at: checkNow ? now : now + wait.intervalMs,
    deadline: now + wait.timeoutMs,
  };
}

function checkReady(
  flow: ScaleFlow,
  r: ScalableResource,
  run: ResourceRun,
  ready: number | undefined,
  namespace: string,
  now: number,
): Verdict {
  if (minTargetReplicasReached(flow.direction, ready)) return succeed(run);
  const min = flow.direction === 'up' ? 1 : 0;
  if (now >= (run.deadline ?? now))
    return failAttempt(run, waitTimeoutMessage(namespace, r.name, min), r, now);
  return { v: 'later', run: { ...run, at: Math.min(now + 1_000, run.deadline ?? now) } };
}

function planned(run: ResourceRun, plan: ResourcePlan, now: number): Verdict {
  if (plan.action === 'error') return { v: 'failed', run, error: plan.error ?? plan.message };
  if (plan.operations.length > 0) return { v: 'operate', run, operations: plan.operations };
  if (plan.wait === undefined) return succeed(run);
  return { v: 'later', run: startWait(run, plan, now, true) };
}

function lastError(run: ResourceRun): string {
  return run.attempts.at(-1)?.error ?? 'failed';
}

/** The resource's run; one not started yet is due at levelStartedAt + initialDelay. */
function runOf(flow: ScaleFlow, r: ScalableResource): ResourceRun {
  return (
    flow.runs[resourceKey(r)] ?? { attempts: [], phase: 'delay', at: flow.levelStartedAt + r.initialDelayMs }
  );
}

/** A fresh plan: run it, unless the resource has just started and must first wait its initialDelay. */
function fromPlan(
  flow: ScaleFlow,
  r: ScalableResource,
  run: ResourceRun,
  obs: Observation & { plan: ResourcePlan },
  ctx: { namespace: string; now: number },
): Verdict {
  const { plan } = obs;
  const starting = flow.runs[resourceKey(r)] === undefined;
  if (starting && plan.operations.length > 0 && run.at > ctx.now) return { v: 'later', run };
  const v = planned(run, plan, ctx.now);
  // nothing to operate, only the wait: readiness observed with the plan counts at once
  if (v.v === 'later' && v.run.phase === 'wait' && obs.readyReplicas !== undefined)
    return checkReady(flow, r, v.run, obs.readyReplicas, ctx.namespace, ctx.now);
  return v;
}

function verdict(
  flow: ScaleFlow,
  r: ScalableResource,
  obs: Observation | undefined,
  namespace: string,
  now: number,
): Verdict {
  const run = runOf(flow, r);
  if (isDone(run)) return { v: 'done', run };
  if (isExhausted(run)) return { v: 'failed', run, error: lastError(run) };
  if (run.phase === 'wait' && obs !== undefined && 'readyReplicas' in obs)
    return checkReady(flow, r, run, obs.readyReplicas, namespace, now);
  if (run.phase === 'delay' && obs?.plan !== undefined)
    return fromPlan(flow, r, run, { ...obs, plan: obs.plan }, { namespace, now });
  return { v: 'later', run };
}

/**
 * One pass over the current level. A resource in its wait phase with readiness already reached
 * counts at once (so `readyReplicas` observed right after an `already-scaled` plan is used in the
 * same pass by calling stepLevel again with it).
 */
export function stepLevel(
  flow: ScaleFlow,
  level: readonly ScalableResource[],
  observed: Readonly<Record<string, Observation>>,
  namespace: string,
  now: number,
): { flow: ScaleFlow; outcome: LevelOutcome } {
  const runs: Record<string, ResourceRun> = {};
  const operate: Operate[] = [];
  const errors: { key: string; error: string }[] = [];
  let pending = false;
  for (const r of level) {
    const key = resourceKey(r);
    const v = verdict(flow, r, observed[key], namespace, now);
    runs[key] = v.run;
    if (v.v === 'failed') errors.push({ key, error: v.error });
    if (v.v === 'operate')
      operate.push({ key, attempt: v.run.attempts.length + 1, operations: v.operations });
    if (v.v === 'later' || v.v === 'operate') pending = true;
  }
  const next = { ...flow, runs };
  if (pending) {
    const due = Math.min(
      ...Object.values(runs)
        .filter((x) => !isDone(x) && !isExhausted(x))
        .map((x) => x.at),
    );
    return { flow: next, outcome: { kind: 'pending', operate, due: operate.length > 0 ? now : due } };
  }
  return { flow: next, outcome: errors.length > 0 ? { kind: 'failed', errors } : { kind: 'done' } };
}

/** Folds the result of a resource's operations into the flow: the wait starts, or the attempt failed. */
export function recordOperations(
  flow: ScaleFlow,
  r: ScalableResource,
  plan: ResourcePlan,
  result: ResourceAttempt,
  now: number,
): ScaleFlow {
  const key = resourceKey(r);
  const run = flow.runs[key] ?? { attempts: [], phase: 'delay' as const, at: now };
  let next: ResourceRun;
  if (!result.ok) next = failAttempt(run, result.error ?? 'failed', r, now).run;
  else if (plan.wait !== undefined) next = startWait(run, plan, now, false);
  else next = succeed(run).run;
  return { ...flow, runs: { ...flow.runs, [key]: next } };
}

/** The next level (its resources start now). */
export function nextLevel(flow: ScaleFlow, now: number): ScaleFlow {
  return { ...flow, levelIndex: flow.levelIndex + 1, levelStartedAt: now, runs: {} };
}

/** Upstream's flow error codes and messages per direction. */
export const SCALE_ERROR: Readonly<Record<ScaleDirection, { code: ProbeErrorCode; message: string }>> = {
  up: { code: 'ERR_SCALE_UP', message: 'Failed to scale up resources' },
  down: { code: 'ERR_SCALE_DOWN', message: 'Failed to scale down resources' },
};

/** Upstream's ProbeError text for a failed level. */
export function flowFailureMessage(
  direction: ScaleDirection,
  errors: readonly { key: string; error: string }[],
): string {
  const { code, message } = SCALE_ERROR[direction];
  return formatProbeError(code, message, errors.map((e) => `${e.key}: ${e.error}`).join('; '));
}
