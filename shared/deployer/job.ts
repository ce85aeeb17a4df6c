/**
 * Jobs: the `jobID` / `jobIDFinished` handshake between the Landscaper and a deployer (seed 001).
 *
 * - The Landscaper side (`decideJob`) hands out a new job by writing a new `status.jobID` (with
 *   `jobIDGenerationTime`) when the item was created, its spec changed or it is being deleted, and
 *   only when the previous job is finished; it also keeps the `deployer-type` /
 *   `deployer-target-name` annotations in line with the spec (metadata-only responsibility checks).
 * - The deployer side works only while `jobID != jobIDFinished` (`mustWork`) and starts a job by
 *   re-initialising the status (`startJob`) when the phase is final or empty.
 *
 * Pure: `now` and the id generator are injected; inputs are never mutated.
 */
import type { DeployerInformation, DeployItem, DeployItemStatus } from '../api/landscaper.js';
import { isFinalDeployItemPhase, LandscaperAnnotations, NO_TARGET_NAME } from '../api/landscaper.js';
import { copyStatus } from './status.js';
import { formatTime, isOneOf } from '@landscape/apimachinery';

/** Why the Landscaper hands out a new job. */
export const JOB_TRIGGERS = ['Created', 'SpecChanged', 'Deleting'] as const;
export type JobTrigger = (typeof JOB_TRIGGERS)[number];
export const isJobTrigger: (value: unknown) => value is JobTrigger = isOneOf(JOB_TRIGGERS);

/** What the Landscaper writes for an item; `decideJob` returns undefined when nothing is to write. */
export interface JobDecision {
  /** JSON merge patch for `metadata.annotations` (writable any time); absent when they are right. */
  annotations?: Record<string, string | null>;
  /** The complete new status holding the new job; absent when no new job is due. */
  status?: DeployItemStatus;
  trigger?: JobTrigger;
}

/** True while the item has a job to do (`jobID != jobIDFinished`): the deployer works only then. */
export function mustWork(item: DeployItem): boolean {
  return (item.status?.jobID ?? '') !== (item.status?.jobIDFinished ?? '');
}

/**
 * What an item (as an event carried it) shows a deployer: `none` — no job and no operation
 * annotation, so no deployer would do anything with it (its step would end "nothing to do");
 * `open-job` — a job to work on (and no operation annotation); `finished-job` — its job is done (only
 * a ShouldReconcile hook, such as continuous reconcile, may start a new one); `operation` — an
 * operation annotation (reconcile, interrupt, ...) whatever the job.
 */
export function deployerWorkShown(item: DeployItem): 'none' | 'open-job' | 'finished-job' | 'operation' {
  if (item.metadata?.annotations?.[LandscaperAnnotations.operation]) return 'operation';
  if (mustWork(item)) return 'open-job';
  return item.status?.jobID ? 'finished-job' : 'none';
}

/** True when the item has no job or its job is finished: a new one may be handed out. */
export function isJobFinished(item: DeployItem): boolean {
  return !mustWork(item);
}

/** True when the item has a deletion timestamp. */
export function isDeleting(item: DeployItem): boolean {
  return Boolean(item.metadata?.deletionTimestamp);
}

/**
 * The annotation values the item should carry, as upstream's execution controller sets them
 * (pkg/landscaper/execution: `deployer-type` = spec.type, `deployer-target-name` = spec.target.name
 * or NO_TARGET_NAME when the item names no target), so that the metadata alone answers the
 * responsibility check. An item the Landscaper created already carries them: no write.
 */
export function desiredDeployerAnnotations(item: DeployItem): Record<string, string> {
  return {
    [LandscaperAnnotations.deployerType]: item.spec.type,
    [LandscaperAnnotations.deployerTargetName]: item.spec.target?.name || NO_TARGET_NAME,
  };
}

function annotationPatch(item: DeployItem): Record<string, string> | undefined {
  const current = item.metadata?.annotations ?? {};
  const patch: Record<string, string> = {};
  for (const [key, value] of Object.entries(desiredDeployerAnnotations(item))) {
    if (current[key] !== value) patch[key] = value;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

function finishedJobTrigger(item: DeployItem): JobTrigger | undefined {
  if (isDeleting(item)) return item.status?.phase === 'DeleteFailed' ? undefined : 'Deleting';
  const generation = item.metadata?.generation ?? 0;
  return generation > (item.status?.observedGeneration ?? 0) ? 'SpecChanged' : undefined;
}

/** Why a new job is due, or undefined (the previous job still runs, or nothing changed). */
export function jobTrigger(item: DeployItem): JobTrigger | undefined {
  if (!item.status?.jobID) return isDeleting(item) ? 'Deleting' : 'Created';
  return mustWork(item) ? undefined : finishedJobTrigger(item);
}

/** The status with a new job: `jobID` from `newId` and `jobIDGenerationTime = now`. */
export function withNewJob(
  status: DeployItemStatus | undefined,
  now: Date,
  newId: () => string,
): DeployItemStatus {
  return { ...copyStatus(status), jobID: newId(), jobIDGenerationTime: formatTime(now) };
}

/**
 * The Landscaper's decision for one item: the annotations to fix and/or a new job; undefined when
 * nothing is to write. A deleting item already in a delete job is unfinished (no new job); a
 * finished one in DeleteFailed is left alone (the user must act), as upstream.
 */
export function decideJob(item: DeployItem, now: Date, newId: () => string): JobDecision | undefined {
  const annotations = annotationPatch(item);
  const trigger = jobTrigger(item);
  if (!annotations && !trigger) return undefined;
  const decision: JobDecision = {};
  if (annotations) decision.annotations = annotations;
  if (trigger) {
    decision.trigger = trigger;
    decision.status = withNewJob(item.status, now, newId);
  }
  return decision;
}

/** The result of `startJob`. */
export interface StartJobResult {
  /** The status to write (a copy of the old one when the job continues). */
  status: DeployItemStatus;
  /** True when a new job was initialised; false when a non-final phase continues. */
  started: boolean;
}

/**
 * A deployer picks up its job: when the phase is final or empty, the status becomes phase Init
 * (InitDelete when deleting), `observedGeneration`, `lastReconcileTime = now`,
 * `transitionTimes.initTime = now` (the previous job's waitTime/finishedTime dropped, triggerTime
 * kept), `deployer` info, and no lastError/firstError/lastErrors. A non-final phase continues
 * unchanged. Call only when `mustWork(item)`.
 */
export function startJob(item: DeployItem, now: Date, deployer: DeployerInformation): StartJobResult {
  const old = copyStatus(item.status);
  if (old.phase && !isFinalDeployItemPhase(old.phase)) return { status: old, started: false };
  const time = formatTime(now);
  const { lastError: _e, firstError: _f, lastErrors: _l, ...rest } = old;
  const { waitTime: _w, finishedTime: _t, ...times } = old.transitionTimes ?? {};
  const status: DeployItemStatus = {
    ...rest,
    phase: isDeleting(item) ? 'InitDelete' : 'Init',
    observedGeneration: item.metadata?.generation ?? 0,
    lastReconcileTime: time,
    deployer: { ...deployer },
    transitionTimes: { ...times, initTime: time },
  };
  return { status, started: true };
}
