/**
 * How the update strategies combine the object in the cluster with the manifest (pure).
 *
 * - `mergeObjects(current, manifest, overwrite)`: what upstream gets from mergo.Merge on the two
 *   objects as maps (strategies `merge`, `mergeOverwrite`): maps are merged key by key, deeply.
 *   Without overwrite (`merge`) a value already in the cluster stays unless it is empty (null,
 *   "", 0, false, [] or {}), so the manifest only adds what is missing. With overwrite
 *   (`mergeOverwrite`) the manifest's value wins, null included; lists are replaced whole, never
 *   concatenated. Keys only the cluster has are kept in both.
 * - `mergePatchFor(current, desired)`: the RFC 7386 merge patch that turns the current object into
 *   the desired one (strategy `patch`, upstream's client.MergeFrom): keys the manifest lacks are
 *   removed. `status` and the server-owned metadata are left out of the comparison.
 */
import { deepEqual } from './objects.js';
import { isRecord, type JsonObject } from '@landscape/apimachinery';

/** mergo's notion of an empty value. */
export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

function mergedValue(d: unknown, s: unknown, overwrite: boolean): { set: boolean; value?: unknown } {
  if (isRecord(s) && isRecord(d) && !isEmptyValue(d))
    return { set: true, value: mergeObjects(d, s, overwrite) };
  if (overwrite) return { set: true, value: s };
  if (s === null) return { set: false };
  return isEmptyValue(d) ? { set: true, value: s } : { set: false };
}

/** `src` merged into `dst` (neither is changed). */
export function mergeObjects(dst: JsonObject, src: JsonObject, overwrite: boolean): JsonObject {
  const out: JsonObject = { ...dst };
  for (const [key, s] of Object.entries(src)) {
    const r = mergedValue(dst[key], s, overwrite);
    if (r.set) out[key] = r.value;
  }
  return out;
}

/** Metadata the API server owns: never part of a patch. */
export const SERVER_OWNED_METADATA = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'generation',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
] as const;

/** The object without status and server-owned metadata. */
export function withoutServerFields(obj: JsonObject): JsonObject {
  const { status: _status, ...rest } = obj;
  if (!isRecord(rest.metadata)) return rest;
  const metadata: JsonObject = { ...rest.metadata };
  for (const k of SERVER_OWNED_METADATA) delete metadata[k];
  return { ...rest, metadata };
}

function diff(current: JsonObject, desired: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(current)) if (!(key in desired)) patch[key] = null;
  for (const [key, d] of Object.entries(desired)) {
    const c = current[key];
    if (isRecord(c) && isRecord(d)) {
      const sub = diff(c, d);
      if (Object.keys(sub).length > 0) patch[key] = sub;
    } else if (!(key in current) || !deepEqual(c, d)) {
      patch[key] = d;
    }
  }
  return patch;
}

/** The merge patch from `current` to `desired`; `{}` when nothing differs. */
export function mergePatchFor(current: JsonObject, desired: JsonObject): JsonObject {
  return diff(withoutServerFields(current), withoutServerFields(desired));
}
