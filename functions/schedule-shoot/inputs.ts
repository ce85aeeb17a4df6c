/**
 * What one decision reads from the API, besides the usage counts: the Shoot, every Seed (paged:
 * O(seeds)), the shoot's CloudProfile (or its NamespacedCloudProfile merged onto the parent, as
 * upstream's gardenerutils.GetCloudProfile reads it), only when MinimalDistance may be used the
 * region-config ConfigMaps of namespace `garden`, and only for a shoot with `spec.dns.domain` the
 * name of the Project of its namespace (upstream's ProjectForNamespaceFromReader, for the domain
 * stage).
 */
import type { CloudProfile, NamespacedCloudProfile, Project, Seed, Shoot } from '../../shared/api/core.js';
import { GARDENER_CORE_API_VERSION, GARDENER_CORE_GROUP, GardenerLabels } from '../../shared/api/core.js';
import { GVK, type GroupVersionKind } from '../../shared/api/gvk.js';
import type { EventObjectRef } from '../../shared/function/index.js';
import type { KubeClient } from '../../shared/kube/index.js';
import { getOptional, listAll } from '../../shared/kube/io.js';
import { parseQuantity } from '@landscape/apimachinery';
import { RESOURCE_SHOOTS } from '../../shared/seedmanagement/capacity.js';
import { SCHEDULING_PURPOSE_REGION_CONFIG, type RegionConfigMap } from './distance.js';
import {
  cloudProfileReference,
  effectiveCloudProfile,
  NAMESPACED_CLOUD_PROFILE_KIND,
} from './scheduler-cloudprofile.js';
import { wantsRegionConfigs, type ScheduleShootConfig } from './config.js';

/** The namespace of the region-config ConfigMaps (upstream's garden namespace). */
export const REGION_CONFIG_NAMESPACE = 'garden';

/** core.gardener.cloud/v1beta1 NamespacedCloudProfile (served by the embedded API server from its CRD). */
export const NAMESPACED_CLOUD_PROFILE_GVK: GroupVersionKind = {
  group: GARDENER_CORE_GROUP,
  version: 'v1beta1',
  apiVersion: GARDENER_CORE_API_VERSION,
  kind: NAMESPACED_CLOUD_PROFILE_KIND,
  plural: 'namespacedcloudprofiles',
  namespaced: true,
};

export interface DecisionInputs {
  seeds: Seed[];
  cloudProfile: CloudProfile;
  regionConfigs: RegionConfigMap[];
  projectName?: string;
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

type ProfileResult = { ok: true; cloudProfile: CloudProfile } | { ok: false; message: string };

const notFound = (resource: string, name: string): { ok: false; message: string } => ({
  ok: false,
  message: `${resource}.core.gardener.cloud ${JSON.stringify(name)} not found`,
});

/** The shoot's CloudProfile; for a NamespacedCloudProfile the parent's spec with it merged on. */
export async function loadCloudProfile(client: KubeClient, shoot: Shoot): Promise<ProfileResult> {
  const ref = cloudProfileReference(shoot);
  if (!ref) return { ok: false, message: 'could not determine cloudprofile from shoot' };
  if (ref.kind !== NAMESPACED_CLOUD_PROFILE_KIND) {
    const cloudProfile = await getOptional<CloudProfile>(client, GVK.CloudProfile, undefined, ref.name);
    return cloudProfile ? { ok: true, cloudProfile } : notFound('cloudprofiles', ref.name);
  }
  const namespace = shoot.metadata?.namespace;
  const ncp = await getOptional<NamespacedCloudProfile>(
    client,
    NAMESPACED_CLOUD_PROFILE_GVK,
    namespace,
    ref.name,
  );
  if (!ncp) return notFound('namespacedcloudprofiles', ref.name);
  const parentName = ncp.spec.parent.name;
  const parent = await getOptional<CloudProfile>(client, GVK.CloudProfile, undefined, parentName);
  const cloudProfile = effectiveCloudProfile(ncp, parent);
  return cloudProfile ? { ok: true, cloudProfile } : notFound('cloudprofiles', parentName);
}

/** The name of the Project whose `spec.namespace` is the shoot's, read only when the domain stage needs it. */
async function projectName(client: KubeClient, shoot: Shoot): Promise<string | undefined> {
  if (shoot.spec.dns?.domain === undefined) return undefined;
  const projects = await listAll<Project>(client, GVK.Project);
  return projects.find((p) => p.spec?.namespace === shoot.metadata?.namespace)?.metadata?.name;
}

export async function loadInputs(
  client: KubeClient,
  config: ScheduleShootConfig,
  shoot: Shoot,
  listSeeds: SeedLister = () => listAll<Seed>(client, GVK.Seed),
): Promise<InputsResult> {
  const [seeds, profile, configMaps, project] = await Promise.all([
    listSeeds(),
    loadCloudProfile(client, shoot),
    regionConfigs(client, config),
    projectName(client, shoot),
  ]);
  if (!profile.ok) return profile;
  const inputs: DecisionInputs = { seeds, cloudProfile: profile.cloudProfile, regionConfigs: configMaps };
  if (project !== undefined) inputs.projectName = project;
  return { ok: true, inputs };
}

/** The seed's `status.allocatable.shoots` as a number; -1 when it has none (no limit). */
export function allocatableShoots(seed: Seed): number {
  const allocatable = seed.status?.allocatable;
  if (!allocatable || !Object.prototype.hasOwnProperty.call(allocatable, RESOURCE_SHOOTS)) return -1;
  const parsed = parseQuantity(allocatable[RESOURCE_SHOOTS]);
  return parsed.ok ? Math.max(0, parsed.value) : 0;
}
