/**
 * What one decision reads from the API, besides the usage counts: the Shoot, every Seed (paged:
 * O(seeds)), the shoot's CloudProfile, and — only when MinimalDistance may be used — the
 * region-config ConfigMaps of namespace `garden`.
 */
import type { CloudProfile, Seed, Shoot } from '../../shared/api/core.js';
import { GardenerLabels } from '../../shared/api/core.js';
import { GVK } from '../../shared/api/gvk.js';
import type { EventObjectRef } from '../../shared/function/index.js';
import type { KubeClient } from '../../shared/kube/index.js';
import { getOptional, listAll } from '../../shared/kube/io.js';
import { parseQuantity } from '../../shared/api/quantity.js';
import { RESOURCE_SHOOTS } from '../../shared/seedmanagement/capacity.js';
import {
  SCHEDULING_PURPOSE_REGION_CONFIG,
  type RegionConfigMap,
} from '../../shared/seedmanagement/distance.js';
import { shootCloudProfileName } from '../../shared/seedmanagement/scheduler.js';
import { wantsRegionConfigs, type ScheduleShootConfig } from './config.js';

/** The namespace of the region-config ConfigMaps (upstream's garden namespace). */
export const REGION_CONFIG_NAMESPACE = 'garden';

export interface DecisionInputs {
  seeds: Seed[];
  cloudProfile: CloudProfile;
  regionConfigs: RegionConfigMap[];
}

export type InputsResult = { ok: true; inputs: DecisionInputs } | { ok: false; message: string };

export function readShoot(client: KubeClient, ref: EventObjectRef): Promise<Shoot | undefined> {
  return getOptional<Shoot>(client, GVK.Shoot, ref.namespace, ref.name);
}

function regionConfigs(client: KubeClient, config: ScheduleShootConfig): Promise<RegionConfigMap[]> {
  if (!wantsRegionConfigs(config)) return Promise.resolve([]);
  const selector = `${GardenerLabels.schedulingPurpose}=${SCHEDULING_PURPOSE_REGION_CONFIG}`;
  return listAll<RegionConfigMap>(client, GVK.ConfigMap, REGION_CONFIG_NAMESPACE, selector);
}

/** Seeds, CloudProfile and region configs; a message (as the API server words it) when the profile is missing. */
/** Lists every Seed; a SeedLister may answer from a short-lived cache. */
export type SeedLister = () => Promise<Seed[]>;

/**
 * The Seeds, listed at most once per `ttlMs` by this instance (concurrent decisions share one
 * list; a failed list is not kept). gardener-scheduler decides from an informer cache too; at
 * 10,000 Seeds one list is ~20 MiB of JSON, more than the decision itself costs. Capacity stays
 * exact: the reservation checks the counts in Redis, not the list.
 */
export function cachedSeeds(client: KubeClient, ttlMs: number, now: () => number): SeedLister {
  let cached: { at: number; seeds: Promise<Seed[]> } | undefined;
  return () => {
    if (ttlMs <= 0) return listAll<Seed>(client, GVK.Seed);
    const t = now();
    if (cached && t - cached.at < ttlMs) return cached.seeds;
    const entry = { at: t, seeds: listAll<Seed>(client, GVK.Seed) };
    entry.seeds.catch(() => {
      if (cached === entry) cached = undefined;
    });
    cached = entry;
    return entry.seeds;
  };
}

export async function loadInputs(
  client: KubeClient,
  config: ScheduleShootConfig,
  shoot: Shoot,
  listSeeds: SeedLister = () => listAll<Seed>(client, GVK.Seed),
): Promise<InputsResult> {
  const profile = shootCloudProfileName(shoot);
  if (profile === '') return { ok: false, message: 'shoot names no cloud profile' };
  const [seeds, cloudProfile, configMaps] = await Promise.all([
    listSeeds(),
    getOptional<CloudProfile>(client, GVK.CloudProfile, undefined, profile),
    regionConfigs(client, config),
  ]);
  if (!cloudProfile)
    return { ok: false, message: `cloudprofiles.core.gardener.cloud ${JSON.stringify(profile)} not found` };
  return { ok: true, inputs: { seeds, cloudProfile, regionConfigs: configMaps } };
}

/** The seed's `status.allocatable.shoots` as a number; -1 when it has none (no limit). */
export function allocatableShoots(seed: Seed): number {
  const allocatable = seed.status?.allocatable;
  if (!allocatable || !Object.prototype.hasOwnProperty.call(allocatable, RESOURCE_SHOOTS)) return -1;
  const parsed = parseQuantity(allocatable[RESOURCE_SHOOTS]);
  return parsed.ok ? Math.max(0, parsed.value) : 0;
}
