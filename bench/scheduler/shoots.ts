/**
 * The scheduler bench's Shoots (./fleet.ts has the Seeds and the PRNG helpers): Shoots already bound
 * across the seeds, and the stream of new unbound Shoots.
 */
import type { LastOperation, Seed, Shoot, ShootPurpose } from '../../shared/api/core.js';
import { SEED_TAINT_PROTECTED } from '../../shared/api/core.js';
import { usageSeeds } from '../../functions/schedule-shoot/scheduler.js';
import {
  conditions,
  EU_ACCESS_ONLY,
  intIn,
  isEu,
  pickOf,
  providerAt,
  PROVIDERS,
  TAINT_DEDICATED,
  timeAt,
  UNKNOWN_REGION,
  type Provider,
  type Rand,
} from './fleet.js';

const SHOOT_CONDITIONS = [
  'APIServerAvailable',
  'ControlPlaneHealthy',
  'ObservabilityComponentsHealthy',
  'EveryNodeReady',
  'SystemComponentsHealthy',
];

interface ShootShape {
  name: string;
  namespace: string;
  provider: Provider;
  region: string;
  purpose: ShootPurpose;
  resourceVersion: number;
}

function shootBody(rand: Rand, s: ShootShape): Shoot {
  const machine = pickOf(rand, s.provider.machineTypes);
  const workers = Array.from({ length: intIn(rand, 1, 3) }, (_, i) => ({
    name: `worker-${i}`,
    machine: { type: machine, image: { name: 'gardenlinux', version: '1592.1.0' } },
    minimum: 1,
    maximum: intIn(rand, 2, 10),
    zones: [`${s.region}a`],
  }));
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: {
      name: s.name,
      namespace: s.namespace,
      uid: `${s.namespace}-${s.name}-${Math.floor(rand() * 1e12).toString(16)}`,
      resourceVersion: String(s.resourceVersion),
      generation: intIn(rand, 1, 30),
      creationTimestamp: timeAt(rand),
      labels: {
        'shoot.gardener.cloud/status': 'healthy',
        'project.gardener.cloud/name': s.namespace.slice('garden-'.length),
      },
      annotations: { 'gardener.cloud/created-by': `user-${intIn(rand, 1, 5000)}@example.com` },
      finalizers: ['gardener'],
    },
    spec: {
      cloudProfileName: s.provider.type,
      cloudProfile: { kind: 'CloudProfile', name: s.provider.type },
      region: s.region,
      purpose: s.purpose,
      secretBindingName: `${s.provider.type}-secret`,
      provider: { type: s.provider.type, workers },
      kubernetes: { version: '1.30.4', enableStaticTokenKubeconfig: false },
      networking: { type: 'calico', nodes: '10.250.0.0/16' },
      hibernation: { enabled: false },
      dns: { domain: `${s.name}.${s.namespace}.shoot.example.com` },
    },
  };
}

/** A shoot already bound to `seed` (its provider and region); `from` is the seed it migrates from. */
function boundShootAt(rand: Rand, index: number, seed: Seed, from: Seed | undefined): Shoot {
  const provider = PROVIDERS.find((p) => p.type === seed.spec.provider.type) ?? PROVIDERS[0];
  const shoot = shootBody(rand, {
    name: `shoot-${index.toString(36)}`,
    namespace: `garden-project-${(index % 5000).toString(36)}`,
    provider,
    region: seed.spec.provider.region,
    purpose: pickOf(rand, ['evaluation', 'development', 'production', 'production', 'infrastructure']),
    resourceVersion: 100_000 + index,
  });
  shoot.spec.seedName = seed.metadata?.name;
  const lastOperation: LastOperation = from
    ? {
        type: 'Migrate',
        state: 'Processing',
        progress: 40,
        description: 'Migrating the shoot control plane.',
      }
    : {
        type: 'Reconcile',
        state: 'Succeeded',
        progress: 100,
        description: 'Shoot cluster has been reconciled.',
      };
  shoot.status = {
    ...conditions(rand, SHOOT_CONDITIONS, true),
    lastOperation: { ...lastOperation, lastUpdateTime: timeAt(rand) },
    observedGeneration: 1,
    seedName: (from ?? seed).metadata?.name,
    technicalID: `shoot--${shoot.metadata?.namespace}--${shoot.metadata?.name}`,
    uid: shoot.metadata?.uid,
    gardener: { id: 'abc123', name: 'gardenlet', version: 'v1.100.0' },
  };
  return shoot;
}

function byProviderType(seeds: readonly Seed[]): Map<string, Seed[]> {
  const out = new Map<string, Seed[]>();
  for (const s of seeds) {
    const list = out.get(s.spec.provider.type) ?? [];
    list.push(s);
    out.set(s.spec.provider.type, list);
  }
  return out;
}

/**
 * `count` shoots bound across the seeds: each goes to a random seed that still has room (its
 * allocatable count, if any; a few tries, then it goes anyway); ~1% are in control-plane
 * migration (status.seedName: another seed of the provider, counted there too).
 */
export function buildShoots(seeds: readonly Seed[], count: number, rand: Rand): Shoot[] {
  const used = new Map<string, number>();
  const room = (s: Seed): boolean => {
    const a = s.status?.allocatable?.shoots;
    return a === undefined || (used.get(s.metadata?.name ?? '') ?? 0) < Number(a);
  };
  const byProvider = byProviderType(seeds);
  const out: Shoot[] = [];
  for (let i = 0; i < count; i++) {
    let seed = pickOf(rand, seeds);
    for (let tries = 0; tries < 5 && !room(seed); tries++) seed = pickOf(rand, seeds);
    const from = rand() < 0.01 ? pickOf(rand, byProvider.get(seed.spec.provider.type) ?? []) : seed;
    const shoot = boundShootAt(rand, i, seed, from === seed ? undefined : from);
    for (const name of usageSeeds(shoot)) used.set(name, (used.get(name) ?? 0) + 1);
    out.push(shoot);
  }
  return out;
}

/** What a new shoot asks of its seed: zone HA, tolerations, EU access, a seed selector. */
function asks(rand: Rand, shoot: Shoot): void {
  const spec = shoot.spec;
  if (spec.purpose === 'production' && rand() < 0.3) {
    spec.controlPlane = { highAvailability: { failureTolerance: { type: 'zone' } } };
  }
  const t = rand();
  if (t < 0.05) spec.tolerations = [{ key: SEED_TAINT_PROTECTED }];
  else if (t < 0.08) spec.tolerations = [{ key: TAINT_DEDICATED, value: 'team-a' }];
  if (isEu(spec.region) && rand() < 0.1) spec.accessRestrictions = [{ name: EU_ACCESS_ONLY }];
  const sel = rand();
  if (sel < 0.01) spec.seedSelector = { matchLabels: { 'seed.gardener.cloud/gpu': 'true' } };
  else if (sel < 0.11) spec.seedSelector = { matchLabels: { environment: 'prod' } };
}

/**
 * `count` new unbound shoots: providers by share, any of the provider's regions (3%: a region no
 * seed is in), mixed purposes; some zone-HA, some tolerating the protected or dedicated taints, some
 * asking for EU access only, some with a seed selector (1% one that matches no seed).
 */
export function buildNewShoots(count: number, rand: Rand, firstIndex: number): Shoot[] {
  const out: Shoot[] = [];
  for (let i = 0; i < count; i++) {
    const provider = providerAt(rand);
    const region = rand() < 0.03 ? UNKNOWN_REGION : pickOf(rand, provider.regions);
    const purpose = pickOf<ShootPurpose>(rand, [
      'evaluation',
      'evaluation',
      'evaluation',
      'development',
      'development',
      'production',
      'production',
      'production',
      'testing',
      'infrastructure',
    ]);
    const index = firstIndex + i;
    const shoot = shootBody(rand, {
      name: `new-${index.toString(36)}`,
      namespace: `garden-project-${(index % 5000).toString(36)}`,
      provider,
      region,
      purpose,
      resourceVersion: 10_000_000 + 2 * index,
    });
    asks(rand, shoot);
    shoot.status = { lastOperation: { type: 'Create', state: 'Pending', progress: 0 } };
    out.push(shoot);
  }
  return out;
}

/** The shoot as the API server returns it after the binding patch. */
export function bound(shoot: Shoot, seedName: string): Shoot {
  return {
    ...shoot,
    metadata: { ...shoot.metadata, resourceVersion: String(Number(shoot.metadata?.resourceVersion) + 1) },
    spec: { ...shoot.spec, seedName },
  };
}
