import type { ReplicaStatus } from '../../shared/api/seedmanagement.js';
import {
  NO_DELETABLE_REPLICAS,
  decideManagedSeedSet,
  type ManagedSeedSetDecision,
  type ObservedManagedSeedSet,
} from './managedseedset.js';
import {
  NOW,
  input,
  pending,
  registered,
  replica,
  set,
  withPending,
  type ReplicaObjects,
} from './managedseedset.fixtures.js';

describe('decideManagedSeedSet: status, actions and events', () => {
  it('scale-out: status counts, the Shoot from the template with the placeholder replaced', () => {
    const d = decideManagedSeedSet(
      input(set(3), [registered(0), replica(1, 'ManagedSeedRegistered', { health: 'unhealthy' })]),
    );
    expect(d.status).toMatchObject({
      observedGeneration: 4,
      replicas: 3,
      readyReplicas: 1,
      nextReplicaNumber: 3,
    });
    expect(d.actions[0]).toEqual({
      op: 'create-shoot',
      shoot: {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: {
          name: 'set-2',
          namespace: 'garden',
          labels: { app: 'seeds' },
          annotations: { note: 'x' },
          ownerReferences: [
            {
              apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
              kind: 'ManagedSeedSet',
              name: 'set',
              uid: 'uid-set',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: { region: 'r', provider: { type: 'local' }, dns: { domain: 'set-2.seeds.example' } },
      },
    });
    expect(d.events).toEqual([
      { type: 'Normal', reason: 'CreatingShoot', message: 'Creating Shoot garden/set-2' },
    ]);
    expect(d.requeueAfterMs).toBe(1_800_000);
  });

  it('create-managed-seed: spec.shoot.name set, seed ingress domain replaced', () => {
    const d = decideManagedSeedSet(input(set(1), [replica(0, 'ShootReconciled')]));
    const action = d.actions[0];
    if (action?.op !== 'create-managed-seed') throw new Error('expected create-managed-seed');
    expect(action.managedSeed.metadata).toMatchObject({
      name: 'set-0',
      namespace: 'garden',
      labels: { app: 'seeds' },
    });
    expect(action.managedSeed.spec.shoot).toEqual({ name: 'set-0' });
    expect(action.managedSeed.spec.gardenlet?.config?.seedConfig?.spec.ingress?.domain).toBe(
      'ingress.set-0.example',
    );
    expect(d.events).toEqual([
      { type: 'Normal', reason: 'CreatingManagedSeed', message: 'Creating ManagedSeed garden/set-0' },
    ]);
  });

  it('retry: the Shoot gets gardener.cloud/operation=retry', () => {
    const d = decideManagedSeedSet(input(set(1), [replica(0, 'ShootReconcileFailed')]));
    expect(d.actions).toEqual([
      {
        op: 'annotate-shoot',
        namespace: 'garden',
        name: 'set-0',
        annotations: { 'gardener.cloud/operation': 'retry' },
      },
    ]);
    expect(d.events[0]).toEqual({
      type: 'Normal',
      reason: 'RetryingShootReconciliation',
      message: 'Retrying Shoot garden/set-0 reconciliation',
    });
  });

  it('scale-in of a shoot: deletion confirmation; a ready victim lowers readyReplicas', () => {
    const d = decideManagedSeedSet(
      input(set(1), [registered(0, { scheduled: 1 }), replica(1, 'ShootReconciled')]),
    );
    expect(d.actions).toEqual([
      {
        op: 'delete-shoot',
        namespace: 'garden',
        name: 'set-1',
        annotations: { 'confirmation.gardener.cloud/deletion': 'true' },
      },
    ]);
    const e = decideManagedSeedSet(input(set(0), [registered(0)]));
    expect(e.status).toMatchObject({ replicas: 1, readyReplicas: 0 });
  });

  it('nothing deletable: upstream error, a Warning Event, status still written, no requeue', () => {
    const d = decideManagedSeedSet(input(set(0), [registered(0, { scheduled: 3 })]));
    expect(d.error).toBe(NO_DELETABLE_REPLICAS);
    expect(d.events).toEqual([
      { type: 'Warning', reason: 'ReconcileError', message: 'no deletable replicas found' },
    ]);
    expect(d.status).toMatchObject({ replicas: 1, readyReplicas: 1, observedGeneration: 4 });
    expect(d.requeueAfterMs).toBeUndefined();
  });

  it.each<[string, string]>([
    ['max retries', 'Not retrying Shoot garden/set-0 reconciliation since max retries have been reached'],
  ])('%s: upstream message', (_n, message) => {
    const d = decideManagedSeedSet(
      input(withPending(set(1), pending(0, 'ShootReconciling', 3)), [replica(0, 'ShootReconcileFailed')]),
    );
    expect(d.events).toEqual([{ type: 'Normal', reason: 'NotRetryingShootReconciliation', message }]);
  });

  it('does not mutate its input', () => {
    const i = input(withPending(set(1), pending(0, 'ShootReconciling')), [
      replica(0, 'ShootReconcileFailed'),
    ]);
    const before = structuredClone(i);
    decideManagedSeedSet(i);
    expect(i).toEqual(before);
  });
});

describe('decideManagedSeedSet: scale-in order', () => {
  const rowsIn: [string, ReplicaObjects[], string][] = [
    ['lower ordinal first when all else is equal', [registered(0), registered(1), registered(2)], 'set-0'],
    [
      'GEP-13 priority first',
      [registered(0, { priority: '5' }), registered(1, { priority: '1' }), registered(2)],
      'set-1',
    ],
    ['default priority 3 sorts between', [registered(0, { priority: '4' }), registered(1)], 'set-1'],
    [
      'an unparsable priority counts as 3',
      [registered(0, { priority: 'high' }), registered(1, { priority: '2' })],
      'set-1',
    ],
    [
      'lower replica status first',
      [registered(0), replica(1, 'ShootReconcileFailed'), replica(2, 'ShootReconciled')],
      'set-1',
    ],
    ['seed not ready first', [registered(0), registered(1, { seedReady: false })], 'set-1'],
    [
      'worse shoot health first',
      [registered(0, { health: 'progressing' }), registered(1, { health: 'unhealthy' })],
      'set-1',
    ],
    [
      'unknown before progressing',
      [registered(0, { health: 'progressing' }), registered(1, { health: 'unknown' })],
      'set-1',
    ],
  ];

  it.each(rowsIn)('%s', (_n, replicas, victim) => {
    const d = decideManagedSeedSet(input(set(replicas.length - 1), replicas));
    expect(d.replica?.name).toBe(victim);
  });
});

describe('decideManagedSeedSet: retries across passes', () => {
  /** Feed each decision's status into the next pass, with the shoot in the given state. */
  function run(states: ReplicaStatus[]): ManagedSeedSetDecision[] {
    let current: ObservedManagedSeedSet = set(1);
    return states.map((state, n) => {
      const d = decideManagedSeedSet(
        input(current, [replica(0, state)], new Date(NOW.getTime() + n * 60_000)),
      );
      current = { ...current, status: d.status };
      return d;
    });
  }

  it('three retries with reconciling in between, then not retrying, and it stays so', () => {
    const F: ReplicaStatus = 'ShootReconcileFailed';
    const R: ReplicaStatus = 'ShootReconciling';
    const ds = run([F, R, F, R, F, R, F, F]);
    expect(ds.map((d) => d.replica?.step)).toEqual([
      'retry-shoot-reconcile',
      'wait-shoot-reconciled',
      'retry-shoot-reconcile',
      'wait-shoot-reconciled',
      'retry-shoot-reconcile',
      'wait-shoot-reconciled',
      'max-reconcile-retries',
      'max-reconcile-retries',
    ]);
    expect(ds.map((d) => d.status?.pendingReplica?.retries)).toEqual([1, 1, 2, 2, 3, 3, 3, 3]);
    expect(ds.filter((d) => d.actions.some((a) => a.op === 'annotate-shoot'))).toHaveLength(3);
    // "since" stays once nothing changes
    expect(ds[7].status?.pendingReplica?.since).toBe(ds[6].status?.pendingReplica?.since);
  });

  it('a recovered shoot moves on to its ManagedSeed', () => {
    const ds = run(['ShootReconcileFailed', 'ShootReconciling', 'ShootReconciled']);
    expect(ds[2].replica).toEqual({ name: 'set-0', step: 'create-managed-seed' });
    expect(ds[2].status?.pendingReplica).toMatchObject({ reason: 'ManagedSeedPreparing' });
    expect(ds[2].status?.pendingReplica?.retries).toBeUndefined();
  });

  it('maxShootRetries option', () => {
    const d = decideManagedSeedSet(
      input(withPending(set(1), pending(0, 'ShootReconciling', 1)), [replica(0, 'ShootReconcileFailed')]),
      { maxShootRetries: 1 },
    );
    expect(d.replica?.step).toBe('max-reconcile-retries');
  });
});
