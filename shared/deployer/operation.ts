/**
 * The operation annotation `landscaper.gardener.cloud/operation` on a DeployItem (seed 001):
 * - `test-reconcile`: remove the annotation, new uuid jobID (with jobIDGenerationTime, as
 *   upstream's SetJobID) and `transitionTimes.triggerTime = now`;
 * - `interrupt`: remove the annotation; an unfinished item ends: jobIDFinished = jobID, phase
 *   Failed, lastError operation/reason `InterruptOperation`, message "operation was interrupted".
 * Other values are not ours and stay. Pure.
 */
import type { DeployItem, DeployItemOperation, DeployItemStatus } from '../api/landscaper.js';
import { isDeployItemOperation, LandscaperAnnotations } from '../api/landscaper.js';
import { mustWork, withNewJob } from './job.js';
import { withLastError, withPhase } from './result.js';
import { copyStatus } from './status.js';
import { formatTime } from '@landscape/apimachinery';

export const INTERRUPT_OPERATION = 'InterruptOperation';
export const INTERRUPT_MESSAGE = 'operation was interrupted';

export interface OperationDecision {
  operation: DeployItemOperation;
  /** Always: remove the operation annotation (merge patch `{[annotation]: null}`). */
  annotations: Record<string, null>;
  /** The complete new status; absent when the status stays (interrupt of a finished item). */
  status?: DeployItemStatus;
}

/** The operation requested on the item, when it is one of ours. */
export function requestedOperation(item: DeployItem): DeployItemOperation | undefined {
  const value = item.metadata?.annotations?.[LandscaperAnnotations.operation];
  return isDeployItemOperation(value) ? value : undefined;
}

function testReconcile(item: DeployItem, now: Date, newId: () => string): DeployItemStatus {
  const status = withNewJob(item.status, now, newId);
  status.transitionTimes = { ...(status.transitionTimes ?? {}), triggerTime: formatTime(now) };
  return status;
}

function interrupt(item: DeployItem, now: Date): DeployItemStatus | undefined {
  if (!mustWork(item)) return undefined;
  const info = { operation: INTERRUPT_OPERATION, reason: INTERRUPT_OPERATION, message: INTERRUPT_MESSAGE };
  return withPhase(withLastError(copyStatus(item.status), info, now), 'Failed', now);
}

/** What the operation annotation asks for; undefined when there is none of ours. */
export function decideOperation(
  item: DeployItem,
  now: Date,
  newId: () => string,
): OperationDecision | undefined {
  const operation = requestedOperation(item);
  if (!operation) return undefined;
  const decision: OperationDecision = { operation, annotations: { [LandscaperAnnotations.operation]: null } };
  const status = operation === 'test-reconcile' ? testReconcile(item, now, newId) : interrupt(item, now);
  if (status) decision.status = status;
  return decision;
}
