/**
 * Gardener conditions (with lastUpdateTime), pure: upstream's GetOrInitCondition +
 * UpdatedCondition + MergeConditions as one step. The transition time moves when the status
 * changes; the update time when status, reason or message change. `now` is injected.
 */
import type { GardenerCondition } from '../api/core.js';
import type { Time } from '@landscape/apimachinery';

export type GardenerConditionStatus = GardenerCondition['status'];

/** `old` (may be absent) moved to status/reason/message at `now`. */
export function updatedCondition(
  old: GardenerCondition | undefined,
  type: string,
  status: GardenerConditionStatus,
  reason: string,
  message: string,
  now: Time,
): GardenerCondition {
  if (!old) return { type, status, lastTransitionTime: now, lastUpdateTime: now, reason, message };
  const transitioned = old.status !== status;
  const changed = transitioned || old.reason !== reason || old.message !== message;
  return {
    ...old,
    type,
    status,
    reason,
    message,
    lastTransitionTime: transitioned || !old.lastTransitionTime ? now : old.lastTransitionTime,
    lastUpdateTime: changed || !old.lastUpdateTime ? now : old.lastUpdateTime,
  };
}

/** `conditions` with the condition of that type set (updated in place of the old one, else appended). */
export function setCondition(
  conditions: readonly GardenerCondition[] | undefined,
  type: string,
  status: GardenerConditionStatus,
  reason: string,
  message: string,
  now: Time,
): GardenerCondition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === type);
  const next = updatedCondition(index >= 0 ? list[index] : undefined, type, status, reason, message, now);
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

/** The condition of that type, if any. */
export function getCondition(
  conditions: readonly GardenerCondition[] | undefined,
  type: string,
): GardenerCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of that type is `True`. */
export function isConditionTrue(conditions: readonly GardenerCondition[] | undefined, type: string): boolean {
  return getCondition(conditions, type)?.status === 'True';
}
