/**
 * Deleting managed objects in deletion-group order (deletion.ts) (the I/O shell around deletion.ts), for
 * the uninstall and for objects dropped from the manifest list. Never waits: the deletes of the
 * first group that still has objects are issued, and when some of them are still there right
 * after (finalizers), the caller returns `wait` and the next step issues them again (a DELETE of
 * an object that is already going is harmless; a 404 means gone).
 *
 * Per object: a kind the cluster no longer serves counts as gone (its CRD went, and its objects
 * with it); `fallback` objects are deleted only while they carry this item's label; the entry's
 * `annotateBeforeDelete` is merged into the object's annotations and its `patchBeforeDelete` into
 * the object (upstream AnnotateAndPatchBeforeDelete: one update) before the first delete; in a
 * `forceDelete` group an object still there after its delete loses its finalizers (upstream).
 */
import pLimit from 'p-limit';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { DeletionGroupDefinition } from './deletion-config.js';
import { afterBatch, deletionBatches, type DeletionOutcome } from './deletion.js';
import type { KindResolver } from './discovery.js';
import { requestError } from './errors.js';
import { mergeValues } from './exports.js';
import { deepEqual } from './objects.js';
import { MANAGED_BY_LABEL } from './plan.js';
import { describeRef, type ManagedResource } from './provider-status.js';
import type { GroupVersionKind } from '../../shared/api/gvk.js';
import { isRecord, type JsonObject } from '@landscape/apimachinery';

export interface DeleteContext {
  client: KubeClient;
  resolver: KindResolver;
  itemName: string;
  concurrency: number;
  /** lastError.operation of failures. */
  operation: string;
  checkpoint(name: string): void;
}

type Ref = { name: string; namespace?: string };

function refOf(m: ManagedResource): Ref {
  return { name: m.resource.name, ...(m.resource.namespace ? { namespace: m.resource.namespace } : {}) };
}

async function ignoringNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function annotationsOf(obj: JsonObject): Record<string, unknown> {
  const meta = obj.metadata;
  return isRecord(meta) && isRecord(meta.annotations) ? meta.annotations : {};
}

function labelOf(obj: JsonObject): unknown {
  const meta = obj.metadata;
  return isRecord(meta) && isRecord(meta.labels) ? meta.labels[MANAGED_BY_LABEL] : undefined;
}

/** The object with the entry's annotateBeforeDelete and patchBeforeDelete merged in (pure). */
export function beforeDelete(obj: JsonObject, m: ManagedResource): JsonObject {
  let next = obj;
  if (m.annotateBeforeDelete) {
    const meta = isRecord(obj.metadata) ? obj.metadata : {};
    const annotations = { ...annotationsOf(obj), ...m.annotateBeforeDelete };
    next = { ...obj, metadata: { ...meta, annotations } };
  }
  return m.patchBeforeDelete ? mergeValues(next, m.patchBeforeDelete) : next;
}

/** Reads the object when the entry needs it; false when it is gone or not ours to delete. */
async function mayDelete(ctx: DeleteContext, gvk: GroupVersionKind, m: ManagedResource): Promise<boolean> {
  const wanted = m.annotateBeforeDelete;
  if (m.policy !== 'fallback' && !wanted && !m.patchBeforeDelete) return true;
  const ref = refOf(m);
  const obj = await ignoringNotFound(ctx.client.get<JsonObject>(gvk, ref.namespace, ref.name));
  if (!obj) return false;
  if (m.policy === 'fallback' && labelOf(obj) !== ctx.itemName) return false;
  const next = beforeDelete(obj, m);
  if (next !== obj && !deepEqual(next, obj))
    return (await ignoringNotFound(ctx.client.replace(gvk, next))) !== undefined;
  return true;
}

async function stillThere(
  ctx: DeleteContext,
  gvk: GroupVersionKind,
  ref: Ref,
  forceDelete: boolean,
): Promise<boolean> {
  const still = await ignoringNotFound(ctx.client.getMetadata(gvk, ref.namespace, ref.name));
  if (!still || !forceDelete || (still.metadata?.finalizers ?? []).length === 0) return still !== undefined;
  await ignoringNotFound(ctx.client.mergePatch(gvk, ref, { metadata: { finalizers: null } }));
  return (await ignoringNotFound(ctx.client.getMetadata(gvk, ref.namespace, ref.name))) !== undefined;
}

/** Issues the delete; true when the object is still there afterwards. */
async function deleteOne(ctx: DeleteContext, m: ManagedResource, forceDelete: boolean): Promise<boolean> {
  try {
    const kind = await ctx.resolver.resolve(m.resource.apiVersion, m.resource.kind);
    if (!kind?.served) return false;
    if (!(await mayDelete(ctx, kind.gvk, m))) return false;
    const ref = refOf(m);
    await ignoringNotFound(ctx.client.delete(kind.gvk, ref, { propagationPolicy: 'Background' }));
    return await stillThere(ctx, kind.gvk, ref, forceDelete);
  } catch (err) {
    throw requestError(ctx.operation, 'DeleteManifest', `deleting ${describeRef(m.resource)}`, err);
  }
}

/** Deletes group by group until a group still has objects (wait) or all are gone (done). */
export async function deleteInGroups(
  ctx: DeleteContext,
  resources: readonly ManagedResource[],
  groups?: readonly DeletionGroupDefinition[],
): Promise<DeletionOutcome> {
  const limit = pLimit(ctx.concurrency);
  const batches = deletionBatches(resources, groups);
  for (let i = 0; i < batches.length; i++) {
    ctx.checkpoint('deployer: delete resources');
    const { resources: batch, forceDelete } = batches[i];
    const there = await Promise.all(batch.map((m) => limit(() => deleteOne(ctx, m, forceDelete))));
    const outcome = afterBatch(
      batches,
      i,
      batch.filter((_, j) => there[j]),
    );
    if (outcome.kind !== 'next') return outcome;
  }
  return { kind: 'done' };
}
