/**
 * The ManagedSeedSet decision per pass, pure (specs/seed-management.md "ManagedSeedSet"; upstream
 * gardener-controller-manager controller/managedseedset actuator.go + reconciler.go).
 *
 * One step per pass, as upstream: the pending replica first (stop if it still waits or was acted
 * on); then scale-out (create the next Shoot, pending ShootReconciling) or scale-in (delete one
 * deletable replica: its ManagedSeed if it has one, else its Shoot with the deletion confirmation;
 * "no deletable replicas found" when none); else the not-ready replicas in ordinal order (a
 * reconciled Shoot gets its ManagedSeed, failed Shoots are retried with `gardener.cloud/operation=
 * retry`, up to 3 times). Nothing left: the pending replica is cleared, and a set being deleted
 * (target 0) loses its finalizer.
 *
 * Where the product differs: the retry count survives the ShootReconciling / ShootDeleting wait
 * that follows a retry and the "not retrying" state (upstream reads it only from a pending
 * ShootReconciling entry and resets it while waiting, so its count restarts); the scale-in order
 * starts with the GEP-13 priority (managedseedset-replica.ts). No I/O: the caller lists the Shoots,
 * ManagedSeeds and Seeds matching the set's selector, runs `actions` in order, writes `status`,
 * records `events` and requeues.
 */
import { GARDENER_FINALIZER } from '../../shared/seedmanagement/managedseed.js';
import {
  buildReplicas,
  compareForDeletion,
  nextOrdinal,
  replicaDeletable,
  replicaReady,
  type Replica,
  type SetStatus,
} from './managedseedset-replica.js';
import {
  createReplica,
  deleteReplica,
  reconcileReplica,
  setEvent,
  type ReplicaStep,
  type SetPass,
} from './managedseedset-steps.js';
import type {
  ManagedSeedSetAction,
  ManagedSeedSetEvent,
  ManagedSeedSetInput,
  ObservedManagedSeedSet,
} from './managedseedset-types.js';
import { formatTime, isOneOf } from '@landscape/apimachinery';

export * from './managedseedset-types.js';
export type { ReplicaStep } from './managedseedset-steps.js';
export { REPLICA_STEPS, isReplicaStep } from './managedseedset-steps.js';

/** Upstream's maxShootRetries default. */
export const MAX_SHOOT_RETRIES = 3;
/** Requeue after a pass (upstream's syncPeriod default). */
export const MANAGED_SEED_SET_SYNC_PERIOD_MS = 1_800_000;
export const NO_DELETABLE_REPLICAS = 'no deletable replicas found';

export const SET_OUTCOMES = ['skip', 'replica', 'scale-out', 'scale-in', 'idle', 'error'] as const;
export type SetOutcome = (typeof SET_OUTCOMES)[number];
export const isSetOutcome: (value: unknown) => value is SetOutcome = isOneOf(SET_OUTCOMES);

export interface ManagedSeedSetOptions {
  maxShootRetries?: number;
  syncPeriodMs?: number;
}

export interface ManagedSeedSetDecision {
  outcome: SetOutcome;
  /** For `replica`: which replica and what was done or awaited. */
  replica?: { name: string; step: ReplicaStep };
  actions: ManagedSeedSetAction[];
  /** The status to write; undefined: none (skipped, or the finalizer goes). */
  status?: SetStatus;
  events: ManagedSeedSetEvent[];
  requeueAfterMs?: number;
  error?: string;
}

function hasFinalizer(set: ObservedManagedSeedSet): boolean {
  return (set.metadata?.finalizers ?? []).includes(GARDENER_FINALIZER);
}

function startPass(input: ManagedSeedSetInput, options: ManagedSeedSetOptions): SetPass {
  const set = input.set;
  return {
    set,
    now: formatTime(input.now),
    maxShootRetries: options.maxShootRetries ?? MAX_SHOOT_RETRIES,
    status: { ...structuredClone(set.status ?? {}), observedGeneration: set.metadata?.generation ?? 0 },
    actions: [],
    events: [],
  };
}

function finish(
  p: SetPass,
  outcome: SetOutcome,
  syncPeriodMs: number,
  extra: Partial<ManagedSeedSetDecision> = {},
): ManagedSeedSetDecision {
  return {
    outcome,
    actions: p.actions,
    status: p.status,
    events: p.events,
    ...(outcome === 'error' ? {} : { requeueAfterMs: syncPeriodMs }),
    ...extra,
  };
}

function scaleOut(p: SetPass, replicas: readonly Replica[], syncPeriodMs: number): ManagedSeedSetDecision {
  const ordinal = nextOrdinal(replicas, p.status.nextReplicaNumber);
  const name = createReplica(p, ordinal);
  p.status.replicas = (p.status.replicas ?? 0) + 1;
  p.status.nextReplicaNumber = ordinal + 1;
  return finish(p, 'scale-out', syncPeriodMs, { replica: { name, step: 'create-shoot' } });
}

function scaleIn(p: SetPass, replicas: readonly Replica[], syncPeriodMs: number): ManagedSeedSetDecision {
  const victim = replicas.filter(replicaDeletable).sort(compareForDeletion)[0];
  if (!victim) {
    p.events.push(setEvent('Warning', 'ReconcileError', NO_DELETABLE_REPLICAS));
    return finish(p, 'error', syncPeriodMs, { error: NO_DELETABLE_REPLICAS });
  }
  const step = deleteReplica(p, victim);
  if (replicaReady(victim)) p.status.readyReplicas = (p.status.readyReplicas ?? 0) - 1;
  return finish(p, 'scale-in', syncPeriodMs, { replica: { name: victim.name, step } });
}

function idle(p: SetPass, deleting: boolean, syncPeriodMs: number): ManagedSeedSetDecision {
  delete p.status.pendingReplica;
  if (!deleting) return finish(p, 'idle', syncPeriodMs);
  p.actions.push({ op: 'remove-finalizer', finalizer: GARDENER_FINALIZER });
  return { outcome: 'idle', actions: p.actions, events: p.events };
}

interface Observed {
  replicas: Replica[];
  pending: Replica | undefined;
  postponed: Replica[];
  target: number;
}

/** Upstream's bookkeeping before any step: replicas, the pending one, the postponed ones, counts. */
function observe(p: SetPass, input: ManagedSeedSetInput, deleting: boolean): Observed {
  const replicas = buildReplicas(input.shoots, input.managedSeeds, input.seeds, input.scheduledShoots ?? {});
  const pending = replicas.find((r) => r.name === p.status.pendingReplica?.name);
  p.status.replicas = replicas.length;
  p.status.readyReplicas = replicas.filter(replicaReady).length;
  return {
    replicas,
    pending,
    postponed: replicas.filter((r) => r !== pending && !replicaReady(r)),
    target: deleting ? 0 : (p.set.spec.replicas ?? 1),
  };
}

function step(p: SetPass, o: Observed, deleting: boolean, syncPeriodMs: number): ManagedSeedSetDecision {
  const scalingIn = o.replicas.length > o.target;
  const pendingStep = o.pending && reconcileReplica(p, o.pending, scalingIn);
  if (o.pending && pendingStep) {
    return finish(p, 'replica', syncPeriodMs, { replica: { name: o.pending.name, step: pendingStep } });
  }
  if (o.replicas.length < o.target) return scaleOut(p, o.replicas, syncPeriodMs);
  if (scalingIn) return scaleIn(p, o.replicas, syncPeriodMs);
  for (const r of o.postponed) {
    const next = reconcileReplica(p, r, false);
    if (next) return finish(p, 'replica', syncPeriodMs, { replica: { name: r.name, step: next } });
  }
  return idle(p, deleting, syncPeriodMs);
}

/** What one pass over a ManagedSeedSet does; `input.now` is the clock. */
export function decideManagedSeedSet(
  input: ManagedSeedSetInput,
  options: ManagedSeedSetOptions = {},
): ManagedSeedSetDecision {
  const set = input.set;
  const deleting = Boolean(set.metadata?.deletionTimestamp);
  if (deleting && !hasFinalizer(set)) return { outcome: 'skip', actions: [], events: [] };
  const p = startPass(input, options);
  if (!deleting && !hasFinalizer(set)) p.actions.push({ op: 'add-finalizer', finalizer: GARDENER_FINALIZER });
  const observed = observe(p, input, deleting);
  return step(p, observed, deleting, options.syncPeriodMs ?? MANAGED_SEED_SET_SYNC_PERIOD_MS);
}
