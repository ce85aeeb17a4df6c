/**
 * What a SeedAutoscaler pass reads: the target ManagedSeedSet's scale subresource (spec.replicas,
 * and status.selector as the HPA reads a workload's), the set's ManagedSeeds (by that selector in
 * the set's namespace; without one, those the set controls), and their Seeds with
 * `status.allocatable` and the shoots scheduled on them (`spec.seedName`, plus a different
 * `status.seedName` while a shoot migrates, as the scheduler counts them; no Redis count of
 * scheduled shoots exists yet). Seeds and Shoots are listed once per invocation (a snapshot),
 * whatever the number of autoscalers.
 */
import { GVK } from '../../shared/api/gvk.js';
import type { Seed, Shoot } from '../../shared/api/core.js';
import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import type { ScaleTargetRef } from '../../shared/api/seedautoscaler.js';
import { resourcePath, type KubeClient } from '../../shared/kube/index.js';
import { listAll } from '../../shared/kube/io.js';
import type { SeedSample } from './autoscaler.js';
import { seedUsage } from '../../shared/seedmanagement/scheduler-usage.js';

export interface Scale {
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

/** Seeds and shoots per seed, read at most once per invocation. */
export interface Snapshot {
  seeds(): Promise<ReadonlyMap<string, Seed>>;
  usage(): Promise<Readonly<Record<string, number>>>;
}

export function snapshot(client: KubeClient): Snapshot {
  let seeds: Promise<ReadonlyMap<string, Seed>> | undefined;
  let usage: Promise<Readonly<Record<string, number>>> | undefined;
  return {
    seeds: () =>
      (seeds ??= listAll<Seed>(client, GVK.Seed).then(
        (items) => new Map(items.map((s) => [s.metadata?.name ?? '', s])),
      )),
    usage: () => (usage ??= listAll<Shoot>(client, GVK.Shoot).then(seedUsage)),
  };
}

/** Why the target cannot be scaled by a SeedAutoscaler; undefined when it can. */
export function targetProblem(ref: ScaleTargetRef): string | undefined {
  if (ref.kind !== GVK.ManagedSeedSet.kind)
    return `the scale target must be a ManagedSeedSet, got kind ${JSON.stringify(ref.kind)}`;
  if (ref.apiVersion !== undefined && ref.apiVersion !== GVK.ManagedSeedSet.apiVersion)
    return `the scale target must be a ${GVK.ManagedSeedSet.apiVersion} ManagedSeedSet, got ${JSON.stringify(ref.apiVersion)}`;
  return undefined;
}

export async function readScale(client: KubeClient, namespace: string, name: string): Promise<Scale> {
  const res = await client.request({
    method: 'GET',
    path: resourcePath(GVK.ManagedSeedSet, { namespace, name, subresource: 'scale' }),
  });
  return JSON.parse(res.body) as Scale;
}

export async function writeScale(
  client: KubeClient,
  namespace: string,
  name: string,
  replicas: number,
): Promise<void> {
  await client.mergePatch(
    GVK.ManagedSeedSet,
    { namespace, name },
    { spec: { replicas } },
    { subresource: 'scale' },
  );
}

function controlledBy(ms: ManagedSeed, set: string): boolean {
  return (ms.metadata?.ownerReferences ?? []).some(
    (o) => o.controller === true && o.kind === GVK.ManagedSeedSet.kind && o.name === set,
  );
}

/** The set's seeds as the decision samples them: allocatable and shoots used. */
export async function setSeeds(
  client: KubeClient,
  snap: Snapshot,
  namespace: string,
  set: string,
  scale: Scale,
): Promise<SeedSample[]> {
  const selector = scale.status?.selector;
  const listed = await listAll<ManagedSeed>(client, GVK.ManagedSeed, namespace, selector);
  const names = listed.filter((ms) => selector || controlledBy(ms, set)).map((ms) => ms.metadata?.name ?? '');
  const [seeds, usage] = await Promise.all([snap.seeds(), snap.usage()]);
  return names.flatMap((name) => {
    const seed = seeds.get(name);
    if (!seed) return [];
    const allocatable = seed.status?.allocatable;
    return [{ name, ...(allocatable ? { allocatable } : {}), usage: { shoots: usage[name] ?? 0 } }];
  });
}
