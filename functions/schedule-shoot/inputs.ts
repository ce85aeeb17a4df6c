/**
 * What one decision reads from the API, besides the usage counts: the Shoot, every Seed (paged:
 * O(seeds)), the shoot's CloudProfile, and — only when MinimalDistance may be used — the
 * region-config ConfigMaps of namespace `garden`.
 */
import type { CloudProfile, Seed, Shoot } from '../../shared/api/core.js';
import { GardenerLabels } from '../../shared/api/core.js';
import { GVK, type GroupVersionKind } from '../../shared/api/gvk.js';
import type { EventObjectRef } from '../../shared/function/index.js';
import { isNotFound, type KubeClient, type ObjectLike } from '../../shared/kube/index.js';
import { parseQuantity, RESOURCE_SHOOTS } from '../../shared/seedmanagement/capacity.js';
import {
  SCHEDULING_PURPOSE_REGION_CONFIG,
  type RegionConfigMap,
} from '../../shared/seedmanagement/distance.js';
import { shootCloudProfileName } from '../../shared/seedmanagement/scheduler.js';
import { wantsRegionConfigs, type ScheduleShootConfig } from './config.js';

/** The namespace of the region-config ConfigMaps (upstream's garden namespace). */
export const REGION_CONFIG_NAMESPACE = 'garden';
const PAGE = 500;

export interface DecisionInputs {
  seeds: Seed[];
  cloudProfile: CloudProfile;
  regionConfigs: RegionConfigMap[];
}

export type InputsResult = { ok: true; inputs: DecisionInputs } | { ok: false; message: string };

/** The object, or undefined when it does not exist. */
export async function getOrUndefined<T extends ObjectLike>(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace: string | undefined,
  name: string,
): Promise<T | undefined> {
  try {
    return await client.get<T>(gvk, namespace, name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export function readShoot(client: KubeClient, ref: EventObjectRef): Promise<Shoot | undefined> {
  return getOrUndefined<Shoot>(client, GVK.Shoot, ref.namespace, ref.name);
}

/** Every object of a list, page by page. */
export async function listAll<T extends ObjectLike>(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace?: string,
  labelSelector?: string,
): Promise<T[]> {
  const out: T[] = [];
  let token: string | undefined;
  do {
    const page = await client.list<T>(gvk, namespace, { labelSelector, limit: PAGE, continue: token });
    out.push(...page.items);
    token = page.metadata?.continue || undefined;
  } while (token);
  return out;
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
    getOrUndefined<CloudProfile>(client, GVK.CloudProfile, undefined, profile),
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
