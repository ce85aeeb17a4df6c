/**
 * seedmanagement.gardener.cloud/v1alpha1: ManagedSeed, ManagedSeedSet (specs/seed-management.md).
 */
import { isOneOf } from '@landscape/apimachinery';
import type { GardenerCondition, SeedSpec, ShootSpec } from './core.js';
import type { LabelSelector, ObjectMeta, Time, TypedObject } from '@landscape/apimachinery';

export const SEEDMANAGEMENT_GROUP = 'seedmanagement.gardener.cloud';
export const SEEDMANAGEMENT_VERSION = 'v1alpha1';
export const SEEDMANAGEMENT_API_VERSION = 'seedmanagement.gardener.cloud/v1alpha1';

/** ManagedSeeds live in this namespace. */
export const MANAGED_SEED_NAMESPACE = 'garden';

export const SeedManagementAnnotations = {
  /** `"true"` on a Shoot or ManagedSeed: never deleted by a ManagedSeedSet scale-in. */
  protectFromDeletion: 'seedmanagement.gardener.cloud/protect-from-deletion',
  /** Scale-in priority (GEP-13): default 3, lower is deleted first. */
  priority: 'seedmanagement.gardener.cloud/priority',
} as const;

/** Replaced by the replica name in shoot `spec.dns.domain` and seed `spec.ingress.domain`. */
export const REPLICA_NAME_PLACEHOLDER = 'replica-name';

export const ManagedSeedConditionTypes = {
  shootReconciled: 'ShootReconciled',
  seedRegistered: 'SeedRegistered',
} as const;

export const BOOTSTRAP_MODES = ['BootstrapToken', 'ServiceAccount', 'None'] as const;
export type BootstrapMode = (typeof BOOTSTRAP_MODES)[number];
export const isBootstrapMode: (value: unknown) => value is BootstrapMode = isOneOf(BOOTSTRAP_MODES);

/** The Seed a ManagedSeed registers: `metadata` + `spec` (a gardenlet `seedConfig` or a seed template). */
export interface SeedTemplate {
  metadata?: ObjectMeta;
  spec: SeedSpec;
}

/** `spec.gardenlet.config`: a GardenletConfiguration (raw extension). */
export interface GardenletConfiguration {
  apiVersion?: string;
  kind?: string;
  seedConfig?: SeedTemplate;
  [field: string]: unknown;
}

export interface ManagedSeedSpec {
  /** Forbidden in a ManagedSeedSet template; set per replica. */
  shoot?: { name: string };
  gardenlet?: {
    deployment?: Record<string, unknown>;
    config?: GardenletConfiguration;
    bootstrap?: BootstrapMode;
    mergeWithParent?: boolean;
  };
  /** Older v1alpha1 servers: the Seed to register without a gardenlet. */
  seedTemplate?: SeedTemplate;
}

export interface ManagedSeedStatus {
  conditions?: GardenerCondition[];
  observedGeneration?: number;
}

export interface ManagedSeed extends TypedObject<ManagedSeedSpec, ManagedSeedStatus> {
  apiVersion?: typeof SEEDMANAGEMENT_API_VERSION;
  kind?: 'ManagedSeed';
}

/** Replica statuses, in the order scale-in considers them (lower first). */
export const REPLICA_STATUSES = [
  'Unknown',
  'ShootReconcileFailed',
  'ShootDeleteFailed',
  'ShootReconciling',
  'ShootDeleting',
  'ShootReconciled',
  'ManagedSeedPreparing',
  'ManagedSeedDeleting',
  'ManagedSeedRegistered',
] as const;
export type ReplicaStatus = (typeof REPLICA_STATUSES)[number];
export const isReplicaStatus: (value: unknown) => value is ReplicaStatus = isOneOf(REPLICA_STATUSES);

export const PENDING_REPLICA_REASONS = [
  'ShootReconciling',
  'ShootDeleting',
  'ShootReconcileFailed',
  'ShootDeleteFailed',
  'ManagedSeedPreparing',
  'ManagedSeedDeleting',
] as const;
export type PendingReplicaReason = (typeof PENDING_REPLICA_REASONS)[number];
export const isPendingReplicaReason: (value: unknown) => value is PendingReplicaReason =
  isOneOf(PENDING_REPLICA_REASONS);

export interface PendingReplica {
  name: string;
  reason: PendingReplicaReason;
  since: Time;
  retries?: number;
}

export interface ManagedSeedTemplate {
  metadata?: ObjectMeta;
  spec: ManagedSeedSpec;
}

export interface ShootTemplate {
  metadata?: ObjectMeta;
  spec: ShootSpec;
}

export interface ManagedSeedSetSpec {
  /** Default 1. */
  replicas?: number;
  /** Must match the template labels. */
  selector: LabelSelector;
  template: ManagedSeedTemplate;
  shootTemplate: ShootTemplate;
  updateStrategy?: { type?: 'RollingUpdate'; rollingUpdate?: { partition?: number } };
  revisionHistoryLimit?: number;
}

export interface ManagedSeedSetStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  nextReplicaNumber?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
  conditions?: GardenerCondition[];
  pendingReplica?: PendingReplica;
}

export interface ManagedSeedSet extends TypedObject<ManagedSeedSetSpec, ManagedSeedSetStatus> {
  apiVersion?: typeof SEEDMANAGEMENT_API_VERSION;
  kind?: 'ManagedSeedSet';
}
