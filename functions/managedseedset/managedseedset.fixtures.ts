/**
 * Test fixtures (tests only) for the ManagedSeedSet decision: a set and replicas in a given status.
 */
import type { Seed, Shoot } from '../../shared/api/core.js';
import type { ManagedSeed, ManagedSeedSet, ReplicaStatus } from '../../shared/api/seedmanagement.js';
import type { ManagedSeedSetInput, ObservedManagedSeedSet } from './managedseedset-types.js';
import type { SetPendingReplica, ShootHealth } from './managedseedset-replica.js';

export const NS = 'garden';
export const SET = 'set';
export const NOW = new Date('2024-05-01T10:00:00Z');
export const NOW_TIME = '2024-05-01T10:00:00Z';
export const BEFORE = '2024-05-01T09:00:00Z';

export function set(replicas: number, patch: (s: ManagedSeedSet) => void = () => undefined): ManagedSeedSet {
  const s: ManagedSeedSet = {
    metadata: { name: SET, namespace: NS, uid: 'uid-set', generation: 4, finalizers: ['gardener'] },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'seeds' } },
      template: {
        metadata: { labels: { app: 'seeds' } },
        spec: {
          gardenlet: {
            config: {
              seedConfig: {
                metadata: { labels: { app: 'seeds' } },
                spec: {
                  provider: { type: 'local', region: 'r' },
                  ingress: { domain: 'ingress.replica-name.example' },
                },
              },
            },
          },
        },
      },
      shootTemplate: {
        metadata: { labels: { app: 'seeds' }, annotations: { note: 'x' } },
        spec: { region: 'r', provider: { type: 'local' }, dns: { domain: 'replica-name.seeds.example' } },
      },
    },
    status: { nextReplicaNumber: 0 },
  };
  patch(s);
  return s;
}

export function withPending(s: ManagedSeedSet, pending: SetPendingReplica): ObservedManagedSeedSet {
  return { ...s, status: { ...s.status, pendingReplica: pending } };
}

export interface ReplicaOptions {
  seedReady?: boolean;
  health?: ShootHealth;
  protectShoot?: boolean;
  protectManagedSeed?: boolean;
  priority?: string;
  /** Shoots scheduled on its seed. */
  scheduled?: number;
}

export interface ReplicaObjects {
  name: string;
  shoot: Shoot;
  managedSeed?: ManagedSeed;
  seed?: Seed;
  scheduled: number;
}

type Op = { type: 'Create' | 'Reconcile' | 'Delete'; state: 'Processing' | 'Succeeded' | 'Failed' };

const SHOOT_STATE: Record<string, { op: Op; deleting: boolean }> = {
  ShootReconciling: { op: { type: 'Create', state: 'Processing' }, deleting: false },
  ShootReconcileFailed: { op: { type: 'Reconcile', state: 'Failed' }, deleting: false },
  ShootDeleting: { op: { type: 'Delete', state: 'Processing' }, deleting: true },
  ShootDeleteFailed: { op: { type: 'Delete', state: 'Failed' }, deleting: true },
};

function shootFor(name: string, status: ReplicaStatus, o: ReplicaOptions): Shoot {
  const state = SHOOT_STATE[status] ?? { op: { type: 'Reconcile', state: 'Succeeded' }, deleting: false };
  const annotations: Record<string, string> = {};
  if (o.protectShoot) annotations['seedmanagement.gardener.cloud/protect-from-deletion'] = 'true';
  return {
    metadata: {
      name,
      namespace: NS,
      generation: 1,
      labels: { app: 'seeds', 'shoot.gardener.cloud/status': o.health ?? 'healthy' },
      annotations,
      ...(state.deleting ? { deletionTimestamp: BEFORE } : {}),
    },
    spec: { region: 'r', provider: { type: 'local' } },
    status: { observedGeneration: 1, lastOperation: state.op },
  };
}

function managedSeedFor(name: string, status: ReplicaStatus, o: ReplicaOptions): ManagedSeed {
  const annotations: Record<string, string> = {};
  if (o.protectManagedSeed) annotations['seedmanagement.gardener.cloud/protect-from-deletion'] = 'true';
  if (o.priority !== undefined) annotations['seedmanagement.gardener.cloud/priority'] = o.priority;
  const registered = status === 'ManagedSeedRegistered';
  return {
    metadata: {
      name,
      namespace: NS,
      generation: 1,
      annotations,
      ...(status === 'ManagedSeedDeleting' ? { deletionTimestamp: BEFORE } : {}),
    },
    spec: { shoot: { name } },
    status: {
      observedGeneration: 1,
      conditions: registered ? [{ type: 'SeedRegistered', status: 'True' }] : [],
    },
  };
}

function seedFor(name: string, ready: boolean): Seed {
  return {
    metadata: { name, generation: 1 },
    spec: { provider: { type: 'local', region: 'r' } },
    status: {
      observedGeneration: 1,
      conditions: [
        { type: 'GardenletReady', status: ready ? 'True' : 'False' },
        { type: 'SeedSystemComponentsHealthy', status: 'True' },
      ],
    },
  };
}

const WITH_MANAGED_SEED: readonly ReplicaStatus[] = [
  'ManagedSeedPreparing',
  'ManagedSeedDeleting',
  'ManagedSeedRegistered',
];

/** Replica `<set>-<ordinal>` in `status`; a replica with a ManagedSeed has a Seed (ready unless told). */
export function replica(ordinal: number, status: ReplicaStatus, o: ReplicaOptions = {}): ReplicaObjects {
  const name = `${SET}-${ordinal}`;
  const hasMs = WITH_MANAGED_SEED.includes(status);
  return {
    name,
    shoot: shootFor(name, status, o),
    ...(hasMs
      ? { managedSeed: managedSeedFor(name, status, o), seed: seedFor(name, o.seedReady ?? true) }
      : {}),
    scheduled: o.scheduled ?? 0,
  };
}

export function input(
  s: ObservedManagedSeedSet,
  replicas: readonly ReplicaObjects[],
  now: Date = NOW,
): ManagedSeedSetInput {
  return {
    set: s,
    shoots: replicas.map((r) => r.shoot),
    managedSeeds: replicas.flatMap((r) => (r.managedSeed ? [r.managedSeed] : [])),
    seeds: replicas.flatMap((r) => (r.seed ? [r.seed] : [])),
    scheduledShoots: Object.fromEntries(replicas.map((r) => [r.name, r.scheduled])),
    now,
  };
}

/** A pending replica entry for `set-<ordinal>`, since BEFORE. */
export const pending = (
  ordinal: number,
  reason: SetPendingReplica['reason'],
  retries?: number,
): SetPendingReplica => ({
  name: `set-${ordinal}`,
  reason,
  since: BEFORE,
  ...(retries === undefined ? {} : { retries }),
});

export const registered = (ordinal: number, o: Parameters<typeof replica>[2] = {}): ReplicaObjects =>
  replica(ordinal, 'ManagedSeedRegistered', o);
