import { StatusError } from '../api/errors.js';
import { checkSeedManagementStatusUpdate, prepareSeedManagementUpdate } from './seedmanagement-strategy.js';
import type { KubeObject, ResourceDef } from '../api/types.js';

const SEED = { group: 'core.gardener.cloud', kind: 'Seed' } as ResourceDef;
const MS = { group: 'seedmanagement.gardener.cloud', kind: 'ManagedSeed' } as ResourceDef;
const SET = { group: 'seedmanagement.gardener.cloud', kind: 'ManagedSeedSet' } as ResourceDef;
const OTHER = { group: 'example.com', kind: 'ManagedSeedSet' } as ResourceDef;

function obj(annotations?: Record<string, string>, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'X',
    metadata: { name: 'set', generation: 4, ...(annotations ? { annotations } : {}) },
    spec: {},
    ...(status ? { status } : {}),
  };
}

describe('prepareSeedManagementUpdate (mustIncreaseGeneration)', () => {
  it.each([
    [SEED, 'reconcile'],
    [MS, 'reconcile'],
    [SET, 'reconcile'],
  ])('%o: operation=reconcile raises the generation and is removed', (def, op) => {
    const out = prepareSeedManagementUpdate(def, obj(), obj({ 'gardener.cloud/operation': op, keep: 'x' }));
    expect(out.metadata.generation).toBe(5);
    expect(out.metadata.annotations).toEqual({ keep: 'x' });
  });

  it('a Seed renewal raises the generation once and stays', () => {
    const renew = { 'gardener.cloud/operation': 'renew-kubeconfig' };
    const out = prepareSeedManagementUpdate(SEED, obj(), obj(renew));
    expect(out.metadata).toMatchObject({ generation: 5, annotations: renew });
    expect(prepareSeedManagementUpdate(SEED, obj(renew), obj(renew)).metadata.generation).toBe(4);
    expect(prepareSeedManagementUpdate(MS, obj(), obj(renew)).metadata.generation).toBe(4);
  });

  it('leaves other kinds and other updates alone', () => {
    const next = obj({ 'gardener.cloud/operation': 'reconcile' });
    expect(prepareSeedManagementUpdate(OTHER, obj(), next)).toBe(next);
    const plain = obj({ keep: 'x' });
    expect(prepareSeedManagementUpdate(SET, obj(), plain)).toBe(plain);
  });
});

function failure(
  prev: Record<string, unknown>,
  next: Record<string, unknown>,
  def = SET,
): string | undefined {
  try {
    checkSeedManagementStatusUpdate(def, obj(undefined, prev), obj(undefined, next));
  } catch (e) {
    if (e instanceof StatusError && e.code === 422) return e.message;
    throw e;
  }
  return undefined;
}

const INVALID = 'ManagedSeedSet.seedmanagement.gardener.cloud "set" is invalid: ';

describe('checkSeedManagementStatusUpdate (ValidateManagedSeedSetStatusUpdate)', () => {
  it.each([
    [
      'nextReplicaNumber decremented',
      { nextReplicaNumber: 3 },
      { nextReplicaNumber: 2 },
      'status.nextReplicaNumber: Invalid value: 2: cannot be decremented',
    ],
    [
      'collisionCount decremented',
      { collisionCount: 1 },
      { collisionCount: 0 },
      'status.collisionCount: Invalid value: 0: cannot be decremented',
    ],
    [
      'collisionCount dropped',
      { collisionCount: 1 },
      {},
      'status.collisionCount: Invalid value: 0: cannot be decremented',
    ],
    [
      'more ready than replicas',
      {},
      { replicas: 1, readyReplicas: 2 },
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
    ],
    [
      'a pending replica of another set',
      {},
      { pendingReplica: { name: 'other-0', reason: 'SeedNotReady' } },
      'status.pendingReplica.name: Invalid value: "other-0": must contain the parent name and a valid ordinal',
    ],
    [
      'an unknown pending reason',
      {},
      { pendingReplica: { name: 'set-1', reason: 'Sleeping' } },
      'status.pendingReplica.reason: Unsupported value: "Sleeping": supported values: "ShootReconciling", "ShootDeleting", "ShootReconcileFailed", "ShootDeleteFailed", "ManagedSeedPreparing", "ManagedSeedDeleting", "SeedNotReady", "ShootNotHealthy"',
    ],
  ])('refuses %s', (_what, prev, next, want) => {
    expect(failure(prev, next)).toBe(INVALID + want);
  });

  it('accepts what the managedseedset function writes, and other kinds', () => {
    expect(
      failure(
        { nextReplicaNumber: 1, replicas: 1 },
        {
          nextReplicaNumber: 2,
          replicas: 2,
          readyReplicas: 1,
          pendingReplica: { name: 'set-1', reason: 'ShootReconciling', retries: 0 },
        },
      ),
    ).toBeUndefined();
    expect(failure({ nextReplicaNumber: 3 }, { nextReplicaNumber: 1 }, MS)).toBeUndefined();
  });
});
