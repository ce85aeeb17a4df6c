/**
 * The parts of gardener-apiserver's Seed, ManagedSeed and ManagedSeedSet strategies the embedded
 * API server plays for their CRDs, beyond what every CRD with a status subresource gets already
 * (status kept on main-resource writes, spec kept on status writes, status cleared on create, a
 * new generation on a spec change or the deletion timestamp):
 *
 * - The operation annotation (pkg/apiserver/registry/core/seed/strategy.go and
 *   .../seedmanagement/{managedseed,managedseedset}/strategy.go, mustIncreaseGeneration):
 *   `gardener.cloud/operation=reconcile` raises the generation and is removed by the server; on a
 *   Seed, a newly set `renew-garden-access-secrets`, `renew-workload-identity-tokens` or
 *   `renew-kubeconfig` raises the generation and stays (gardenlet removes it).
 * - A ManagedSeedSet's status write (pkg/api/seedmanagement/validation/managedseedset.go,
 *   ValidateManagedSeedSetStatusUpdate / ValidateManagedSeedSetStatus): `nextReplicaNumber` and
 *   `collisionCount` cannot be decremented; ready, current and updated replicas cannot be greater
 *   than `status.replicas`; a pending replica is named `<set>-<ordinal>` and has one of upstream's
 *   reasons. What the CRD schema checks already (non-negative integers) is not repeated.
 *
 * Not played: Seed/ManagedSeed spec validation (immutable fields, gardenlet config), which no
 * function of the product writes against (they create these objects from templates and write
 * their status).
 */
import { invalid, type FieldError } from '../api/errors.js';
import type { KubeObject, ResourceDef } from '../api/types.js';

const OPERATION = 'gardener.cloud/operation';
const RECONCILE = 'reconcile';
const SEED_OPERATIONS_KEPT = [
  'renew-garden-access-secrets',
  'renew-workload-identity-tokens',
  'renew-kubeconfig',
];

const PENDING_REASONS = [
  'ShootReconciling',
  'ShootDeleting',
  'ShootReconcileFailed',
  'ShootDeleteFailed',
  'ManagedSeedPreparing',
  'ManagedSeedDeleting',
  'SeedNotReady',
  'ShootNotHealthy',
];

type Kind = 'Seed' | 'ManagedSeed' | 'ManagedSeedSet';

function kindOf(def: Pick<ResourceDef, 'group' | 'kind'>): Kind | undefined {
  if (def.group === 'core.gardener.cloud' && def.kind === 'Seed') return 'Seed';
  if (def.group !== 'seedmanagement.gardener.cloud') return undefined;
  return def.kind === 'ManagedSeed' || def.kind === 'ManagedSeedSet' ? def.kind : undefined;
}

/** The object without the operation annotation, at `generation`. */
function reconciled(next: KubeObject, generation: number): KubeObject {
  const annotations = { ...next.metadata.annotations };
  delete annotations[OPERATION];
  const metadata = { ...next.metadata, generation };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { ...next, metadata };
}

/** A Seed operation that raises the generation and stays when newly set. */
function renews(kind: Kind, prev: KubeObject, operation: string): boolean {
  const before = prev.metadata.annotations ? prev.metadata.annotations[OPERATION] : undefined;
  return kind === 'Seed' && before !== operation && SEED_OPERATIONS_KEPT.includes(operation);
}

/**
 * The object to store for an update of the main resource: with the operation annotation's
 * generation rule applied (unchanged for other kinds and other updates).
 */
export function prepareSeedManagementUpdate(
  def: ResourceDef,
  prev: KubeObject,
  next: KubeObject,
): KubeObject {
  const kind = kindOf(def);
  const operation = next.metadata.annotations?.[OPERATION];
  if (!kind || operation === undefined) return next;
  const generation = (prev.metadata.generation ?? 0) + 1;
  if (operation === RECONCILE) return reconciled(next, generation);
  if (renews(kind, prev, operation)) return { ...next, metadata: { ...next.metadata, generation } };
  return next;
}

type Status = Record<string, unknown>;

function num(status: Status, key: string): number {
  const v = status[key];
  return typeof v === 'number' ? v : 0;
}

function decremented(next: Status, prev: Status, key: string): boolean {
  if (next[key] === undefined) return prev[key] !== undefined && key === 'collisionCount';
  return num(next, key) < num(prev, key);
}

/** `<parent>-<ordinal>` (upstream getParentNameAndOrdinal). */
function validReplicaName(name: unknown, setName: string): boolean {
  if (typeof name !== 'string') return false;
  const m = /^(.*)-(\d+)$/.exec(name);
  return m !== null && m[1] === setName;
}

function pendingReplicaErrors(pending: unknown, setName: string): FieldError[] {
  if (typeof pending !== 'object' || pending === null) return [];
  const p = pending as { name?: unknown; reason?: unknown };
  const out: FieldError[] = [];
  if (!validReplicaName(p.name, setName)) {
    out.push({
      type: 'FieldValueInvalid',
      field: 'status.pendingReplica.name',
      value: p.name,
      detail: 'must contain the parent name and a valid ordinal',
    });
  }
  if (typeof p.reason !== 'string' || !PENDING_REASONS.includes(p.reason)) {
    out.push({
      type: 'FieldValueNotSupported',
      field: 'status.pendingReplica.reason',
      value: p.reason,
      detail: `supported values: ${PENDING_REASONS.map((r) => JSON.stringify(r)).join(', ')}`,
    });
  }
  return out;
}

function managedSeedSetStatusErrors(prev: Status, next: Status, setName: string): FieldError[] {
  const out: FieldError[] = [];
  for (const key of ['readyReplicas', 'currentReplicas', 'updatedReplicas']) {
    if (num(next, key) > num(next, 'replicas')) {
      out.push({
        type: 'FieldValueInvalid',
        field: `status.${key}`,
        value: num(next, key),
        detail: 'cannot be greater than status.replicas',
      });
    }
  }
  out.push(...pendingReplicaErrors(next.pendingReplica, setName));
  for (const key of ['nextReplicaNumber', 'collisionCount']) {
    if (decremented(next, prev, key)) {
      out.push({
        type: 'FieldValueInvalid',
        field: `status.${key}`,
        value: num(next, key),
        detail: 'cannot be decremented',
      });
    }
  }
  return out;
}

/** A status write of a ManagedSeedSet: 422 Invalid with upstream's wording when it breaks a rule. */
export function checkSeedManagementStatusUpdate(def: ResourceDef, prev: KubeObject, next: KubeObject): void {
  if (kindOf(def) !== 'ManagedSeedSet') return;
  const name = prev.metadata.name ?? '';
  const errors = managedSeedSetStatusErrors(
    (prev.status ?? {}) as Status,
    (next.status ?? {}) as Status,
    name,
  );
  if (errors.length > 0) throw invalid(def.kind, def.group, name, errors);
}
