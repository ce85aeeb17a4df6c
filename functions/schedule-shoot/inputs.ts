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
export async function loadInputs(
  client: KubeClient,
  config: ScheduleShootConfig,
  shoot: Shoot,
): Promise<InputsResult> {
  const profile = shootCloudProfileName(shoot);
  if (profile === '') return { ok: false, message: 'shoot names no cloud profile' };
  const [seeds, cloudProfile, configMaps] = await Promise.all([
    listAll<Seed>(client, GVK.Seed),
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
