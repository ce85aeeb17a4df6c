/**
 * What to do with each manifest (pure), as upstream's ManifestApplier decides it:
 *
 * - Apply order: CRDs, then cluster-scoped objects (Namespaces among them), then namespaced ones.
 * - Absent object: created (any policy but ignore) with the label
 *   `manifest.deployer.landscaper.gardener.cloud/deployitem: <item name>` and the entry's
 *   `annotateBeforeCreate`.
 * - Present object, by policy: `ignore` → nothing; `fallback` → nothing unless the label names
 *   this item (someone else manages it; it is then not one of ours); `immutable` → no write, but
 *   it stays managed; `manage` / `keep` / `fallback` (ours) → written by the update strategy:
 *   `update` PUTs the manifest (with the current resourceVersion and the fields an update must
 *   carry over: a Service's clusterIP, a Job's selector and template labels, a ServiceAccount's
 *   secrets); `patch` sends the merge patch from the current object to the manifest; `merge` /
 *   `mergeOverwrite` PUT the current object with the manifest merged in (see merge.ts).
 *   A write that would change nothing is skipped.
 * - Dropped objects: what the previous status managed and the manifest list no longer names is
 *   deleted, unless its policy is keep (or ignore). Unlike upstream, an object still in the list
 *   under policy `ignore` or held by someone else (`fallback`) is not deleted as dropped: ignore
 *   means the deployer leaves it alone.
 */
import { mergeObjects, mergePatchFor, withoutServerFields } from './merge.js';
import { cloneJson, deepEqual, groupOf, isCrd } from './objects.js';
import type { KubeManifest, ManifestEntry, UpdateStrategy } from './provider-config.js';
import { refKey, type ManagedResource, type ResourceRef } from './provider-status.js';
import { isRecord, type JsonObject } from '@landscape/apimachinery';

/** Upstream's ManagedDeployItemLabel: which DeployItem manages an object. */
export const MANAGED_BY_LABEL = 'manifest.deployer.landscaper.gardener.cloud/deployitem';

export const APPLY_GROUPS = ['crds', 'cluster-scoped', 'namespaced'] as const;
export type ApplyGroup = (typeof APPLY_GROUPS)[number];

export function applyGroupOf(apiVersion: string, kind: string, namespaced: boolean): ApplyGroup {
  if (isCrd(apiVersion, kind)) return 'crds';
  return namespaced ? 'namespaced' : 'cluster-scoped';
}

export type SkipReason = 'ignored' | 'managed-elsewhere' | 'immutable' | 'unchanged';

export type ApplyAction =
  | { op: 'create'; body: JsonObject }
  | { op: 'update'; body: JsonObject }
  | { op: 'patch'; patch: JsonObject }
  | { op: 'skip'; why: SkipReason };

export interface PlanInput {
  entry: ManifestEntry;
  /** Scope of the kind on the target cluster. */
  namespaced: boolean;
  /** The object in the cluster; undefined when absent. */
  current?: JsonObject;
  strategy: UpdateStrategy;
  /** The DeployItem's name (value of MANAGED_BY_LABEL). */
  itemName: string;
}

/** The manifest as it goes to the cluster: no namespace for cluster-scoped kinds, our label. */
export function desiredObject(entry: ManifestEntry, namespaced: boolean, itemName: string): KubeManifest {
  const obj = cloneJson(entry.object);
  const { namespace, ...meta } = obj.metadata;
  const labels = { ...(meta.labels ?? {}), [MANAGED_BY_LABEL]: itemName };
  const scope = namespaced && namespace !== undefined ? { namespace } : {};
  return { ...obj, metadata: { ...meta, ...scope, labels } };
}

/** The reference recorded in managedResources for the object a manifest describes. */
export function refOf(obj: KubeManifest, namespaced: boolean): ResourceRef {
  const ns = namespaced ? obj.metadata.namespace : undefined;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name,
    ...(ns ? { namespace: ns } : {}),
  };
}

function labelsOf(obj: JsonObject | undefined): Record<string, unknown> {
  const meta = obj?.metadata;
  return isRecord(meta) && isRecord(meta.labels) ? meta.labels : {};
}

function metadataOf(obj: JsonObject): JsonObject {
  return isRecord(obj.metadata) ? obj.metadata : {};
}

function path(obj: JsonObject, keys: readonly string[]): unknown {
  let v: unknown = obj;
  for (const k of keys) v = isRecord(v) ? v[k] : undefined;
  return v;
}

function setPath(obj: JsonObject, keys: readonly string[], value: unknown): void {
  let v: JsonObject = obj;
  for (const k of keys.slice(0, -1)) {
    if (!isRecord(v[k])) v[k] = {};
    v = v[k] as JsonObject;
  }
  v[keys[keys.length - 1]] = value;
}

/** Fields upstream carries from the current object into an update (SetRequiredNestedFieldsFromObj). */
const CARRIED_FIELDS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  'batch/Job': [
    ['spec', 'selector'],
    ['spec', 'template', 'metadata', 'labels'],
  ],
  '/Service': [['spec', 'clusterIP']],
};

function nonEmptyList(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length > 0;
}

/** A ServiceAccount keeps the secrets the cluster added when the manifest names none. */
function carrySecrets(current: JsonObject, out: KubeManifest): void {
  if (groupOf(out.apiVersion) !== '' || out.kind !== 'ServiceAccount' || nonEmptyList(out.secrets)) return;
  if (nonEmptyList(current.secrets)) out.secrets = cloneJson(current.secrets);
}

/** The desired object with the current resourceVersion and the fields an update must keep. */
export function withRequiredFields(current: JsonObject, desired: KubeManifest): KubeManifest {
  const out = cloneJson(desired);
  for (const keys of CARRIED_FIELDS[`${groupOf(out.apiVersion)}/${out.kind}`] ?? []) {
    const value = path(current, keys);
    if (value !== undefined) setPath(out, keys, cloneJson(value));
  }
  carrySecrets(current, out);
  const rv = metadataOf(current).resourceVersion;
  if (typeof rv === 'string') out.metadata.resourceVersion = rv;
  return out;
}

function unchanged(current: JsonObject, body: JsonObject): boolean {
  return deepEqual(withoutServerFields(current), withoutServerFields(body));
}

function creation(entry: ManifestEntry, desired: KubeManifest): ApplyAction {
  if (!entry.annotateBeforeCreate) return { op: 'create', body: desired };
  const annotations = { ...(desired.metadata.annotations ?? {}), ...entry.annotateBeforeCreate };
  return { op: 'create', body: { ...desired, metadata: { ...desired.metadata, annotations } } };
}

function updateAction(current: JsonObject, desired: KubeManifest, strategy: UpdateStrategy): ApplyAction {
  if (strategy === 'patch') {
    const patch = mergePatchFor(current, desired);
    return Object.keys(patch).length === 0 ? { op: 'skip', why: 'unchanged' } : { op: 'patch', patch };
  }
  let body: JsonObject;
  if (strategy === 'update') {
    body = withRequiredFields(current, desired);
  } else {
    const merged = mergeObjects(current, desired, strategy === 'mergeOverwrite');
    const labels = { ...labelsOf(merged), [MANAGED_BY_LABEL]: labelsOf(desired)[MANAGED_BY_LABEL] };
    body = { ...merged, metadata: { ...metadataOf(merged), labels } };
  }
  return unchanged(current, body) ? { op: 'skip', why: 'unchanged' } : { op: 'update', body };
}

/** What to do with one manifest given the object in the cluster. */
export function planApply(input: PlanInput): ApplyAction {
  const { entry, current, itemName } = input;
  if (entry.policy === 'ignore') return { op: 'skip', why: 'ignored' };
  const desired = desiredObject(entry, input.namespaced, itemName);
  if (current === undefined) return creation(entry, desired);
  if (entry.policy === 'fallback' && labelsOf(current)[MANAGED_BY_LABEL] !== itemName)
    return { op: 'skip', why: 'managed-elsewhere' };
  if (entry.policy === 'immutable') return { op: 'skip', why: 'immutable' };
  return updateAction(current, desired, input.strategy);
}

/** Whether the object counts as managed by the item after the action. */
export function isManagedAfter(action: ApplyAction): boolean {
  return action.op !== 'skip' || action.why === 'immutable' || action.why === 'unchanged';
}

/** The managedResources entry for a manifest. */
export function managedEntry(entry: ManifestEntry, ref: ResourceRef): ManagedResource {
  return {
    policy: entry.policy,
    resource: ref,
    ...(entry.annotateBeforeDelete ? { annotateBeforeDelete: entry.annotateBeforeDelete } : {}),
    ...(entry.patchBeforeDelete ? { patchBeforeDelete: entry.patchBeforeDelete } : {}),
  };
}

/** Previously managed objects the manifest list no longer names and that may be deleted. */
export function orphansOf(
  previous: readonly ManagedResource[],
  listed: ReadonlySet<string>,
): ManagedResource[] {
  const seen = new Set<string>();
  return previous.filter((m) => {
    const key = refKey(m.resource);
    if (listed.has(key) || seen.has(key) || m.policy === 'keep' || m.policy === 'ignore') return false;
    seen.add(key);
    return true;
  });
}
