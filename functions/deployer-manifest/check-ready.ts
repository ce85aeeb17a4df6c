/**
 * The default readiness check against the target cluster (the I/O shell around readiness.ts):
 * every managed object must exist; Pods, Deployments, StatefulSets, ReplicaSets, DaemonSets and
 * ReplicationControllers must also be ready. One read per object (metadata only for the kinds
 * without a check), up to `concurrency` at a time.
 */
import pLimit from 'p-limit';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { KindResolver } from './discovery.js';
import { requestError } from './errors.js';
import { describeRef, type ManagedResource } from './provider-status.js';
import { isRelevantForDefaultReadiness, readinessProblem } from './readiness.js';
import type { JsonObject } from '@landscape/apimachinery';

export interface ReadinessContext {
  client: KubeClient;
  resolver: KindResolver;
  concurrency: number;
}

export const READINESS_OPERATION = 'DefaultCheckResourcesReadinessManifest';

async function read(ctx: ReadinessContext, m: ManagedResource): Promise<JsonObject | undefined> {
  const { apiVersion, kind: k, namespace, name } = m.resource;
  const kind = await ctx.resolver.resolve(apiVersion, k);
  if (!kind?.served) return undefined;
  try {
    if (isRelevantForDefaultReadiness(apiVersion, k))
      return await ctx.client.get<JsonObject>(kind.gvk, namespace, name);
    return (await ctx.client.getMetadata(kind.gvk, namespace, name)) as unknown as JsonObject;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function problemOf(ctx: ReadinessContext, m: ManagedResource): Promise<string | undefined> {
  try {
    const obj = await read(ctx, m);
    if (obj === undefined || isRelevantForDefaultReadiness(m.resource.apiVersion, m.resource.kind))
      return readinessProblem(m.resource, obj);
    return undefined;
  } catch (err) {
    throw requestError(
      READINESS_OPERATION,
      'CheckResourceReadiness',
      `reading ${describeRef(m.resource)}`,
      err,
    );
  }
}

/** Why the managed objects are not ready yet; empty when all are. */
export async function notReady(
  ctx: ReadinessContext,
  managed: readonly ManagedResource[],
): Promise<string[]> {
  const limit = pLimit(ctx.concurrency);
  const found = await Promise.all(managed.map((m) => limit(() => problemOf(ctx, m))));
  return found.filter((p): p is string => p !== undefined);
}
