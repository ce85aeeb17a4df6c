/**
 * Status comparison: the runtime writes a DeployItem status only when it changed (upstream
 * compares with reflect.DeepEqual before every status update). Pure.
 */
import type { DeployItemStatus } from '../api/landscaper.js';
import { isRecord } from '@landscape/apimachinery';

/** Keys whose value is not undefined (JSON drops the others, so they do not exist on the wire). */
function definedKeys(obj: Record<string, unknown>): string[] {
  return Object.keys(obj).filter((k) => obj[k] !== undefined);
}

function arraysEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
}

function objectsEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = definedKeys(a);
  if (keys.length !== definedKeys(b).length) return false;
  return keys.every((k) => b[k] !== undefined && jsonEqual(a[k], b[k]));
}

/**
 * Deep equality of JSON values as they travel over the wire: every field counts (nothing is
 * ignored), a key holding `undefined` is the same as a missing key, `null` is a value.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && arraysEqual(a, b);
  }
  if (isRecord(a) && isRecord(b)) return objectsEqual(a, b);
  return false;
}

/** True when `after` differs from `before` in any field (write the status only then). */
export function statusChanged(
  before: DeployItemStatus | undefined,
  after: DeployItemStatus | undefined,
): boolean {
  return !jsonEqual(before ?? {}, after ?? {});
}

/** A deep copy of a status (or a fresh empty one), so decisions never mutate their input. */
export function copyStatus(status: DeployItemStatus | undefined): DeployItemStatus {
  return status ? structuredClone(status) : { observedGeneration: 0 };
}
