/**
 * Timeouts of the deployer contract (specs/landscaper.md "Timeouts"). Pure.
 *
 * - Progressing (the deployer, at checkpoints): deadline `transitionTimes.initTime +
 *   (spec.timeout or 10m)`; `none` switches it off. Exceeded → ProgressingTimeoutError.
 * - Pickup (central, the Landscaper side): a job nobody picked up within the pickup timeout
 *   (default 5m; `none` or 0 switches it off) ends Failed in one status write.
 */
import type { DeployItem, DeployItemStatus } from '../api/landscaper.js';
import { isDeleting } from './job.js';
import { failedPhase, withLastError, withPhase } from './result.js';
import { copyStatus } from './status.js';
import type { TimeoutSetting } from './time.js';
import { parseTimeout } from './time.js';
import { DeployerError, ProgressingTimeoutError } from './types.js';
import { DurationError, parseTime } from '@landscape/apimachinery';

export const DEFAULT_PROGRESSING_TIMEOUT: TimeoutSetting = { ms: 10 * 60_000 };
export const DEFAULT_PICKUP_TIMEOUT: TimeoutSetting = { ms: 5 * 60_000 };

export const PICKUP_TIMEOUT_OPERATION = 'WaitingForPickup';
export const PICKUP_TIMEOUT_REASON = 'PickupTimeout';

/** `spec.timeout` of the item (default 10m); an invalid value is a configuration problem. */
export function progressingTimeout(item: DeployItem): TimeoutSetting {
  try {
    return parseTimeout(item.spec.timeout, DEFAULT_PROGRESSING_TIMEOUT);
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
    throw new DeployerError(
      'StandardTimeoutChecker.TimeoutExceeded',
      'InvalidTimeout',
      `spec.timeout: ${err.message}`,
      ['ERR_CONFIGURATION_PROBLEM'],
    );
  }
}

/**
 * When the job's progressing time is over: initTime + timeout. Undefined when switched off
 * (`none`) or the job has not started (no initTime). Throws DeployerError for an invalid timeout.
 */
export function progressingDeadline(item: DeployItem): Date | undefined {
  const timeout = progressingTimeout(item);
  const init = parseTime(item.status?.transitionTimes?.initTime);
  if (timeout === 'none' || init === undefined) return undefined;
  return new Date(init + timeout.ms);
}

/** The ProgressingTimeoutError when `now` has reached the deadline, else undefined. */
export function timeoutError(
  item: DeployItem,
  now: Date,
  checkpoint: string,
): ProgressingTimeoutError | undefined {
  const deadline = progressingDeadline(item);
  return deadline && now.getTime() >= deadline.getTime()
    ? new ProgressingTimeoutError(checkpoint)
    : undefined;
}

/**
 * A checkpoint: throws ProgressingTimeoutError (`timeout at: "<checkpoint>"`, ERR_TIMEOUT) when the
 * deadline has passed; otherwise returns the ms left (undefined: no deadline).
 */
export function checkTimeout(item: DeployItem, now: Date, checkpoint: string): number | undefined {
  const error = timeoutError(item, now, checkpoint);
  if (error) throw error;
  const deadline = progressingDeadline(item);
  return deadline ? deadline.getTime() - now.getTime() : undefined;
}

// ---------------------------------------------------------------------------------------------
// Pickup

export interface PickupInput {
  item: DeployItem;
  now: Date;
  /** Go duration or `none`; undefined → 5m. `0` switches it off too. */
  pickupTimeout?: string;
  /** The item's Target does not exist (adds the hint to the message). */
  targetMissing?: boolean;
}

export const PICKUP_SKIP_REASONS = ['Disabled', 'NoJob', 'Finished', 'PickedUp', 'NoGenerationTime'] as const;
export type PickupSkipReason = (typeof PICKUP_SKIP_REASONS)[number];

export type PickupDecision =
  | { kind: 'Skip'; reason: PickupSkipReason }
  /** Not yet: look again after `afterMs`. */
  | { kind: 'Wait'; afterMs: number }
  /** Timed out: write this complete status (one write). */
  | { kind: 'TimedOut'; status: DeployItemStatus };

/** The pickup timeout message, as upstream (whole seconds). */
export function pickupTimeoutMessage(timeoutMs: number, targetMissing: boolean): string {
  const base = `no deployer has reconciled this deployitem within ${Math.floor(timeoutMs / 1000)} seconds`;
  return targetMissing ? `${base}, probably because the referenced Target does not exist` : base;
}

function pickupSkip(
  status: DeployItemStatus | undefined,
  timeout: TimeoutSetting,
): PickupSkipReason | undefined {
  if (timeout === 'none' || timeout.ms <= 0) return 'Disabled';
  if (!status?.jobID) return 'NoJob';
  if (status.jobID === status.jobIDFinished) return 'Finished';
  const generated = parseTime(status.jobIDGenerationTime);
  if (generated === undefined) return 'NoGenerationTime';
  const reconciled = parseTime(status.lastReconcileTime);
  return reconciled !== undefined && reconciled >= generated ? 'PickedUp' : undefined;
}

function timedOutStatus(input: PickupInput, timeoutMs: number): DeployItemStatus {
  const { item, now } = input;
  const info = {
    operation: PICKUP_TIMEOUT_OPERATION,
    reason: PICKUP_TIMEOUT_REASON,
    message: pickupTimeoutMessage(timeoutMs, input.targetMissing ?? false),
    codes: ['ERR_TIMEOUT' as const],
  };
  const status = withLastError(copyStatus(item.status), info, now);
  status.observedGeneration = item.metadata?.generation ?? 0;
  return withPhase(status, failedPhase(isDeleting(item)), now);
}

/**
 * The pickup timeout decision: skip when switched off, when the job is finished or when a deployer
 * reconciled after the job was generated (`lastReconcileTime >= jobIDGenerationTime`); timed out
 * when `now - jobIDGenerationTime >= timeout`: jobIDFinished = jobID, finishedTime,
 * observedGeneration, phase Failed (DeleteFailed when deleting), lastError WaitingForPickup /
 * PickupTimeout / ERR_TIMEOUT. Throws DurationError for an invalid pickupTimeout.
 */
export function decidePickupTimeout(input: PickupInput): PickupDecision {
  const timeout = parseTimeout(input.pickupTimeout, DEFAULT_PICKUP_TIMEOUT);
  const status = input.item.status;
  const skip = pickupSkip(status, timeout);
  if (skip || timeout === 'none') return { kind: 'Skip', reason: skip ?? 'Disabled' };
  const elapsed = input.now.getTime() - (parseTime(status?.jobIDGenerationTime) ?? 0);
  if (elapsed < timeout.ms) return { kind: 'Wait', afterMs: timeout.ms - elapsed };
  return { kind: 'TimedOut', status: timedOutStatus(input, timeout.ms) };
}
