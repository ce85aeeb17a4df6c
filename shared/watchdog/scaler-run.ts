/**
 * Running a scaling plan (scaler.ts), pure: nextStep() tells the adapter what to run next from the
 * attempts so far — the pending resources of the lowest unfinished level (in parallel, each after
 * its initialDelay, retried 3× with 100 ms back-off), or that the run is done, or that a level
 * failed and later levels do not run.
 */
import { formatProbeError, type ProbeErrorCode } from './lease.js';
import {
  MAX_SCALE_ATTEMPTS,
  SCALE_RETRY_BACKOFF_MS,
  type ReadyWait,
  type ResourcePlan,
  type ScaleDirection,
  type ScaleOperation,
  type ScalePlan,
} from './scaler.js';

/** One attempt at a resource's operations and wait, as the adapter reports it. */
export interface ResourceAttempt {
  ok: boolean;
  error?: string;
}
/** Attempts so far, by resourceKey(). */
export type ScaleResults = Readonly<Record<string, readonly ResourceAttempt[]>>;

export interface RunItem {
  key: string;
  /** 1-based. */
  attempt: number;
  /** Before this attempt: initialDelay (every attempt, as upstream sleeps it inside each try) plus the retry back-off. */
  delayMs: number;
  operations: ScaleOperation[];
  wait?: ReadyWait;
}

export type ScaleStep =
  | { kind: 'run'; level: number; items: RunItem[] }
  | { kind: 'done' }
  | {
      kind: 'failed';
      level: number;
      code: ProbeErrorCode;
      errors: { key: string; error: string }[];
      /** Upstream's ProbeError text. */
      message: string;
      /** Levels that will not run. */
      skippedLevels: number[];
    };

type ItemState = { state: 'ok' } | { state: 'failed'; error: string } | { state: 'pending'; item: RunItem };

function hasWork(plan: ResourcePlan): boolean {
  return plan.action !== 'error' && (plan.operations.length > 0 || plan.wait !== undefined);
}

function itemState(plan: ResourcePlan, attempts: readonly ResourceAttempt[]): ItemState {
  if (plan.action === 'error') return { state: 'failed', error: plan.error ?? plan.message };
  if (!hasWork(plan) || attempts.some((a) => a.ok)) return { state: 'ok' };
  if (attempts.length >= MAX_SCALE_ATTEMPTS) {
    return { state: 'failed', error: attempts[attempts.length - 1]?.error ?? 'failed' };
  }
  return { state: 'pending', item: runItem(plan, attempts.length + 1) };
}

function runItem(plan: ResourcePlan, attempt: number): RunItem {
  const backoff = attempt > 1 ? SCALE_RETRY_BACKOFF_MS : 0;
  return {
    key: plan.key,
    attempt,
    delayMs: plan.resource.initialDelayMs + backoff,
    operations: plan.operations,
    ...(plan.wait ? { wait: plan.wait } : {}),
  };
}

/** Upstream's flow error codes and messages per direction. */
export const SCALE_ERROR: Readonly<Record<ScaleDirection, { code: ProbeErrorCode; message: string }>> = {
  up: { code: 'ERR_SCALE_UP', message: 'Failed to scale up resources' },
  down: { code: 'ERR_SCALE_DOWN', message: 'Failed to scale down resources' },
};

/**
 * What runs next: the lowest level with pending work (all its pending resources together); a level
 * whose resources all finished with any failure stops the run; all levels fine → done.
 */
export function nextStep(plan: ScalePlan, results: ScaleResults): ScaleStep {
  for (const [index, level] of plan.levels.entries()) {
    const states = level.resources.map((r) => ({ key: r.key, s: itemState(r, results[r.key] ?? []) }));
    const items = states.flatMap(({ s }) => (s.state === 'pending' ? [s.item] : []));
    if (items.length > 0) return { kind: 'run', level: level.level, items };
    const errors = states.flatMap(({ key, s }) => (s.state === 'failed' ? [{ key, error: s.error }] : []));
    if (errors.length > 0) {
      const { code, message } = SCALE_ERROR[plan.direction];
      const cause = errors.map((e) => `${e.key}: ${e.error}`).join('; ');
      return {
        kind: 'failed',
        level: level.level,
        code,
        errors,
        message: formatProbeError(code, message, cause),
        skippedLevels: plan.levels.slice(index + 1).map((l) => l.level),
      };
    }
  }
  return { kind: 'done' };
}
