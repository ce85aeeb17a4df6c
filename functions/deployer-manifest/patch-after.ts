/**
 * `patchAfterDeployment` (upstream ManifestApplier.PatchAfterDeployment,
 * pkg/deployer/lib/resourcemanager/objectapplier.go): once the objects are deployed, ready and
 * exported, each manifest's patch is merged into the object as it is then (upstream: mergo with
 * override — maps merged, everything else replaced) and the object updated. Only objects this
 * item manages and writes: not `ignore`, not `immutable`, not held by another item (`fallback`).
 * A failure is recoverable (`ReconcileManifests` / `PatchAfterDeployment`); the step is retried.
 */
import { DeployerError } from '../../shared/deployer/types.js';
import type { KindResolver } from './discovery.js';
import { apiErrorMessage } from './errors.js';
import { mergeValues } from './exports.js';
import { deepEqual } from './objects.js';
import { refOf } from './plan.js';
import type { ManifestEntry } from './provider-config.js';
import { describeRef, refKey, type ManagedResource } from './provider-status.js';
import type { KubeClient } from '../../shared/kube/index.js';
import type { JsonObject } from '@landscape/apimachinery';

export interface PatchContext {
  client: KubeClient;
  resolver: KindResolver;
}

/** The entries to patch (pure): with a patch, a writing policy, and managed by the item. */
export function toPatch(
  entries: readonly ManifestEntry[],
  managed: readonly ManagedResource[],
): ManifestEntry[] {
  const keys = new Set(managed.map((m) => refKey(m.resource)));
  return entries.filter(
    (e) =>
      e.patchAfterDeployment !== undefined &&
      e.policy !== 'ignore' &&
      e.policy !== 'immutable' &&
      (keys.has(refKey(refOf(e.object, true))) || keys.has(refKey(refOf(e.object, false)))),
  );
}

async function patchOne(ctx: PatchContext, e: ManifestEntry): Promise<void> {
  const kind = await ctx.resolver.resolve(e.object.apiVersion, e.object.kind);
  if (!kind?.served) return;
  const ref = refOf(e.object, kind.gvk.namespaced);
  try {
    const current = await ctx.client.get<JsonObject>(kind.gvk, ref.namespace, ref.name);
    const next = mergeValues(current, e.patchAfterDeployment ?? {});
    if (!deepEqual(next, current)) await ctx.client.replace(kind.gvk, next);
  } catch (err) {
    throw new DeployerError(
      'ReconcileManifests',
      'PatchAfterDeployment',
      `unable to patch resource ${describeRef(ref)}: ${apiErrorMessage(err)}`,
    );
  }
}

/** Applies the patches one after the other (upstream order: the manifest list's). */
export async function patchAfterDeployment(
  ctx: PatchContext,
  entries: readonly ManifestEntry[],
  managed: readonly ManagedResource[],
): Promise<void> {
  for (const e of toPatch(entries, managed)) await patchOne(ctx, e);
}
