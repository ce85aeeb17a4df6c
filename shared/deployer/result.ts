/**
 * How a step ends in the DeployItem status (specs/landscaper.md "Result handling"): the plugin's
 * StepResult or a DeployerError becomes phase, lastError/firstError/lastErrors, providerStatus,
 * exportRef and, for a final phase, `jobIDFinished = jobID` plus `transitionTimes.finishedTime`
 * in the same status (one write). Pure: returns the new status and what the runtime does next.
 */
import type { DeployItemPhase, DeployItemStatus, ErrorCode, LandscaperError } from '../api/landscaper.js';
import { isFinalDeployItemPhase, isUnrecoverableErrorCode } from '../api/landscaper.js';
import { copyStatus } from './status.js';
import type { StepResult } from './types.js';
import { DeployerError, NotYetError } from './types.js';
import { formatTime } from '@landscape/apimachinery';

/** Retry delay after a recoverable error while the phase is not final (upstream: 5 s). */
export const RETRY_AFTER_ERROR_MS = 5_000;
/** `lastErrors` keeps the newest this many errors. */
export const MAX_LAST_ERRORS = 5;

/** The error fields the status records. */
export interface ErrorInfo {
  operation: string;
  reason: string;
  message: string;
  codes?: readonly ErrorCode[];
  /** Not yet (NotYetError): the phase becomes Progressing / Deleting. */
  progressing?: boolean;
  /** Not yet (NotYetError): the providerStatus of what the step got done. */
  providerStatus?: Record<string, unknown>;
}

/** A Kubernetes Event the runtime records on the item (upstream: a Warning for every error). */
export interface ItemEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** What a step did to the item and what the runtime does next. */
export interface StepOutcome {
  /** The complete new status (write it when `statusChanged(item.status, status)`). */
  status: DeployItemStatus;
  /** The job ended in this status (phase final, jobIDFinished = jobID). */
  finished: boolean;
  /** Look at the item again after this many ms (wait, recoverable error); absent: no requeue. */
  requeueAfterMs?: number;
  /** Delete finished: remove the Landscaper finalizer (the item then goes away). */
  removeFinalizer: boolean;
  /** Record this Event on the item. */
  event?: ItemEvent;
}

function lsError(
  info: ErrorInfo,
  time: string,
  previous: LandscaperError | null | undefined,
): LandscaperError {
  const error: LandscaperError = {
    operation: info.operation,
    reason: info.reason,
    message: info.message,
    lastTransitionTime: previous?.operation === info.operation ? previous.lastTransitionTime : time,
    lastUpdateTime: time,
  };
  if (info.codes && info.codes.length > 0) error.codes = [...info.codes];
  return error;
}

/**
 * The status with a new lastError: lastTransitionTime changes only when the operation changes,
 * lastUpdateTime is now; firstError is set once per job; lastErrors keeps the newest 5.
 */
export function withLastError(
  status: DeployItemStatus | undefined,
  info: ErrorInfo,
  now: Date,
): DeployItemStatus {
  const next = copyStatus(status);
  const error = lsError(info, formatTime(now), next.lastError);
  next.lastError = error;
  next.firstError = next.firstError ?? structuredClone(error);
  next.lastErrors = [...(next.lastErrors ?? []), structuredClone(error)].slice(-MAX_LAST_ERRORS);
  return next;
}

/** True when any code is unrecoverable (the item ends in Failed / DeleteFailed). */
export function hasUnrecoverableCode(codes: readonly ErrorCode[] | undefined): boolean {
  return (codes ?? []).some((code) => isUnrecoverableErrorCode(code));
}

/** The failure phase of the job: DeleteFailed while deleting, Failed otherwise. */
export function failedPhase(deleting: boolean): DeployItemPhase {
  return deleting ? 'DeleteFailed' : 'Failed';
}

/**
 * Set `phase`; a final phase also ends the job in the same status: `jobIDFinished = jobID` and
 * `transitionTimes.finishedTime = now`.
 */
export function withPhase(status: DeployItemStatus, phase: DeployItemPhase, now: Date): DeployItemStatus {
  const next: DeployItemStatus = { ...status, phase };
  if (!isFinalDeployItemPhase(phase)) return next;
  next.jobIDFinished = next.jobID;
  next.transitionTimes = { ...(next.transitionTimes ?? {}), finishedTime: formatTime(now) };
  return next;
}

function outcome(status: DeployItemStatus, extra: Partial<StepOutcome> = {}): StepOutcome {
  const finished = isFinalDeployItemPhase(status.phase) && status.jobID === status.jobIDFinished;
  return { status, finished, removeFinalizer: false, ...extra };
}

/**
 * A failed step: record the error; an unrecoverable code ends the job in Failed (DeleteFailed
 * while deleting); otherwise the phase stays and the runtime retries after RETRY_AFTER_ERROR_MS
 * (a NotYetError: the phase becomes Progressing / Deleting, its providerStatus is taken over).
 * Always a Warning Event.
 */
export function applyError(
  status: DeployItemStatus | undefined,
  error: ErrorInfo,
  now: Date,
  deleting: boolean,
): StepOutcome {
  const withError = withLastError(status, error, now);
  const event: ItemEvent = { type: 'Warning', reason: error.reason, message: error.message };
  if (hasUnrecoverableCode(error.codes)) {
    return outcome(withPhase(withError, failedPhase(deleting), now), { event });
  }
  const next = error.progressing ? notYetStatus(withError, error, deleting) : withError;
  return outcome(next, { event, requeueAfterMs: RETRY_AFTER_ERROR_MS });
}

function notYetStatus(status: DeployItemStatus, error: ErrorInfo, deleting: boolean): DeployItemStatus {
  const next: DeployItemStatus = { ...status, phase: deleting ? 'Deleting' : 'Progressing' };
  if (error.providerStatus !== undefined) next.providerStatus = structuredClone(error.providerStatus);
  return next;
}

function withStepFields(status: DeployItemStatus, result: StepResult): DeployItemStatus {
  const { lastError: _cleared, ...rest } = status;
  const next: DeployItemStatus = { ...rest };
  if (result.providerStatus !== undefined) next.providerStatus = structuredClone(result.providerStatus);
  if (result.kind === 'done' && result.exportRef === null) delete next.exportRef;
  if (result.kind === 'done' && result.exportRef) next.exportRef = { ...result.exportRef };
  return next;
}

/**
 * A step that did not fail: lastError is cleared (firstError/lastErrors stay as the job's history),
 * providerStatus/exportRef taken over.
 * - `wait`: phase Progressing (Deleting while deleting), requeue after `afterMs`.
 * - `done` with `phase`: that phase (the mock's override); final ends the job, non-final leaves it
 *   unfinished without requeue.
 * - `done` reconcile: Succeeded (job ends). `done` delete: remove the finalizer; the phase stays
 *   (the item disappears; with other finalizers it stays Deleting, as upstream).
 */
export function applyStepResult(
  status: DeployItemStatus | undefined,
  result: StepResult,
  now: Date,
  deleting: boolean,
): StepOutcome {
  const base = withStepFields(copyStatus(status), result);
  if (result.kind === 'wait') {
    return outcome(
      { ...base, phase: deleting ? 'Deleting' : 'Progressing' },
      { requeueAfterMs: result.afterMs },
    );
  }
  if (result.phase) return outcome(withPhase(base, result.phase, now));
  if (deleting) return outcome(base, { removeFinalizer: true });
  return outcome(withPhase(base, 'Succeeded', now));
}

// ---------------------------------------------------------------------------------------------
// The contract's own failures

function contractOperation(deleting: boolean): string {
  return deleting ? 'Delete' : 'Reconcile';
}

/** The named Target does not exist: the job fails (the user must create it or fix the item). */
export function missingTargetError(deleting: boolean): DeployerError {
  return new DeployerError(
    contractOperation(deleting),
    'NoTargetFound',
    'setting deploy item to failed due to missing target',
    ['ERR_CONFIGURATION_PROBLEM'],
  );
}

/** True when `spec.config` is absent or an empty object. */
export function isProviderConfigurationEmpty(config: unknown): boolean {
  if (config === undefined || config === null) return true;
  return typeof config === 'object' && !Array.isArray(config) && Object.keys(config).length === 0;
}

/** `spec.config` is empty. */
export function providerConfigurationMissingError(deleting: boolean): DeployerError {
  return new DeployerError(
    contractOperation(deleting),
    'ProviderConfigurationMissing',
    'the deploy item has no provider configuration (spec.config is empty)',
    ['ERR_CONFIGURATION_PROBLEM'],
  );
}

/** The Context `spec.context` could not be read: recoverable (it may be created later). */
export function contextError(name: string, message: string, deleting: boolean): DeployerError {
  return new DeployerError(
    contractOperation(deleting),
    'GetLandscaperContext',
    `unable to get landscaper context ${JSON.stringify(name)}: ${message}`,
  );
}

/**
 * The Target's Secret (or its key) does not exist: not a configuration problem. The job stays
 * Progressing (Deleting) with this lastError and a Warning Event naming the Secret, and is retried
 * until the Secret appears or the progressing timeout fires. Upstream's deployer library returns
 * the target resolver's error to controller-runtime, which requeues it.
 */
export function targetSecretMissingError(message: string, deleting: boolean): DeployerError {
  return new NotYetError(contractOperation(deleting), 'TargetSecretNotFound', message);
}

/** The Target's kubeconfig is refused (file references, exec, auth-provider, impersonation, ...). */
export function invalidTargetError(message: string, deleting: boolean): DeployerError {
  return new DeployerError(contractOperation(deleting), 'InvalidTarget', message, [
    'ERR_CONFIGURATION_PROBLEM',
  ]);
}

/**
 * Any error thrown by a step as a DeployerError: a DeployerError stays as it is; anything else is
 * recoverable, with upstream's wrapping (`reconcile`/`Reconcile`, or `delete`/`DeleteWithUninstall`).
 */
export function toDeployerError(err: unknown, deleting: boolean): DeployerError {
  if (err instanceof DeployerError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return deleting
    ? new DeployerError('delete', 'DeleteWithUninstall', message)
    : new DeployerError('reconcile', 'Reconcile', message);
}
