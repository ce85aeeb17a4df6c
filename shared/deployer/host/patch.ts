/**
 * The status write as a JSON merge patch (RFC 7386) of `status` that turns the old status into
 * exactly the new one: objects are diffed recursively (`null` for every key the new status no
 * longer has: lastError cleared, transitionTimes.finishedTime of the previous job dropped), every
 * other value is sent whole (lists replace lists). No resourceVersion: the item is locked
 * (SyncObject) while the deployer writes, and the only other writer of the status, the job
 * trigger, writes only finished jobs.
 */
import type { DeployItemStatus } from '../../api/landscaper.js';
import { isRecord } from '@landscape/apimachinery';

/** The RFC 7386 patch that turns `before` into `after`. */
export function mergeDiff(before: unknown, after: unknown): unknown {
  if (!isRecord(before) || !isRecord(after)) return after === undefined ? null : after;
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(before)) if (after[k] === undefined) patch[k] = null;
  for (const [k, v] of Object.entries(after)) {
    if (v !== undefined) patch[k] = mergeDiff(before[k], v);
  }
  return patch;
}

export function statusMergePatch(
  before: DeployItemStatus | undefined,
  after: DeployItemStatus,
): { status: unknown } {
  return { status: mergeDiff(before ?? {}, after) };
}
