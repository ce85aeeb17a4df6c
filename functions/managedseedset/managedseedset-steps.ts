/**
 * The per-replica steps of a ManagedSeedSet pass, pure (upstream actuator.go reconcileReplica,
 * createReplica, deleteReplica). Each step appends its actions and its Event (upstream's reasons
 * and messages) and moves `status.pendingReplica`; the `since` time only moves when the name,
 * reason or retries change (upstream's updatePendingReplica).
 */
import { isOneOf } from '@landscape/apimachinery';
import { GardenerAnnotations } from '../../shared/api/core.js';
import type { Time } from '@landscape/apimachinery';
import type { ReplicaStatus } from '../../shared/api/seedmanagement.js';
import {
  newManagedSeed,
  newShoot,
  replicaName,
  replicaStatus,
  replicaStatusValue,
  seedReady,
  shootHealth,
  type Replica,
  type SetPendingReason,
  type SetStatus,
} from './managedseedset-replica.js';
import type {
  ManagedSeedSetAction,
  ManagedSeedSetEvent,
  ObservedManagedSeedSet,
} from './managedseedset-types.js';

export const REPLICA_STEPS = [
  'create-shoot',
  'retry-shoot-reconcile',
  'max-reconcile-retries',
  'retry-shoot-delete',
  'max-delete-retries',
  'wait-shoot-reconciled',
  'wait-shoot-deleted',
  'create-managed-seed',
  'delete-shoot',
  'wait-managed-seed-registered',
  'delete-managed-seed',
  'wait-managed-seed-deleted',
  'wait-seed-ready',
  'wait-shoot-healthy',
] as const;
export type ReplicaStep = (typeof REPLICA_STEPS)[number];
export const isReplicaStep: (value: unknown) => value is ReplicaStep = isOneOf(REPLICA_STEPS);

/** The state one pass builds up. */
export interface SetPass {
  set: ObservedManagedSeedSet;
  now: Time;
  maxShootRetries: number;
  status: SetStatus;
  actions: ManagedSeedSetAction[];
  events: ManagedSeedSetEvent[];
}

export function setEvent(type: 'Normal' | 'Warning', reason: string, message: string): ManagedSeedSetEvent {
  return { type, reason, message };
}

function fullName(p: SetPass, name: string): string {
  return `${p.set.metadata?.namespace ?? ''}/${name}`;
}

function info(p: SetPass, reason: string, message: string): void {
  p.events.push(setEvent('Normal', reason, message));
}

/** Upstream's updatePendingReplica: a new entry (since = now) only when something changed. */
export function updatePending(p: SetPass, name: string, reason: SetPendingReason, retries?: number): void {
  const cur = p.status.pendingReplica;
  if (cur && cur.name === name && cur.reason === reason && cur.retries === retries) return;
  p.status.pendingReplica = { name, reason, since: p.now, ...(retries === undefined ? {} : { retries }) };
}

/** Retries recorded for `name` under one of `reasons` (0 when none). */
function recordedRetries(p: SetPass, name: string, reasons: readonly SetPendingReason[]): number {
  const cur = p.status.pendingReplica;
  return cur && cur.name === name && reasons.includes(cur.reason) ? (cur.retries ?? 0) : 0;
}

interface Ctx {
  p: SetPass;
  r: Replica;
  status: ReplicaStatus;
  scalingIn: boolean;
}

const RETRY = {
  reconcile: {
    retrying: 'ShootReconciling',
    failed: 'ShootReconcileFailed',
    events: ['RetryingShootReconciliation', 'NotRetryingShootReconciliation'],
    word: 'reconciliation',
    steps: ['retry-shoot-reconcile', 'max-reconcile-retries'],
  },
  delete: {
    retrying: 'ShootDeleting',
    failed: 'ShootDeleteFailed',
    events: ['RetryingShootDeletion', 'NotRetryingShootDeletion'],
    word: 'deletion',
    steps: ['retry-shoot-delete', 'max-delete-retries'],
  },
} as const;

function retryShoot({ p, r }: Ctx, kind: keyof typeof RETRY): ReplicaStep {
  const k = RETRY[kind];
  const retries = recordedRetries(p, r.name, [k.retrying, k.failed]);
  const full = fullName(p, r.name);
  if (retries < p.maxShootRetries) {
    info(p, k.events[0], `Retrying Shoot ${full} ${k.word}`);
    const annotations = { [GardenerAnnotations.operation]: 'retry' };
    p.actions.push({
      op: 'annotate-shoot',
      namespace: p.set.metadata?.namespace ?? '',
      name: r.name,
      annotations,
    });
    updatePending(p, r.name, k.retrying, retries + 1);
    return k.steps[0];
  }
  info(p, k.events[1], `Not retrying Shoot ${full} ${k.word} since max retries have been reached`);
  updatePending(p, r.name, k.failed, retries);
  return k.steps[1];
}

/** A wait: [pending reason, Event reason, message, step, keeps the retry count]. */
type Wait = readonly [SetPendingReason, string, (p: SetPass, name: string) => string, ReplicaStep, boolean];

const WAITS = {
  shootReconciled: [
    'ShootReconciling',
    'WaitingForShootReconciled',
    (p, n) => `Waiting for Shoot ${fullName(p, n)} to be reconciled`,
    'wait-shoot-reconciled',
    true,
  ],
  shootDeleted: [
    'ShootDeleting',
    'WaitingForShootDeleted',
    (p, n) => `Waiting for Shoot ${fullName(p, n)} to be deleted`,
    'wait-shoot-deleted',
    true,
  ],
  managedSeedRegistered: [
    'ManagedSeedPreparing',
    'WaitingForManagedSeedRegistered',
    (p, n) => `Waiting for ManagedSeed ${fullName(p, n)} to be registered`,
    'wait-managed-seed-registered',
    false,
  ],
  managedSeedDeleted: [
    'ManagedSeedDeleting',
    'WaitingForManagedSeedDeleted',
    (p, n) => `Waiting for ManagedSeed ${fullName(p, n)} to be deleted`,
    'wait-managed-seed-deleted',
    false,
  ],
  seedReady: [
    'SeedNotReady',
    'WaitingForSeedReady',
    (_p, n) => `Waiting for Seed ${n} to be ready`,
    'wait-seed-ready',
    false,
  ],
  shootHealthy: [
    'ShootNotHealthy',
    'WaitingForShootHealthy',
    (p, n) => `Waiting for Shoot ${fullName(p, n)} to be healthy`,
    'wait-shoot-healthy',
    false,
  ],
} as const satisfies Record<string, Wait>;

function wait({ p, r }: Ctx, [reason, eventReason, message, step, keepRetries]: Wait): ReplicaStep {
  info(p, eventReason, message(p, r.name));
  const retries = keepRetries ? recordedRetries(p, r.name, [reason]) : 0;
  updatePending(p, r.name, reason, retries > 0 ? retries : undefined);
  return step;
}

function deleteShoot(p: SetPass, name: string): ReplicaStep {
  info(p, 'DeletingShoot', `Deleting Shoot ${fullName(p, name)}`);
  const annotations = { [GardenerAnnotations.confirmationDeletion]: 'true' };
  p.actions.push({ op: 'delete-shoot', namespace: p.set.metadata?.namespace ?? '', name, annotations });
  updatePending(p, name, 'ShootDeleting');
  return 'delete-shoot';
}

function createManagedSeed(p: SetPass, r: Replica): ReplicaStep {
  info(p, 'CreatingManagedSeed', `Creating ManagedSeed ${fullName(p, r.name)}`);
  p.actions.push({ op: 'create-managed-seed', managedSeed: newManagedSeed(p.set, r.ordinal) });
  updatePending(p, r.name, 'ManagedSeedPreparing');
  return 'create-managed-seed';
}

type Rule = readonly [(c: Ctx) => boolean, (c: Ctx) => ReplicaStep];

/** Upstream's switch in reconcileReplica, in its order; the first rule that applies decides. */
const RULES: readonly Rule[] = [
  [(c) => c.status === 'ShootReconcileFailed' && !c.scalingIn, (c) => retryShoot(c, 'reconcile')],
  [(c) => c.status === 'ShootDeleteFailed', (c) => retryShoot(c, 'delete')],
  [(c) => c.status === 'ShootReconciling' && !c.scalingIn, (c) => wait(c, WAITS.shootReconciled)],
  [(c) => c.status === 'ShootDeleting', (c) => wait(c, WAITS.shootDeleted)],
  [
    (c) => c.status === 'ShootReconciled',
    (c) => (c.scalingIn ? deleteShoot(c.p, c.r.name) : createManagedSeed(c.p, c.r)),
  ],
  [(c) => c.status === 'ManagedSeedPreparing' && !c.scalingIn, (c) => wait(c, WAITS.managedSeedRegistered)],
  [(c) => c.status === 'ManagedSeedDeleting', (c) => wait(c, WAITS.managedSeedDeleted)],
  [(c) => !seedReady(c.r.seed) && !c.scalingIn, (c) => wait(c, WAITS.seedReady)],
  [(c) => shootHealth(c.r.shoot) !== 'healthy' && !c.scalingIn, (c) => wait(c, WAITS.shootHealthy)],
];

/** The step for replica `r`, or undefined when it needs nothing (the pass moves on). */
export function reconcileReplica(p: SetPass, r: Replica, scalingIn: boolean): ReplicaStep | undefined {
  const c: Ctx = { p, r, status: replicaStatus(r), scalingIn };
  const rule = RULES.find(([applies]) => applies(c));
  return rule?.[1](c);
}

/** Scale-out: create the Shoot of replica `ordinal`; it is pending ShootReconciling. */
export function createReplica(p: SetPass, ordinal: number): string {
  const name = replicaName(p.set.metadata?.name ?? '', ordinal);
  info(p, 'CreatingShoot', `Creating Shoot ${fullName(p, name)}`);
  p.actions.push({ op: 'create-shoot', shoot: newShoot(p.set, ordinal) });
  updatePending(p, name, 'ShootReconciling');
  return name;
}

/** Scale-in: delete the replica's ManagedSeed if it has one, else its Shoot. */
export function deleteReplica(p: SetPass, r: Replica): ReplicaStep {
  if (replicaStatusValue(replicaStatus(r)) < replicaStatusValue('ManagedSeedPreparing'))
    return deleteShoot(p, r.name);
  info(p, 'DeletingManagedSeed', `Deleting ManagedSeed ${fullName(p, r.name)}`);
  p.actions.push({ op: 'delete-managed-seed', namespace: p.set.metadata?.namespace ?? '', name: r.name });
  updatePending(p, r.name, 'ManagedSeedDeleting');
  return 'delete-managed-seed';
}
