/**
 * A ManagedSeedSet replica, pure (specs/seed-management.md "ManagedSeedSet"; upstream
 * gardener-controller-manager controller/managedseedset replica.go + replicagetter.go).
 *
 * A replica is a Shoot named `<set>-<ordinal>` plus the ManagedSeed and the Seed of the same name,
 * if they exist. Its status (Unknown 0 … ManagedSeedRegistered 8) comes from the Shoot's last
 * operation while there is no ManagedSeed, else from the ManagedSeed. Ready = registered + seed
 * ready + shoot label `shoot.gardener.cloud/status=healthy`. Deletable = its seed has no scheduled
 * shoots and neither object carries `seedmanagement.gardener.cloud/protect-from-deletion: "true"`.
 *
 * Where the product differs: scale-in ranks by the GEP-13 priority annotation
 * (`seedmanagement.gardener.cloud/priority`, default 3, lower first; read from the ManagedSeed, else
 * the Shoot) before upstream's keys; an unknown shoot health label counts as `unknown` (upstream
 * panics); the caller passes per-seed counts of scheduled shoots instead of a list call per seed.
 */
import { isOneOf } from '@landscape/apimachinery';
import {
  GARDENER_CORE_API_VERSION,
  GardenerLabels,
  SeedConditionTypes,
  type Seed,
  type SeedSpec,
  type Shoot,
} from '../../shared/api/core.js';
import type { OwnerReference } from '@landscape/apimachinery';
import {
  ManagedSeedConditionTypes,
  PENDING_REPLICA_REASONS,
  REPLICA_NAME_PLACEHOLDER,
  REPLICA_STATUSES,
  SEEDMANAGEMENT_API_VERSION,
  SeedManagementAnnotations,
  type ManagedSeed,
  type ManagedSeedSet,
  type ManagedSeedSetStatus,
  type PendingReplica,
  type ReplicaStatus,
} from '../../shared/api/seedmanagement.js';
import { getCondition, isConditionTrue } from '../../shared/seedmanagement/managedseed-conditions.js';

/**
 * Pending replica reasons: shared/api's list plus upstream's SeedNotReady and ShootNotHealthy
 * (the product's PendingReplicaReason type lacks them; the CRD takes any string).
 */
export const SET_PENDING_REASONS = [...PENDING_REPLICA_REASONS, 'SeedNotReady', 'ShootNotHealthy'] as const;
export type SetPendingReason = (typeof SET_PENDING_REASONS)[number];
export const isSetPendingReason: (value: unknown) => value is SetPendingReason = isOneOf(SET_PENDING_REASONS);

export interface SetPendingReplica extends Omit<PendingReplica, 'reason'> {
  reason: SetPendingReason;
}

/** ManagedSeedSetStatus with the wider pending reason. */
export interface SetStatus extends Omit<ManagedSeedSetStatus, 'pendingReplica'> {
  pendingReplica?: SetPendingReplica;
}

/** Shoot health label values, worst first (upstream's ShootStatusValue). */
export const SHOOT_HEALTH_STATUSES = ['unhealthy', 'unknown', 'progressing', 'healthy'] as const;
export type ShootHealth = (typeof SHOOT_HEALTH_STATUSES)[number];
export const isShootHealth: (value: unknown) => value is ShootHealth = isOneOf(SHOOT_HEALTH_STATUSES);

/** Scale-in priority when the annotation is absent or not an integer (GEP-13). */
export const DEFAULT_REPLICA_PRIORITY = 3;

export interface Replica {
  /** The Shoot's name (= ManagedSeed and Seed name). */
  name: string;
  /** From the name (`-<digits>` at the end); -1 for a name the set did not give. */
  ordinal: number;
  shoot: Shoot;
  managedSeed?: ManagedSeed;
  seed?: Seed;
  /** Whether shoots are scheduled on its seed (spec.seedName). */
  hasScheduledShoots: boolean;
}

/** `<set>-<ordinal>`. */
export function replicaName(setName: string, ordinal: number): string {
  return `${setName}-${ordinal}`;
}

const ORDINAL = /^.*-([0-9]+)$/;
const MAX_INT32 = 2_147_483_647;

/** The ordinal at the end of a replica name; -1 when there is none or it exceeds int32. */
export function replicaOrdinal(name: string): number {
  const match = ORDINAL.exec(name);
  if (!match) return -1;
  const n = Number(match[1]);
  return n > MAX_INT32 ? -1 : n;
}

/** The value of a replica status: its index in REPLICA_STATUSES (Unknown 0 … ManagedSeedRegistered 8). */
export function replicaStatusValue(status: ReplicaStatus): number {
  return REPLICA_STATUSES.indexOf(status);
}

function sameGeneration(meta: { generation?: number } | undefined, observed: number | undefined): boolean {
  return (meta?.generation ?? 0) === (observed ?? 0);
}

function shootOperation(shoot: Shoot, deleting: boolean, types: readonly string[], state: string): boolean {
  const op = shoot.status?.lastOperation;
  return (
    sameGeneration(shoot.metadata, shoot.status?.observedGeneration) &&
    Boolean(shoot.metadata?.deletionTimestamp) === deleting &&
    op !== undefined &&
    types.includes(op.type) &&
    op.state === state
  );
}

function shootStatus(shoot: Shoot): ReplicaStatus {
  if (shootOperation(shoot, false, ['Create', 'Reconcile'], 'Succeeded')) return 'ShootReconciled';
  if (shootOperation(shoot, false, ['Create', 'Reconcile'], 'Failed')) return 'ShootReconcileFailed';
  if (shootOperation(shoot, true, ['Delete'], 'Failed')) return 'ShootDeleteFailed';
  return shoot.metadata?.deletionTimestamp ? 'ShootDeleting' : 'ShootReconciling';
}

function managedSeedRegistered(ms: ManagedSeed): boolean {
  return (
    sameGeneration(ms.metadata, ms.status?.observedGeneration) &&
    !ms.metadata?.deletionTimestamp &&
    isConditionTrue(ms.status?.conditions, ManagedSeedConditionTypes.seedRegistered)
  );
}

/** Upstream's GetStatus: from the Shoot while there is no ManagedSeed, else from the ManagedSeed. */
export function replicaStatus(r: Pick<Replica, 'shoot' | 'managedSeed'>): ReplicaStatus {
  const ms = r.managedSeed;
  if (!ms) return shootStatus(r.shoot);
  if (managedSeedRegistered(ms)) return 'ManagedSeedRegistered';
  return ms.metadata?.deletionTimestamp ? 'ManagedSeedDeleting' : 'ManagedSeedPreparing';
}

/** GardenletReady and SeedSystemComponentsHealthy True, BackupBucketsReady absent or True, current generation. */
export function seedReady(seed: Seed | undefined): boolean {
  if (!seed || seed.metadata?.deletionTimestamp) return false;
  const conditions = seed.status?.conditions;
  const backup = getCondition(conditions, SeedConditionTypes.backupBucketsReady);
  return (
    sameGeneration(seed.metadata, seed.status?.observedGeneration) &&
    isConditionTrue(conditions, SeedConditionTypes.gardenletReady) &&
    isConditionTrue(conditions, SeedConditionTypes.seedSystemComponentsHealthy) &&
    (backup === undefined || backup.status === 'True')
  );
}

/** The shoot's health label; `progressing` when absent, `unknown` when not a known value. */
export function shootHealth(shoot: Shoot): ShootHealth {
  const value = shoot.metadata?.labels?.[GardenerLabels.shootStatus];
  if (value === undefined) return 'progressing';
  return isShootHealth(value) ? value : 'unknown';
}

export function shootHealthValue(health: ShootHealth): number {
  return SHOOT_HEALTH_STATUSES.indexOf(health);
}

export function replicaReady(r: Replica): boolean {
  return (
    replicaStatus(r) === 'ManagedSeedRegistered' && seedReady(r.seed) && shootHealth(r.shoot) === 'healthy'
  );
}

function protectedFromDeletion(
  obj: { metadata?: { annotations?: Record<string, string> } } | undefined,
): boolean {
  return obj?.metadata?.annotations?.[SeedManagementAnnotations.protectFromDeletion] === 'true';
}

export function replicaDeletable(r: Replica): boolean {
  return !r.hasScheduledShoots && !protectedFromDeletion(r.shoot) && !protectedFromDeletion(r.managedSeed);
}

function priorityAnnotation(
  obj: { metadata?: { annotations?: Record<string, string> } } | undefined,
): number | undefined {
  const value = obj?.metadata?.annotations?.[SeedManagementAnnotations.priority]?.trim();
  return value !== undefined && /^[-+]?\d+$/.test(value) ? Number(value) : undefined;
}

/** GEP-13 scale-in priority: the ManagedSeed's annotation, else the Shoot's, else 3. */
export function replicaPriority(r: Replica): number {
  return priorityAnnotation(r.managedSeed) ?? priorityAnnotation(r.shoot) ?? DEFAULT_REPLICA_PRIORITY;
}

/** Scale-in order: lower priority, lower status, seed not ready, worse shoot health, lower ordinal first. */
export function compareForDeletion(a: Replica, b: Replica): number {
  const keys: readonly ((r: Replica) => number)[] = [
    replicaPriority,
    (r) => replicaStatusValue(replicaStatus(r)),
    (r) => (seedReady(r.seed) ? 1 : 0),
    (r) => shootHealthValue(shootHealth(r.shoot)),
    (r) => r.ordinal,
  ];
  for (const key of keys) {
    const d = key(a) - key(b);
    if (d !== 0) return d;
  }
  return 0;
}

/** Replicas from the observed objects (each Shoot is one), by ascending ordinal. */
export function buildReplicas(
  shoots: readonly Shoot[],
  managedSeeds: readonly ManagedSeed[],
  seeds: readonly Seed[],
  scheduledShoots: Readonly<Record<string, number>>,
): Replica[] {
  const msByName = new Map(managedSeeds.map((m) => [m.metadata?.name ?? '', m]));
  const seedByName = new Map(seeds.map((s) => [s.metadata?.name ?? '', s]));
  const replicas = shoots.map((shoot): Replica => {
    const name = shoot.metadata?.name ?? '';
    const seed = seedByName.get(name);
    return {
      name,
      ordinal: replicaOrdinal(name),
      shoot,
      managedSeed: msByName.get(name),
      seed,
      hasScheduledShoots: seed !== undefined && (scheduledShoots[name] ?? 0) > 0,
    };
  });
  return replicas.sort((a, b) => a.ordinal - b.ordinal || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** max(last ordinal + 1, status.nextReplicaNumber): gaps are never reused. */
export function nextOrdinal(sorted: readonly Replica[], nextReplicaNumber: number | undefined): number {
  const fromStatus = nextReplicaNumber ?? 0;
  const last = sorted.at(-1);
  return last && last.ordinal + 1 > fromStatus ? last.ordinal + 1 : fromStatus;
}

/** What building replica objects reads of a set. */
export type SetSource = Pick<ManagedSeedSet, 'metadata' | 'spec'>;

function controllerRef(set: SetSource): OwnerReference[] | undefined {
  const uid = set.metadata?.uid;
  if (!uid) return undefined;
  const ref = {
    apiVersion: SEEDMANAGEMENT_API_VERSION,
    kind: 'ManagedSeedSet',
    name: set.metadata?.name ?? '',
  };
  return [{ ...ref, uid, controller: true, blockOwnerDeletion: true }];
}

function replaced(value: string, name: string): string {
  return value.replaceAll(REPLICA_NAME_PLACEHOLDER, name);
}

/** Replaces the placeholder in `spec.ingress.domain` (and the older `spec.dns.ingressDomain`). */
export function replaceSeedPlaceholders(spec: SeedSpec, name: string): SeedSpec {
  const out = structuredClone(spec);
  if (out.ingress?.domain) out.ingress.domain = replaced(out.ingress.domain, name);
  const ingressDomain = out.dns?.ingressDomain;
  if (out.dns && typeof ingressDomain === 'string') out.dns.ingressDomain = replaced(ingressDomain, name);
  return out;
}

function metadataFor(
  set: SetSource,
  name: string,
  template: { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined,
): NonNullable<Shoot['metadata']> {
  const owners = controllerRef(set);
  return {
    name,
    namespace: set.metadata?.namespace ?? '',
    ...(template?.labels ? { labels: { ...template.labels } } : {}),
    ...(template?.annotations ? { annotations: { ...template.annotations } } : {}),
    ...(owners ? { ownerReferences: owners } : {}),
  };
}

/** The Shoot of replica `ordinal`: the shoot template, the placeholder replaced in `spec.dns.domain`. */
export function newShoot(set: SetSource, ordinal: number): Shoot {
  const name = replicaName(set.metadata?.name ?? '', ordinal);
  const spec = structuredClone(set.spec.shootTemplate.spec);
  if (spec.dns?.domain) spec.dns.domain = replaced(spec.dns.domain, name);
  return {
    apiVersion: GARDENER_CORE_API_VERSION,
    kind: 'Shoot',
    metadata: metadataFor(set, name, set.spec.shootTemplate.metadata),
    spec,
  };
}

/** The ManagedSeed of replica `ordinal`: the template, `spec.shoot.name` set, seed placeholders replaced. */
export function newManagedSeed(set: SetSource, ordinal: number): ManagedSeed {
  const name = replicaName(set.metadata?.name ?? '', ordinal);
  const template = set.spec.template;
  const spec = structuredClone(template.spec);
  const seedConfig = spec.gardenlet?.config?.seedConfig;
  if (seedConfig) seedConfig.spec = replaceSeedPlaceholders(seedConfig.spec, name);
  if (spec.seedTemplate) spec.seedTemplate.spec = replaceSeedPlaceholders(spec.seedTemplate.spec, name);
  return {
    apiVersion: SEEDMANAGEMENT_API_VERSION,
    kind: 'ManagedSeed',
    metadata: metadataFor(set, name, template.metadata),
    spec: { ...spec, shoot: { name } },
  };
}
