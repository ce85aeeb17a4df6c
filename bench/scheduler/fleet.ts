/**
 * The scheduler bench's data, deterministic (a seeded PRNG): Seeds over several providers and
 * regions with realistic labels, taints, zones, access restrictions and (mostly) an allocatable
 * shoot count; Shoots already bound across them (spec.seedName, and status.seedName naming the old
 * seed for a few in control-plane migration); a stream of new unbound Shoots of mixed providers,
 * regions and purposes, a few of which cannot be scheduled. Every object is built from its own
 * literals (no shared sub-objects), as decoding a list from the API server would give. The Shoots
 * are ./shoots.ts.
 */
import type { CloudProfile, GardenerCondition, Seed, Taint } from '../../shared/api/core.js';
import { GardenerAnnotations, SEED_TAINT_PROTECTED } from '../../shared/api/core.js';
import { intIn, pickOf, prng, type Rand } from '../../shared/random/index.js';

// the seeded PRNG and its helpers are shared (the fuzz uses them too)
export { intIn, pickOf, prng, type Rand };

export interface Provider {
  type: string;
  /** Share of the seeds and of the new shoots. */
  share: number;
  regions: readonly string[];
  machineTypes: readonly string[];
}

export const PROVIDERS: readonly Provider[] = [
  {
    type: 'aws',
    share: 0.4,
    regions: ['eu-west-1', 'eu-central-1', 'us-east-1', 'us-west-2', 'ap-southeast-1'],
    machineTypes: ['m5.large', 'm5.xlarge', 'c5.2xlarge'],
  },
  {
    type: 'gcp',
    share: 0.25,
    regions: ['europe-west1', 'europe-west4', 'us-central1', 'asia-east1'],
    machineTypes: ['n1-standard-4', 'n2-standard-8'],
  },
  {
    type: 'azure',
    share: 0.2,
    regions: ['westeurope', 'northeurope', 'eastus', 'southeastasia'],
    machineTypes: ['Standard_D4s_v3', 'Standard_D8s_v3'],
  },
  {
    type: 'openstack',
    share: 0.15,
    regions: ['eu-de-1', 'eu-de-2', 'eu-nl-1', 'na-us-1'],
    machineTypes: ['g_c4_m16', 'g_c8_m32'],
  },
];

export const LABEL_PROVIDER = 'seed.gardener.cloud/provider';
export const LABEL_REGION = 'seed.gardener.cloud/region';
export const LABEL_EU_ACCESS = 'seed.gardener.cloud/eu-access';
export const LABEL_OPENSTACK = 'seed.gardener.cloud/openstack-network';
export const TAINT_DEDICATED = 'seed.gardener.cloud/dedicated';
export const EU_ACCESS_ONLY = 'eu-access-only';
/** A region no seed is in: the shoots asking for it fail at the strategy stage. */
export const UNKNOWN_REGION = 'moon-south-1';

export const isEu = (region: string): boolean => /^(eu|europe|westeurope|northeurope)/.test(region);

export function providerAt(rand: Rand): Provider {
  let r = rand();
  for (const p of PROVIDERS) {
    if (r < p.share) return p;
    r -= p.share;
  }
  return PROVIDERS[PROVIDERS.length - 1];
}

/** One CloudProfile per provider, each with another kind of seedSelector (or none). */
export function cloudProfiles(): Map<string, CloudProfile> {
  const selectors: Record<string, CloudProfile['spec']['seedSelector']> = {
    aws: undefined,
    gcp: { matchExpressions: [{ key: 'environment', operator: 'NotIn', values: ['canary'] }] },
    azure: { providerTypes: ['azure'] },
    openstack: { matchLabels: { [LABEL_OPENSTACK]: 'true' } },
  };
  const out = new Map<string, CloudProfile>();
  for (const p of PROVIDERS) {
    const seedSelector = selectors[p.type];
    out.set(p.type, {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'CloudProfile',
      metadata: { name: p.type },
      spec: {
        type: p.type,
        regions: p.regions.map((name) => ({ name, zones: [{ name: `${name}a` }, { name: `${name}b` }] })),
        ...(seedSelector ? { seedSelector } : {}),
      },
    });
  }
  return out;
}

export const timeAt = (rand: Rand): string =>
  new Date(Date.UTC(2024, 0, 1) + Math.floor(rand() * 500 * 86_400_000)).toISOString();

export function conditions(
  rand: Rand,
  types: readonly string[],
  ready: boolean,
): { conditions: GardenerCondition[] } {
  return {
    conditions: types.map((type, i) => ({
      type,
      status: i === 0 && !ready ? ('False' as const) : ('True' as const),
      lastTransitionTime: timeAt(rand),
      lastUpdateTime: timeAt(rand),
      reason: i === 0 && !ready ? 'GardenletNotReady' : `${type}`,
      message: i === 0 && !ready ? 'Gardenlet stopped posting seed status.' : 'All checks passed.',
    })),
  };
}

const SEED_CONDITIONS = [
  'GardenletReady',
  'BackupBucketsReady',
  'ExtensionsReady',
  'SeedSystemComponentsHealthy',
];

function seedLabels(rand: Rand, p: Provider, region: string): Record<string, string> {
  const labels: Record<string, string> = {
    [LABEL_PROVIDER]: p.type,
    [LABEL_REGION]: region,
    environment: rand() < 0.05 ? 'canary' : 'prod',
    'seed.gardener.cloud/gardenlet': 'managed',
  };
  if (isEu(region)) labels[LABEL_EU_ACCESS] = 'true';
  if (p.type === 'openstack' && rand() < 0.9) labels[LABEL_OPENSTACK] = 'true';
  return labels;
}

/** 5% protected, 3% dedicated, the rest none. */
function seedTaints(rand: Rand): { taints?: Taint[] } {
  const t = rand();
  if (t < 0.05) return { taints: [{ key: SEED_TAINT_PROTECTED }] };
  if (t < 0.08) return { taints: [{ key: TAINT_DEDICATED, value: 'team-a' }] };
  return {};
}

function seedAt(rand: Rand, index: number): Seed {
  const p = providerAt(rand);
  const region = pickOf(rand, p.regions);
  const name = `${p.type}-${region}-${index.toString(36)}`;
  const labels = seedLabels(rand, p, region);
  const taints = seedTaints(rand);
  const zones = rand() < 0.9 ? ['a', 'b', 'c'].map((z) => `${region}${z}`) : [`${region}a`];
  const annotations: Record<string, string> = { 'gardener.cloud/created-by': 'seed-operator' };
  if (rand() < 0.005) annotations[GardenerAnnotations.emergencyStopReconciliations] = 'true';
  const allocatable = rand() < 0.85 ? { allocatable: { shoots: String(intIn(rand, 8, 20)) } } : {};
  const ready = rand() >= 0.01;
  const restricted = isEu(region) && rand() < 0.3 ? { accessRestrictions: [{ name: EU_ACCESS_ONLY }] } : {};
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Seed',
    metadata: {
      name,
      uid: `seed-${index}-${Math.floor(rand() * 1e12).toString(16)}`,
      resourceVersion: String(1000 + index),
      generation: intIn(rand, 1, 40),
      creationTimestamp: timeAt(rand),
      labels,
      annotations,
    },
    spec: {
      provider: { type: p.type, region, zones },
      settings: {
        scheduling: { visible: rand() >= 0.02 },
        excessCapacityReservation: { enabled: true },
        loadBalancerServices: { annotations: {} },
        verticalPodAutoscaler: { enabled: true },
      },
      ...taints,
      backup: { provider: p.type, region, secretRef: { name: `backup-${name}`, namespace: 'garden' } },
      ingress: { domain: `ingress.${name}.example.com`, controller: { kind: 'nginx' } },
      dns: { provider: { type: 'aws-route53', secretRef: { name: 'dns', namespace: 'garden' } } },
      networks: { nodes: '10.250.0.0/16', pods: '100.64.0.0/12', services: '100.128.0.0/13' },
      ...restricted,
    },
    status: {
      ...conditions(rand, SEED_CONDITIONS, ready),
      lastOperation: {
        type: 'Reconcile',
        state: 'Succeeded',
        progress: 100,
        lastUpdateTime: timeAt(rand),
        description: 'Seed cluster has been successfully reconciled.',
      },
      observedGeneration: 1,
      kubernetesVersion: '1.30.4',
      clusterIdentity: `${name}-identity`,
      capacity: { shoots: '250' },
      ...allocatable,
      gardener: { id: 'abc123', name: `gardenlet-${name}`, version: 'v1.100.0' },
    },
  };
}

export function buildSeeds(count: number, rand: Rand): Seed[] {
  return Array.from({ length: count }, (_, i) => seedAt(rand, i));
}
