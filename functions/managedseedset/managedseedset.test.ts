import {
  REPLICA_STEPS,
  SET_OUTCOMES,
  decideManagedSeedSet,
  isReplicaStep,
  isSetOutcome,
  type ManagedSeedSetInput,
  type ReplicaStep,
  type SetOutcome,
} from './managedseedset.js';
import type { SetPendingReplica } from './managedseedset-replica.js';
import {
  BEFORE,
  NOW_TIME,
  input,
  pending,
  registered,
  replica,
  set,
  withPending,
} from './managedseedset.fixtures.js';

type Row = [
  string,
  ManagedSeedSetInput,
  SetOutcome,
  { name: string; step: ReplicaStep } | undefined,
  string[],
  SetPendingReplica | undefined,
];

/** Upstream's actuator cases, one pass each. */
const rows: Row[] = [
  // scale-out
  [
    'scale-out from nothing: set-0, pending ShootReconciling',
    input(set(1), []),
    'scale-out',
    { name: 'set-0', step: 'create-shoot' },
    ['create-shoot'],
    { name: 'set-0', reason: 'ShootReconciling', since: NOW_TIME },
  ],
  [
    'scale-out after set-0, set-1: set-2',
    input(set(3), [registered(0), registered(1)]),
    'scale-out',
    { name: 'set-2', step: 'create-shoot' },
    ['create-shoot'],
    { name: 'set-2', reason: 'ShootReconciling', since: NOW_TIME },
  ],
  [
    'scale-out never reuses a gap: nextReplicaNumber 5 wins over last+1',
    input(
      set(2, (s) => (s.status = { nextReplicaNumber: 5 })),
      [registered(1)],
    ),
    'scale-out',
    { name: 'set-5', step: 'create-shoot' },
    ['create-shoot'],
    { name: 'set-5', reason: 'ShootReconciling', since: NOW_TIME },
  ],
  [
    'scale-out: last+1 wins over a stale nextReplicaNumber',
    input(
      set(3, (s) => (s.status = { nextReplicaNumber: 1 })),
      [registered(0), registered(3)],
    ),
    'scale-out',
    { name: 'set-4', step: 'create-shoot' },
    ['create-shoot'],
    { name: 'set-4', reason: 'ShootReconciling', since: NOW_TIME },
  ],
  // the pending replica
  [
    'pending shoot still reconciling: wait, since kept',
    input(withPending(set(1), pending(0, 'ShootReconciling')), [replica(0, 'ShootReconciling')]),
    'replica',
    { name: 'set-0', step: 'wait-shoot-reconciled' },
    [],
    pending(0, 'ShootReconciling'),
  ],
  [
    'pending shoot reconciled: create its ManagedSeed',
    input(withPending(set(1), pending(0, 'ShootReconciling')), [replica(0, 'ShootReconciled')]),
    'replica',
    { name: 'set-0', step: 'create-managed-seed' },
    ['create-managed-seed'],
    { name: 'set-0', reason: 'ManagedSeedPreparing', since: NOW_TIME },
  ],
  [
    'pending shoot failed, 0 retries so far: retry',
    input(withPending(set(1), pending(0, 'ShootReconciling')), [replica(0, 'ShootReconcileFailed')]),
    'replica',
    { name: 'set-0', step: 'retry-shoot-reconcile' },
    ['annotate-shoot'],
    { name: 'set-0', reason: 'ShootReconciling', since: NOW_TIME, retries: 1 },
  ],
  [
    'pending shoot failed, 2 retries so far: third retry',
    input(withPending(set(1), pending(0, 'ShootReconciling', 2)), [replica(0, 'ShootReconcileFailed')]),
    'replica',
    { name: 'set-0', step: 'retry-shoot-reconcile' },
    ['annotate-shoot'],
    { name: 'set-0', reason: 'ShootReconciling', since: NOW_TIME, retries: 3 },
  ],
  [
    'pending shoot failed, max retries reached: not retrying',
    input(withPending(set(1), pending(0, 'ShootReconciling', 3)), [replica(0, 'ShootReconcileFailed')]),
    'replica',
    { name: 'set-0', step: 'max-reconcile-retries' },
    [],
    { name: 'set-0', reason: 'ShootReconcileFailed', since: NOW_TIME, retries: 3 },
  ],
  [
    'pending shoot delete failed: retry the deletion',
    input(withPending(set(0), pending(0, 'ShootDeleting')), [replica(0, 'ShootDeleteFailed')]),
    'replica',
    { name: 'set-0', step: 'retry-shoot-delete' },
    ['annotate-shoot'],
    { name: 'set-0', reason: 'ShootDeleting', since: NOW_TIME, retries: 1 },
  ],
  [
    'pending shoot delete failed, max retries: not retrying',
    input(withPending(set(0), pending(0, 'ShootDeleting', 3)), [replica(0, 'ShootDeleteFailed')]),
    'replica',
    { name: 'set-0', step: 'max-delete-retries' },
    [],
    { name: 'set-0', reason: 'ShootDeleteFailed', since: NOW_TIME, retries: 3 },
  ],
  [
    'pending shoot deleting: wait',
    input(withPending(set(0), pending(0, 'ShootDeleting')), [replica(0, 'ShootDeleting')]),
    'replica',
    { name: 'set-0', step: 'wait-shoot-deleted' },
    [],
    pending(0, 'ShootDeleting'),
  ],
  [
    'pending managed seed preparing: wait',
    input(withPending(set(1), pending(0, 'ManagedSeedPreparing')), [replica(0, 'ManagedSeedPreparing')]),
    'replica',
    { name: 'set-0', step: 'wait-managed-seed-registered' },
    [],
    pending(0, 'ManagedSeedPreparing'),
  ],
  [
    'pending managed seed deleting: wait',
    input(withPending(set(0), pending(0, 'ManagedSeedDeleting')), [replica(0, 'ManagedSeedDeleting')]),
    'replica',
    { name: 'set-0', step: 'wait-managed-seed-deleted' },
    [],
    pending(0, 'ManagedSeedDeleting'),
  ],
  [
    'pending registered but seed not ready: wait',
    input(withPending(set(1), pending(0, 'ManagedSeedPreparing')), [registered(0, { seedReady: false })]),
    'replica',
    { name: 'set-0', step: 'wait-seed-ready' },
    [],
    { name: 'set-0', reason: 'SeedNotReady', since: NOW_TIME },
  ],
  [
    'pending registered, seed ready, shoot progressing: wait',
    input(withPending(set(1), pending(0, 'SeedNotReady')), [registered(0, { health: 'progressing' })]),
    'replica',
    { name: 'set-0', step: 'wait-shoot-healthy' },
    [],
    { name: 'set-0', reason: 'ShootNotHealthy', since: NOW_TIME },
  ],
  [
    'pending replica ready: nothing to do, pending cleared',
    input(withPending(set(1), pending(0, 'ShootNotHealthy')), [registered(0)]),
    'idle',
    undefined,
    [],
    undefined,
  ],
  [
    'pending replica gone: scale out again',
    input(withPending(set(1), pending(7, 'ShootReconciling')), []),
    'scale-out',
    { name: 'set-0', step: 'create-shoot' },
    ['create-shoot'],
    { name: 'set-0', reason: 'ShootReconciling', since: NOW_TIME },
  ],
  [
    'pending shoot reconciled while scaling in: delete its shoot',
    input(withPending(set(1), pending(1, 'ShootReconciling')), [
      registered(0),
      replica(1, 'ShootReconciled'),
    ]),
    'replica',
    { name: 'set-1', step: 'delete-shoot' },
    ['delete-shoot'],
    { name: 'set-1', reason: 'ShootDeleting', since: NOW_TIME },
  ],
  // postponed replicas
  [
    'no pending, a not-ready replica is picked up',
    input(set(2), [registered(0), replica(1, 'ShootReconciled')]),
    'replica',
    { name: 'set-1', step: 'create-managed-seed' },
    ['create-managed-seed'],
    { name: 'set-1', reason: 'ManagedSeedPreparing', since: NOW_TIME },
  ],
  [
    'all ready, replicas match: idle',
    input(set(2), [registered(0), registered(1)]),
    'idle',
    undefined,
    [],
    undefined,
  ],
  // scale-in
  [
    'scale-in: the replica with a ManagedSeed loses it first',
    input(set(1), [registered(0), registered(1)]),
    'scale-in',
    { name: 'set-0', step: 'delete-managed-seed' },
    ['delete-managed-seed'],
    { name: 'set-0', reason: 'ManagedSeedDeleting', since: NOW_TIME },
  ],
  [
    'scale-in: a replica without ManagedSeed loses its Shoot',
    input(set(1), [registered(0), replica(1, 'ShootReconcileFailed')]),
    'scale-in',
    { name: 'set-1', step: 'delete-shoot' },
    ['delete-shoot'],
    { name: 'set-1', reason: 'ShootDeleting', since: NOW_TIME },
  ],
  [
    'scale-in: seeds with shoots and protected replicas are skipped',
    input(set(1), [
      registered(0, { scheduled: 2 }),
      registered(1, { protectShoot: true }),
      registered(2, { protectManagedSeed: true }),
      registered(3),
    ]),
    'scale-in',
    { name: 'set-3', step: 'delete-managed-seed' },
    ['delete-managed-seed'],
    { name: 'set-3', reason: 'ManagedSeedDeleting', since: NOW_TIME },
  ],
  [
    'scale-in: nothing deletable',
    input(set(1), [registered(0, { scheduled: 1 }), registered(1, { protectManagedSeed: true })]),
    'error',
    undefined,
    [],
    undefined,
  ],
  // deletion of the set
  [
    'set deleting: replicas go one by one',
    input(
      set(3, (s) => (s.metadata!.deletionTimestamp = BEFORE)),
      [registered(0)],
    ),
    'scale-in',
    { name: 'set-0', step: 'delete-managed-seed' },
    ['delete-managed-seed'],
    { name: 'set-0', reason: 'ManagedSeedDeleting', since: NOW_TIME },
  ],
  [
    'set deleting, no replicas left: finalizer removed',
    input(
      set(3, (s) => (s.metadata!.deletionTimestamp = BEFORE)),
      [],
    ),
    'idle',
    undefined,
    ['remove-finalizer'],
    undefined,
  ],
  [
    'set deleting without our finalizer: skip',
    input(
      set(3, (s) => ((s.metadata!.deletionTimestamp = BEFORE), (s.metadata!.finalizers = []))),
      [registered(0)],
    ),
    'skip',
    undefined,
    [],
    undefined,
  ],
  [
    'new set without finalizer: add it, then scale out',
    input(
      set(1, (s) => delete s.metadata!.finalizers),
      [],
    ),
    'scale-out',
    { name: 'set-0', step: 'create-shoot' },
    ['add-finalizer', 'create-shoot'],
    { name: 'set-0', reason: 'ShootReconciling', since: NOW_TIME },
  ],
];

describe('decideManagedSeedSet: one step per pass', () => {
  it.each(rows)('%s', (_n, i, outcome, replicaStep, ops, pendingReplica) => {
    const d = decideManagedSeedSet(i);
    expect(d.outcome).toBe(outcome);
    expect(d.replica).toEqual(replicaStep);
    expect(d.actions.map((a) => a.op)).toEqual(ops);
    expect(d.status?.pendingReplica).toEqual(pendingReplica);
  });

  it('covers every outcome and replica step', () => {
    expect(new Set(rows.map((r) => r[2]))).toEqual(new Set(SET_OUTCOMES));
    expect(new Set(rows.flatMap((r) => (r[3] ? [r[3].step] : [])))).toEqual(new Set(REPLICA_STEPS));
  });

  it.each([
    ['scale-in', true, 'create-shoot', true],
    ['x', false, 'x', false],
  ])('isSetOutcome(%j) → %s, isReplicaStep(%j) → %s', (o, wantO, s, wantS) => {
    expect(isSetOutcome(o)).toBe(wantO);
    expect(isReplicaStep(s)).toBe(wantS);
  });
});
