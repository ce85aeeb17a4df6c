/**
 * core.gardener.cloud/v1beta1: Seed, Shoot, CloudProfile, Project — the fields the scheduler,
 * seed management and the dependency watchdog use (specs/seed-management.md,
 * specs/dependency-watchdog.md). On a real garden cluster gardener-apiserver serves this group.
 */
import { isOneOf } from '@landscape/apimachinery';
import type {
  KubeObject,
  LabelSelector,
  ObjectMeta,
  ObjectReference,
  Quantity,
  Time,
  TypedObject,
} from '@landscape/apimachinery';

export const GARDENER_CORE_GROUP = 'core.gardener.cloud';
export const GARDENER_CORE_VERSION = 'v1beta1';
export const GARDENER_CORE_API_VERSION = 'core.gardener.cloud/v1beta1';

export const GardenerAnnotations = {
  /** `"true"` on a Seed: the scheduler drops it. */
  emergencyStopReconciliations: 'shoot.gardener.cloud/emergency-stop-reconciliations',
  /** `"true"` on a Shoot that is to be deleted. */
  confirmationDeletion: 'confirmation.gardener.cloud/deletion',
  /** Operation requested on a Shoot, e.g. `retry`, `reconcile`. */
  operation: 'gardener.cloud/operation',
  /** On a region-config ConfigMap: the cloud profiles it applies to (comma separated). */
  schedulingCloudProfiles: 'scheduling.gardener.cloud/cloudprofiles',
} as const;

export const GardenerLabels = {
  /** Shoot health: `healthy`, `progressing`, `unhealthy`, `unknown`. */
  shootStatus: 'shoot.gardener.cloud/status',
  /** On a Node: the worker pool it belongs to. */
  workerPool: 'worker.gardener.cloud/pool',
  /** `region-config` on the scheduler's region-distance ConfigMap. */
  schedulingPurpose: 'scheduling.gardener.cloud/purpose',
} as const;

/** The taint a protected Seed carries (an ordinary taint for the scheduler). */
export const SEED_TAINT_PROTECTED = 'seed.gardener.cloud/protected';

export const SeedConditionTypes = {
  gardenletReady: 'GardenletReady',
  backupBucketsReady: 'BackupBucketsReady',
  seedSystemComponentsHealthy: 'SeedSystemComponentsHealthy',
} as const;

export const LAST_OPERATION_TYPES = ['Create', 'Reconcile', 'Delete', 'Migrate', 'Restore'] as const;
export type LastOperationType = (typeof LAST_OPERATION_TYPES)[number];
export const isLastOperationType: (value: unknown) => value is LastOperationType =
  isOneOf(LAST_OPERATION_TYPES);

export const LAST_OPERATION_STATES = [
  'Processing',
  'Succeeded',
  'Error',
  'Failed',
  'Pending',
  'Aborted',
] as const;
export type LastOperationState = (typeof LAST_OPERATION_STATES)[number];
export const isLastOperationState: (value: unknown) => value is LastOperationState =
  isOneOf(LAST_OPERATION_STATES);

export const SHOOT_PURPOSES = [
  'evaluation',
  'testing',
  'development',
  'infrastructure',
  'production',
] as const;
export type ShootPurpose = (typeof SHOOT_PURPOSES)[number];
export const isShootPurpose: (value: unknown) => value is ShootPurpose = isOneOf(SHOOT_PURPOSES);

export const FAILURE_TOLERANCE_TYPES = ['node', 'zone'] as const;
export type FailureToleranceType = (typeof FAILURE_TOLERANCE_TYPES)[number];
export const isFailureToleranceType: (value: unknown) => value is FailureToleranceType =
  isOneOf(FAILURE_TOLERANCE_TYPES);

export const PROJECT_PHASES = ['Pending', 'Ready', 'Terminating', 'Failed'] as const;
export type ProjectPhase = (typeof PROJECT_PHASES)[number];
export const isProjectPhase: (value: unknown) => value is ProjectPhase = isOneOf(PROJECT_PHASES);

/** The Gardener condition (has lastUpdateTime and codes). */
export interface GardenerCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | 'Progressing';
  lastTransitionTime?: Time;
  lastUpdateTime?: Time;
  reason?: string;
  message?: string;
  codes?: string[];
}

export interface LastOperation {
  type: LastOperationType;
  state: LastOperationState;
  description?: string;
  lastUpdateTime?: Time;
  progress?: number;
}

export interface LastError {
  description: string;
  taskID?: string;
  codes?: string[];
  lastUpdateTime?: Time;
}

/** A label selector plus provider types (Shoot and CloudProfile `spec.seedSelector`). */
export interface SeedSelector extends LabelSelector {
  /** Empty: the seed type must equal the shoot's; `*` matches every type. */
  providerTypes?: string[];
}

export interface Taint {
  key: string;
  value?: string;
}

export interface Toleration {
  key: string;
  value?: string;
}

export interface AccessRestriction {
  name: string;
}

export interface AccessRestrictionWithOptions extends AccessRestriction {
  options?: Record<string, string>;
}

export type ResourceList = Record<string, Quantity>;

export interface SeedSpec {
  provider: { type: string; region: string; zones?: string[]; providerConfig?: unknown };
  settings?: {
    scheduling?: { visible: boolean };
    [setting: string]: unknown;
  };
  taints?: Taint[];
  backup?: { provider: string; region?: string; [field: string]: unknown } | null;
  ingress?: { domain: string; controller?: { kind: string } };
  dns?: SeedDNS;
  networks?: SeedNetworks;
  accessRestrictions?: AccessRestrictionWithOptions[];
}

/** A DNS provider of a seed's internal or default domains (upstream SeedDNSProviderConfig). */
export interface SeedDNSProviderConfig {
  type: string;
  domain: string;
  zone?: string;
  credentialsRef?: ObjectReference;
}

/** Seed `spec.dns` (upstream SeedDNS): the seed's DNS provider, internal domain and default domains. */
export interface SeedDNS {
  provider?: {
    type: string;
    credentialsRef?: ObjectReference;
    secretRef?: { name: string; namespace: string };
  };
  internal?: SeedDNSProviderConfig;
  /** Shoot default domains; a shoot's `<name>.<project>.<domain>` must match one of them (the scheduler's domain stage). */
  defaults?: SeedDNSProviderConfig[];
  /** Older Gardener releases (tombstoned upstream; ManagedSeedSets still replace its placeholder). */
  ingressDomain?: string;
}

/** Seed `spec.networks` (upstream SeedNetworks). */
export interface SeedNetworks {
  nodes?: string;
  pods: string;
  services: string;
  shootDefaults?: { pods?: string; services?: string };
  blockCIDRs?: string[];
  ipFamilies?: IPFamily[];
}

export type IPFamily = 'IPv4' | 'IPv6';

/** Shoot `spec.networking` (upstream Networking; `ipFamilies` defaults to [IPv4]). */
export interface ShootNetworking {
  type?: string;
  providerConfig?: unknown;
  pods?: string;
  nodes?: string;
  services?: string;
  ipFamilies?: IPFamily[];
  [field: string]: unknown;
}

export interface SeedStatus {
  conditions?: GardenerCondition[];
  lastOperation?: LastOperation;
  observedGeneration?: number;
  capacity?: ResourceList;
  allocatable?: ResourceList;
  kubernetesVersion?: string;
  clusterIdentity?: string;
  gardener?: Record<string, unknown>;
}

export interface Seed extends TypedObject<SeedSpec, SeedStatus> {
  apiVersion?: typeof GARDENER_CORE_API_VERSION;
  kind?: 'Seed';
}

export interface MachineControllerManagerSettings {
  /** Node condition types that mark a node unhealthy; default KernelDeadlock, ReadonlyFilesystem, DiskPressure, NetworkUnavailable. */
  nodeConditions?: string[];
  machineDrainTimeout?: string;
  machineHealthTimeout?: string;
  machineCreationTimeout?: string;
  maxEvictRetries?: number;
}

export interface Worker {
  name: string;
  machine?: { type: string; image?: { name: string; version?: string } };
  minimum?: number;
  maximum?: number;
  zones?: string[];
  machineControllerManagerSettings?: MachineControllerManagerSettings;
  [field: string]: unknown;
}

export interface ShootSpec {
  cloudProfileName?: string;
  cloudProfile?: { kind: string; name: string };
  region: string;
  seedName?: string;
  schedulerName?: string;
  seedSelector?: SeedSelector;
  tolerations?: Toleration[];
  purpose?: ShootPurpose;
  provider: { type: string; workers?: Worker[]; [field: string]: unknown };
  hibernation?: { enabled?: boolean; schedules?: unknown[] };
  kubernetes?: {
    version?: string;
    kubeControllerManager?: { nodeMonitorGracePeriod?: string; [field: string]: unknown };
    [field: string]: unknown;
  };
  controlPlane?: { highAvailability?: { failureTolerance: { type: FailureToleranceType } } };
  accessRestrictions?: AccessRestrictionWithOptions[];
  dns?: { domain?: string; [field: string]: unknown };
  networking?: ShootNetworking;
  secretBindingName?: string;
  credentialsBindingName?: string;
}

export interface ShootStatus {
  conditions?: GardenerCondition[];
  constraints?: GardenerCondition[];
  lastOperation?: LastOperation;
  lastErrors?: LastError[];
  observedGeneration?: number;
  seedName?: string;
  isHibernated?: boolean;
  technicalID?: string;
  uid?: string;
  /** The networks the shoot actually uses (upstream NetworkingStatus). */
  networking?: { pods?: string[]; nodes?: string[]; services?: string[] };
  gardener?: Record<string, unknown>;
}

export interface Shoot extends TypedObject<ShootSpec, ShootStatus> {
  apiVersion?: typeof GARDENER_CORE_API_VERSION;
  kind?: 'Shoot';
}

export interface CloudProfileSpec {
  type: string;
  regions?: { name: string; zones?: { name: string }[] }[];
  kubernetes?: { versions: { version: string; classification?: string }[] };
  seedSelector?: SeedSelector;
  [field: string]: unknown;
}

export interface CloudProfile extends KubeObject {
  apiVersion?: typeof GARDENER_CORE_API_VERSION;
  kind?: 'CloudProfile';
  metadata?: ObjectMeta;
  spec: CloudProfileSpec;
}

/** NamespacedCloudProfile `spec` (upstream NamespacedCloudProfileSpec): additions to its parent CloudProfile. */
export interface NamespacedCloudProfileSpec {
  parent: { kind: 'CloudProfile'; name: string };
  caBundle?: string;
  kubernetes?: { versions?: { version: string; expirationDate?: Time; [field: string]: unknown }[] };
  machineImages?: {
    name: string;
    updateStrategy?: string;
    versions?: Record<string, unknown>[];
    [field: string]: unknown;
  }[];
  machineTypes?: { name: string; [field: string]: unknown }[];
  volumeTypes?: { name: string; [field: string]: unknown }[];
  limits?: { maxNodesTotal?: number };
  providerConfig?: unknown;
}

/** core.gardener.cloud/v1beta1 NamespacedCloudProfile: a project's additions to a CloudProfile. */
export interface NamespacedCloudProfile extends KubeObject {
  apiVersion?: typeof GARDENER_CORE_API_VERSION;
  kind?: 'NamespacedCloudProfile';
  metadata?: ObjectMeta;
  spec: NamespacedCloudProfileSpec;
  /** Written by gardener-controller-manager: the parent's spec with this profile merged onto it. */
  status?: { cloudProfileSpec?: CloudProfileSpec; observedGeneration?: number };
}

export interface ProjectMember {
  apiGroup?: string;
  kind: string;
  name: string;
  namespace?: string;
  role?: string;
  roles?: string[];
}

export interface ProjectSpec {
  namespace?: string;
  description?: string;
  purpose?: string;
  owner?: { apiGroup?: string; kind: string; name: string };
  createdBy?: { apiGroup?: string; kind: string; name: string };
  members?: ProjectMember[];
}

export interface ProjectStatus {
  phase?: ProjectPhase;
  observedGeneration?: number;
}

export interface Project extends TypedObject<ProjectSpec, ProjectStatus> {
  apiVersion?: typeof GARDENER_CORE_API_VERSION;
  kind?: 'Project';
}
