/**
 * Continuous reconcile (upstream pkg/deployer/lib/continuousreconcile, seed 002's example): re-apply
 * a Succeeded item on a schedule, so that manual changes on the target are overwritten.
 *
 * Config (`spec.config.continuousReconcile`, upstream ContinuousReconcileSpec): exactly one of
 * `cron` (standard 5-field crontab, robfig ParseStandard: descriptors such as `@hourly`,
 * `@every <duration>`, an optional `CRON_TZ=<zone>` / `TZ=<zone>` prefix, UTC otherwise) and
 * `every` (a Go duration > 0). The annotation
 * `continuousreconcile.extensions.landscaper.gardener.cloud/active: "false"` switches it off.
 *
 * As a ShouldReconcile hook: for a Succeeded, finished, not deleting item whose next due time
 * (computed from lastReconcileTime, else finishedTime, as upstream) has passed → abort false
 * ("reconcile": the runtime starts a new job with `startContinuousJob`); before that → abort true
 * with requeueAfter = the time until it is due. Anything else → nil (no opinion). Pure: croner only
 * computes times here (no function is scheduled).
 */
import { Cron } from 'croner';
import { formatTime, isRecord, parseGoDuration, parseTime } from '@landscape/apimachinery';
import type { DeployItem, DeployItemStatus } from '../api/landscaper.js';
import { LandscaperAnnotations } from '../api/landscaper.js';
import type { HookResult, HookSetup, ReconcileHook } from './hooks.js';
import { isDeleting, isJobFinished, withNewJob } from './job.js';

export interface ContinuousReconcileSpec {
  /** Crontab (5 fields or a descriptor); either cron or every. */
  cron?: string;
  /** Go duration; either cron or every. */
  every?: string;
}

/** The next due time strictly after `from`; undefined when there is none. */
export type Schedule = (from: Date) => Date | undefined;

const EVERY_PREFIX = '@every ';
const TZ_PREFIX = /^(?:CRON_TZ|TZ)=(\S+)\s+/;

/** robfig cron.Every: a constant delay in whole seconds (at least 1 s) from `from` cut to the second. */
function everySchedule(ms: number): Schedule {
  const delay = Math.max(1000, Math.floor(ms / 1000) * 1000);
  return (from) => new Date(Math.floor(from.getTime() / 1000) * 1000 + delay);
}

function cronSchedule(expression: string): Schedule {
  const trimmed = expression.trim();
  const zone = TZ_PREFIX.exec(trimmed);
  const pattern = zone ? trimmed.slice(zone[0].length) : trimmed;
  if (pattern.startsWith(EVERY_PREFIX))
    return everySchedule(parseGoDuration(pattern.slice(EVERY_PREFIX.length)));
  const cron = new Cron(pattern, { mode: '5-part', timezone: zone?.[1] ?? 'UTC' });
  return (from) => cron.nextRun(from) ?? undefined;
}

/** The schedule of a spec (cron wins when both are given, as upstream). Throws for an invalid spec. */
export function continuousSchedule(spec: ContinuousReconcileSpec): Schedule {
  if (spec.cron) return cronSchedule(spec.cron);
  if (spec.every) {
    const ms = parseGoDuration(spec.every);
    if (ms <= 0) throw new Error('every: specified duration has to be greater than zero');
    return everySchedule(ms);
  }
  throw new Error('neither cron nor every is specified');
}

function fieldProblems(value: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const key of ['cron', 'every'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') problems.push(`${key}: must be a string`);
  }
  const given = (['cron', 'every'] as const).filter((k) => typeof value[k] === 'string' && value[k] !== '');
  if (given.length !== 1) problems.push('exactly one of cron and every must be specified');
  return problems;
}

/** Every problem of a continuousReconcile value (upstream validation); [] when valid or absent. */
export function continuousReconcileProblems(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) return ['must be an object with cron or every'];
  const problems = fieldProblems(value);
  if (problems.length > 0) return problems;
  try {
    continuousSchedule(value);
    return [];
  } catch (err) {
    return [err instanceof Error ? err.message : String(err)];
  }
}

/** `spec.config.continuousReconcile` when present and valid (invalid: see continuousReconcileProblems). */
export function continuousReconcileSpecOf(item: DeployItem): ContinuousReconcileSpec | undefined {
  const value = item.spec.config?.continuousReconcile;
  if (value === undefined || continuousReconcileProblems(value).length > 0) return undefined;
  return value as ContinuousReconcileSpec;
}

/** False when the item carries `continuousreconcile.extensions.landscaper.gardener.cloud/active: "false"`. */
export function isContinuousReconcileActive(item: DeployItem): boolean {
  return item.metadata?.annotations?.[LandscaperAnnotations.continuousReconcileActive] !== 'false';
}

function roundToSecond(ms: number): number {
  return Math.round(ms / 1000) * 1000;
}

/** The item's next due time: the schedule after lastReconcileTime (else finishedTime). */
export function nextContinuousReconcile(item: DeployItem, spec: ContinuousReconcileSpec): Date | undefined {
  const status = item.status;
  const base = parseTime(status?.lastReconcileTime) ?? parseTime(status?.transitionTimes?.finishedTime);
  return base === undefined ? undefined : continuousSchedule(spec)(new Date(base));
}

function eligible(item: DeployItem | undefined): item is DeployItem {
  if (!item || !isContinuousReconcileActive(item) || isDeleting(item)) return false;
  return isJobFinished(item) && item.status?.phase === 'Succeeded';
}

/**
 * True when the continuous-reconcile hook has something to decide for `item` (Succeeded, its job
 * finished, not deleting, switched on, a valid spec): the one reason the product's deployers have
 * to look at an item whose job is finished (the responsibility check sends such items only then).
 */
export function continuousReconcileWanted(item: DeployItem): boolean {
  return eligible(item) && continuousReconcileSpecOf(item) !== undefined;
}

/** The continuous-reconcile decision for one item (the hook's body). */
export function decideContinuousReconcile(
  item: DeployItem | undefined,
  now: Date,
  specOf: (item: DeployItem) => ContinuousReconcileSpec | undefined = continuousReconcileSpecOf,
): HookResult | undefined {
  if (!eligible(item)) return undefined;
  const spec = specOf(item);
  const due = spec && nextContinuousReconcile(item, spec);
  if (!spec || !due) return undefined;
  const current = roundToSecond(now.getTime());
  const dueMs = roundToSecond(due.getTime());
  if (dueMs > current) return { abortReconcile: true, requeue: false, requeueAfterMs: dueMs - current };
  const following = continuousSchedule(spec)(new Date(current));
  const requeueAfterMs = following ? roundToSecond(following.getTime()) - current : 0;
  return { abortReconcile: false, requeue: false, requeueAfterMs };
}

/** The continuous-reconcile ShouldReconcile hook; `specOf` reads the spec from an item. */
export function continuousReconcileHook(
  specOf: (item: DeployItem) => ContinuousReconcileSpec | undefined = continuousReconcileSpecOf,
): ReconcileHook {
  return (input) => decideContinuousReconcile(input.item, input.now, specOf);
}

/** The hook with its hook type (ShouldReconcile). */
export function continuousReconcileHookSetup(
  specOf: (item: DeployItem) => ContinuousReconcileSpec | undefined = continuousReconcileSpecOf,
): HookSetup {
  return { hook: continuousReconcileHook(specOf), types: ['ShouldReconcile'] };
}

/**
 * The status with a new continuous-reconcile job (new jobID, jobIDGenerationTime and triggerTime =
 * now); undefined while a job still runs.
 */
export function startContinuousJob(
  item: DeployItem,
  now: Date,
  newId: () => string,
): DeployItemStatus | undefined {
  if (!isJobFinished(item)) return undefined;
  const status = withNewJob(item.status, now, newId);
  status.transitionTimes = { ...(status.transitionTimes ?? {}), triggerTime: formatTime(now) };
  return status;
}
