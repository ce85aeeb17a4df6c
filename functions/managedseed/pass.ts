/**
 * The pure pieces around one ManagedSeed pass (./reconcile.ts does the I/O): whether the status
 * changed, the patch that makes an observed Seed what `apply-seed` says, which ManagedSeeds a
 * Shoot event concerns, and the look-again delay after an error.
 *
 * The error delay is a backoff without state: upstream requeues a failing ManagedSeed with
 * controller-runtime's exponential rate limiter; here the delay is as long as the same error has
 * lasted (the SeedRegistered condition's lastUpdateTime does not move while its message stays the
 * same), between `min` and `max` — so looks come at ~min, 2·min, 4·min, … until `max`.
 */
import type { Seed } from '../../shared/api/core.js';
import type { JsonPatchOperation } from '../../shared/kube/index.js';
import {
  ManagedSeedConditionTypes,
  type ManagedSeed,
  type ManagedSeedStatus,
} from '../../shared/api/seedmanagement.js';
import { getCondition } from '../../shared/seedmanagement/managedseed-conditions.js';
import { GARDENER_FINALIZER, type ManagedSeedDecision } from '../../shared/seedmanagement/managedseed.js';

export interface Backoff {
  min: number;
  max: number;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, canonical(v)]));
}

/** Deep equality of JSON values (key order and undefined members ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a ?? null)) === JSON.stringify(canonical(b ?? null));
}

/** Whether `next` is worth a status write over `before`. */
export function statusChanged(before: ManagedSeedStatus | undefined, next: ManagedSeedStatus): boolean {
  return !sameJson(before ?? {}, next);
}

/** `/metadata/<field>` set to the desired value, or removed when only the observed Seed has it. */
function metadataOp(field: string, observed: unknown, desired: unknown): JsonPatchOperation[] {
  if (desired !== undefined) return [{ op: 'add', path: `/metadata/${field}`, value: desired }];
  return observed !== undefined ? [{ op: 'remove', path: `/metadata/${field}` }] : [];
}

/**
 * The JSON patch that turns the observed Seed's labels, annotations, owner references and spec
 * into the desired ones (what seedUpToDate compares), leaving finalizers and status alone.
 */
export function seedPatch(observed: Seed, desired: Seed): JsonPatchOperation[] {
  const o = observed.metadata ?? {};
  const d = desired.metadata ?? {};
  return [
    ...metadataOp('labels', o.labels, d.labels ?? {}),
    ...metadataOp('annotations', o.annotations, d.annotations),
    ...metadataOp('ownerReferences', o.ownerReferences, d.ownerReferences),
    { op: 'add', path: '/spec', value: desired.spec },
  ];
}

function isTerminating(ms: ManagedSeed): boolean {
  return (
    Boolean(ms.metadata?.deletionTimestamp) && (ms.metadata?.finalizers ?? []).includes(GARDENER_FINALIZER)
  );
}

/**
 * The ManagedSeeds (names) a Shoot event concerns: those whose `spec.shoot.name` names the Shoot
 * (same namespace), and every one being deleted — a Shoot that moved away from a Seed, or is
 * gone, may free the Seed a deleting ManagedSeed waits for.
 */
export function managedSeedsForShoot(
  shoot: { namespace: string; name: string },
  managedSeeds: readonly ManagedSeed[],
): string[] {
  const names = managedSeeds
    .filter(
      (ms) =>
        (ms.metadata?.namespace === shoot.namespace && ms.spec?.shoot?.name === shoot.name) ||
        isTerminating(ms),
    )
    .map((ms) => ms.metadata?.name ?? '')
    .filter((n) => n !== '');
  return [...new Set(names)].sort();
}

/** How long to wait before looking again after an errored pass (see the module comment). */
export function errorRequeueMs(
  before: ManagedSeedStatus | undefined,
  decision: Pick<ManagedSeedDecision, 'status'>,
  now: Date,
  backoff: Backoff,
): number {
  const type = ManagedSeedConditionTypes.seedRegistered;
  const prev = getCondition(before?.conditions, type);
  const next = getCondition(decision.status?.conditions, type);
  const since = prev?.lastUpdateTime ? Date.parse(prev.lastUpdateTime) : NaN;
  const same =
    prev !== undefined && next !== undefined && prev.message === next.message && prev.reason === next.reason;
  if (!same || !Number.isFinite(since)) return backoff.min;
  return Math.min(backoff.max, Math.max(backoff.min, now.getTime() - since));
}
