/**
 * The ManagedSeed decision per pass, pure (specs/seed-management.md "ManagedSeed"; upstream
 * gardenlet pkg/gardenlet/controller/managedseed, reconciler + actuator).
 *
 * Upstream: ensure the `gardener` finalizer; wait (requeue after the wait sync period) while the
 * Shoot is not reconciled (generation == observedGeneration and lastOperation Succeeded), with
 * `ShootReconciled=False`; then deploy a gardenlet into the Shoot, which registers the Seed from its
 * `seedConfig` (older servers: register `spec.seedTemplate` directly), and set `SeedRegistered=True`.
 * Deletion: delete the Seed, wait until it is gone, then clean up the Shoot and drop the finalizer.
 *
 * Where the product differs: no gardenlet is deployed; the Seed (name = ManagedSeed name, spec and
 * labels from the seed template or the gardenlet `seedConfig`) is written by the adapter from the
 * `apply-seed` action, and only when it differs from the observed one. The Seed-in-use refusal that
 * upstream's admission plugin gives the DELETE is checked here before asking for it
 * (managedseed-protection.ts). A missing Shoot does not block deletion (nothing in it to clean).
 * Messages and condition reasons are upstream's. No I/O: the caller observes the ManagedSeed, its
 * Shoot, its Seed and the shoots using the Seed, runs the actions, writes `status`, and requeues.
 */
import type { Seed, Shoot } from '../api/core.js';
import { formatTime, type OwnerReference, isOneOf } from '@landscape/apimachinery';
import {
  ManagedSeedConditionTypes,
  SEEDMANAGEMENT_API_VERSION,
  type ManagedSeed,
  type ManagedSeedStatus,
  type SeedTemplate,
} from '../api/seedmanagement.js';
import { setCondition } from './managedseed-conditions.js';
import { seedDeletionForbidden, type SeedUser } from './managedseed-protection.js';

/** Upstream's finalizer (gardencorev1beta1.GardenerName). */
export const GARDENER_FINALIZER = 'gardener';
/** Requeue while waiting for the Shoot or the Seed (upstream's waitSyncPeriod default). */
export const MANAGED_SEED_WAIT_SYNC_PERIOD_MS = 15_000;
/** Requeue after a successful pass (upstream's syncPeriod default). */
export const MANAGED_SEED_SYNC_PERIOD_MS = 3_600_000;
/** The label every registered Seed carries. */
export const GARDEN_ROLE_LABEL = 'gardener.cloud/role';
export const GARDEN_ROLE_SEED = 'seed';

/** Event and condition reasons (upstream's gardencorev1beta1 event reasons). */
export const ManagedSeedReasons = {
  reconciling: 'Reconciling',
  reconciled: 'Reconciled',
  reconcileError: 'ReconcileError',
  deleting: 'Deleting',
  deleted: 'Deleted',
  deleteError: 'DeleteError',
} as const;

export const MANAGED_SEED_OUTCOMES = [
  'skip',
  'waiting-for-shoot',
  'registered',
  'deleting-seed',
  'waiting-for-seed-deletion',
  'deleted',
  'error',
] as const;
export type ManagedSeedOutcome = (typeof MANAGED_SEED_OUTCOMES)[number];
export const isManagedSeedOutcome: (value: unknown) => value is ManagedSeedOutcome =
  isOneOf(MANAGED_SEED_OUTCOMES);

export type ManagedSeedAction =
  | { op: 'add-finalizer'; finalizer: string }
  | { op: 'remove-finalizer'; finalizer: string }
  /** Create the Seed or update its labels, annotations, owner references and spec. */
  | { op: 'apply-seed'; seed: Seed }
  | { op: 'delete-seed'; name: string };

export interface ManagedSeedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface ManagedSeedInput {
  managedSeed: ManagedSeed;
  /** The Shoot `spec.shoot.name` names (same namespace); undefined: not found. */
  shoot?: Shoot;
  /** The Seed named like the ManagedSeed; undefined: not found. */
  seed?: Seed;
  /** Shoots that may use the Seed (all, or those with the Seed as spec/status seedName); deletion only. */
  shootsUsingSeed?: readonly SeedUser[];
  now: Date;
}

export interface ManagedSeedOptions {
  waitSyncPeriodMs?: number;
  syncPeriodMs?: number;
}

export interface ManagedSeedDecision {
  outcome: ManagedSeedOutcome;
  /** In order. */
  actions: ManagedSeedAction[];
  /** The status to write; undefined: none (skipped, or the finalizer goes and the object with it). */
  status?: ManagedSeedStatus;
  events: ManagedSeedEvent[];
  /** Absent on error (the caller backs off) and when the object is done with. */
  requeueAfterMs?: number;
  error?: string;
}

/** Upstream's shootReconciled: the last operation succeeded on the current generation. */
export function shootReconciled(shoot: Shoot): boolean {
  const generation = shoot.metadata?.generation ?? 0;
  const observed = shoot.status?.observedGeneration ?? 0;
  return generation === observed && shoot.status?.lastOperation?.state === 'Succeeded';
}

/** The seed template to register: `spec.seedTemplate`, else the gardenlet config's `seedConfig`. */
export function seedTemplateOf(ms: ManagedSeed): { template: SeedTemplate } | { error: string } {
  const name = ms.metadata?.name ?? '';
  if (ms.spec?.seedTemplate) return { template: ms.spec.seedTemplate };
  const config = ms.spec?.gardenlet?.config;
  if (!config) return { error: `no gardenlet config provided in object: "${name}"` };
  if (!config.seedConfig) return { error: `no seed config found for managedseed ${name}` };
  return { template: config.seedConfig };
}

function ownerReferences(ms: ManagedSeed): OwnerReference[] | undefined {
  const uid = ms.metadata?.uid;
  if (!uid) return undefined;
  const name = ms.metadata?.name ?? '';
  return [
    {
      apiVersion: SEEDMANAGEMENT_API_VERSION,
      kind: 'ManagedSeed',
      name,
      uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
}

/** The Seed a ManagedSeed registers from `template`. */
export function desiredSeed(ms: ManagedSeed, template: SeedTemplate): Seed {
  const owners = ownerReferences(ms);
  const annotations = template.metadata?.annotations;
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Seed',
    metadata: {
      name: ms.metadata?.name ?? '',
      labels: { ...template.metadata?.labels, [GARDEN_ROLE_LABEL]: GARDEN_ROLE_SEED },
      ...(annotations ? { annotations: { ...annotations } } : {}),
      ...(owners ? { ownerReferences: owners } : {}),
    },
    spec: structuredClone(template.spec),
  };
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, canonical(v)]));
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a ?? null)) === JSON.stringify(canonical(b ?? null));
}

function registeredParts(seed: Seed): unknown[] {
  const meta = seed.metadata ?? {};
  return [meta.labels ?? {}, meta.annotations ?? {}, meta.ownerReferences ?? [], seed.spec];
}

/** Whether the observed Seed already is what `desired` says (labels, annotations, owners, spec). */
export function seedUpToDate(observed: Seed | undefined, desired: Seed): boolean {
  return observed !== undefined && sameJson(registeredParts(observed), registeredParts(desired));
}

interface Pass {
  input: ManagedSeedInput;
  options: Required<ManagedSeedOptions>;
  now: string;
  status: ManagedSeedStatus;
  actions: ManagedSeedAction[];
  events: ManagedSeedEvent[];
}

function startPass(input: ManagedSeedInput, options: ManagedSeedOptions): Pass {
  const ms = input.managedSeed;
  return {
    input,
    options: {
      waitSyncPeriodMs: options.waitSyncPeriodMs ?? MANAGED_SEED_WAIT_SYNC_PERIOD_MS,
      syncPeriodMs: options.syncPeriodMs ?? MANAGED_SEED_SYNC_PERIOD_MS,
    },
    now: formatTime(input.now),
    status: { ...structuredClone(ms.status ?? {}), observedGeneration: ms.metadata?.generation ?? 0 },
    actions: [],
    events: [],
  };
}

function condition(p: Pass, type: string, status: 'True' | 'False', reason: string, message: string): void {
  p.status.conditions = setCondition(p.status.conditions, type, status, reason, message, p.now);
}

function finish(
  p: Pass,
  outcome: ManagedSeedOutcome,
  requeueAfterMs: number | undefined,
  error?: string,
): ManagedSeedDecision {
  return {
    outcome,
    actions: p.actions,
    status: p.status,
    events: p.events,
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
    ...(error === undefined ? {} : { error }),
  };
}

/** Upstream's deferred error handling: SeedRegistered=False with the error, a Warning Event. */
function fail(p: Pass, reason: string, error: string): ManagedSeedDecision {
  condition(p, ManagedSeedConditionTypes.seedRegistered, 'False', reason, error);
  p.events.push({ type: 'Warning', reason, message: error });
  return finish(p, 'error', undefined, error);
}

function hasFinalizer(ms: ManagedSeed): boolean {
  return (ms.metadata?.finalizers ?? []).includes(GARDENER_FINALIZER);
}

/** The Shoot is reconciled: register the Seed. */
function register(p: Pass): ManagedSeedDecision {
  const ms = p.input.managedSeed;
  const extracted = seedTemplateOf(ms);
  if ('error' in extracted) return fail(p, ManagedSeedReasons.reconcileError, extracted.error);
  const seed = desiredSeed(ms, extracted.template);
  if (!seedUpToDate(p.input.seed, seed)) p.actions.push({ op: 'apply-seed', seed });
  const message = `Seed ${ms.metadata?.name ?? ''} has been registered`;
  condition(p, ManagedSeedConditionTypes.seedRegistered, 'True', ManagedSeedReasons.reconciled, message);
  return finish(p, 'registered', p.options.syncPeriodMs);
}

function reconcile(p: Pass): ManagedSeedDecision {
  const ms = p.input.managedSeed;
  const { reconcileError, reconciling, reconciled } = ManagedSeedReasons;
  if (!hasFinalizer(ms)) p.actions.push({ op: 'add-finalizer', finalizer: GARDENER_FINALIZER });
  const shootName = ms.spec?.shoot?.name;
  if (!shootName) return fail(p, reconcileError, 'spec.shoot.name is required');
  const key = `${ms.metadata?.namespace ?? ''}/${shootName}`;
  const shoot = p.input.shoot;
  if (!shoot) {
    return fail(
      p,
      reconcileError,
      `could not get shoot ${key}: shoots.core.gardener.cloud "${shootName}" not found`,
    );
  }
  if (!shootReconciled(shoot)) {
    const message = `Waiting for shoot "${key}" to be reconciled`;
    p.events.push({ type: 'Normal', reason: reconciling, message });
    condition(p, ManagedSeedConditionTypes.shootReconciled, 'False', reconciling, message);
    return finish(p, 'waiting-for-shoot', p.options.waitSyncPeriodMs);
  }
  const message = `Shoot "${key}" has been reconciled`;
  condition(p, ManagedSeedConditionTypes.shootReconciled, 'True', reconciled, message);
  return register(p);
}

function remove(p: Pass): ManagedSeedDecision {
  const ms = p.input.managedSeed;
  const name = ms.metadata?.name ?? '';
  const { deleting, deleteError, deleted } = ManagedSeedReasons;
  condition(p, ManagedSeedConditionTypes.seedRegistered, 'False', deleting, `Unregistering seed ${name}`);
  const seed = p.input.seed;
  if (seed?.metadata?.deletionTimestamp) {
    p.events.push({ type: 'Normal', reason: deleting, message: `Waiting for seed "${name}" to be deleted` });
    return finish(p, 'waiting-for-seed-deletion', p.options.waitSyncPeriodMs);
  }
  if (seed) {
    const refused = seedDeletionForbidden(name, p.input.shootsUsingSeed ?? []);
    if (refused) return fail(p, deleteError, `could not delete seed ${name}: ${refused}`);
    p.events.push({ type: 'Normal', reason: deleting, message: `Deleting seed ${name}` });
    p.actions.push({ op: 'delete-seed', name });
    return finish(p, 'deleting-seed', p.options.waitSyncPeriodMs);
  }
  condition(
    p,
    ManagedSeedConditionTypes.seedRegistered,
    'False',
    deleted,
    `Seed ${name} has been unregistered`,
  );
  p.actions.push({ op: 'remove-finalizer', finalizer: GARDENER_FINALIZER });
  return { outcome: 'deleted', actions: p.actions, events: p.events };
}

/** What one pass over a ManagedSeed does; `input.now` is the clock. */
export function decideManagedSeed(
  input: ManagedSeedInput,
  options: ManagedSeedOptions = {},
): ManagedSeedDecision {
  const ms = input.managedSeed;
  if (ms.metadata?.deletionTimestamp) {
    if (!hasFinalizer(ms)) return { outcome: 'skip', actions: [], events: [] };
    return remove(startPass(input, options));
  }
  return reconcile(startPass(input, options));
}
