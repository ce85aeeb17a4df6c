/**
 * landscaper.gardener.cloud/v1alpha1: DeployItem, Target, SyncObject, Context, plus the
 * annotations, phases and error codes of the deployer contract (specs/landscaper.md, seeds 000-002).
 */
import { isOneOf } from '@landscape/apimachinery';
import type { KubeObject, ObjectMeta, Time, TypedObject } from '@landscape/apimachinery';

export const LANDSCAPER_GROUP = 'landscaper.gardener.cloud';
export const LANDSCAPER_VERSION = 'v1alpha1';
export const LANDSCAPER_API_VERSION = 'landscaper.gardener.cloud/v1alpha1';

/**
 * The `deployer-target-name` value of an item that names no target (upstream
 * `lsv1alpha1.NoTargetNameValue`, apis/core/v1alpha1/constants.go), as the Landscaper's execution
 * controller writes it and the deployers' responsibility check reads it.
 */
export const NO_TARGET_NAME = '.noTargetName';

/** Annotations the product reads or writes on Landscaper objects. */
export const LandscaperAnnotations = {
  /** Operation requested on the object: `test-reconcile`, `interrupt` (see DEPLOY_ITEM_OPERATIONS). */
  operation: 'landscaper.gardener.cloud/operation',
  /** Copy of `spec.type` in the metadata (responsibility check on metadata only). */
  deployerType: 'landscaper.gardener.cloud/deployer-type',
  /** Copy of `spec.target.name` in the metadata; NO_TARGET_NAME when the item names no target. */
  deployerTargetName: 'landscaper.gardener.cloud/deployer-target-name',
  /** `"true"`: on delete only remove the finalizer, do not uninstall. */
  deleteWithoutUninstall: 'landscaper.gardener.cloud/delete-without-uninstall',
  /** The environment a Target belongs to; the default target selector of deployer blueprints. */
  environment: 'landscaper.gardener.cloud/environment',
  /** `"false"` switches continuous reconcile off for a DeployItem. */
  continuousReconcileActive: 'continuousreconcile.extensions.landscaper.gardener.cloud/active',
} as const;
export type LandscaperAnnotation = (typeof LandscaperAnnotations)[keyof typeof LandscaperAnnotations];

export const LANDSCAPER_FINALIZER = 'finalizer.landscaper.gardener.cloud';
/** `spec.context` when the DeployItem names none. */
export const DEFAULT_CONTEXT_NAME = 'default';

/** Values of the operation annotation that act on a DeployItem. */
export const DEPLOY_ITEM_OPERATIONS = ['test-reconcile', 'interrupt'] as const;
export type DeployItemOperation = (typeof DEPLOY_ITEM_OPERATIONS)[number];
export const isDeployItemOperation: (value: unknown) => value is DeployItemOperation =
  isOneOf(DEPLOY_ITEM_OPERATIONS);

/** `spec.type` of the DeployItems the Landscaper's own deployers handle. */
export const DeployerTypes = {
  helm: 'landscaper.gardener.cloud/helm',
  manifest: 'landscaper.gardener.cloud/kubernetes-manifest',
  container: 'landscaper.gardener.cloud/container',
  mock: 'landscaper.gardener.cloud/mock',
} as const;
export type DeployerType = (typeof DeployerTypes)[keyof typeof DeployerTypes];

/** `spec.type` of a Target that holds a kubeconfig (`spec.config.kubeconfig`). */
export const KUBERNETES_CLUSTER_TARGET_TYPE = 'landscaper.gardener.cloud/kubernetes-cluster';

export const DEPLOY_ITEM_PHASES = [
  'Init',
  'Progressing',
  'Completing',
  'Succeeded',
  'Failed',
  'InitDelete',
  'Deleting',
  'DeleteFailed',
] as const;
export type DeployItemPhase = (typeof DEPLOY_ITEM_PHASES)[number];
export const isDeployItemPhase: (value: unknown) => value is DeployItemPhase = isOneOf(DEPLOY_ITEM_PHASES);

export const FINAL_DEPLOY_ITEM_PHASES = ['Succeeded', 'Failed', 'DeleteFailed'] as const;
export type FinalDeployItemPhase = (typeof FINAL_DEPLOY_ITEM_PHASES)[number];
export const isFinalDeployItemPhase: (value: unknown) => value is FinalDeployItemPhase =
  isOneOf(FINAL_DEPLOY_ITEM_PHASES);

export const ERROR_CODES = [
  'ERR_UNAUTHORIZED',
  'ERR_CLEANUP',
  'ERR_CONFIGURATION_PROBLEM',
  'ERR_INTERNAL_PROBLEM',
  'ERR_TIMEOUT',
  'ERR_CYCLIC_DEPENDENCIES',
  'ERR_WEBHOOK',
  'ERR_UNFINISHED',
  'ERR_FOR_INFO_ONLY',
  'ERR_NO_RETRY',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
export const isErrorCode: (value: unknown) => value is ErrorCode = isOneOf(ERROR_CODES);

/** Codes after which a DeployItem ends in Failed / DeleteFailed instead of being retried. */
export const UNRECOVERABLE_ERROR_CODES = [
  'ERR_CONFIGURATION_PROBLEM',
  'ERR_INTERNAL_PROBLEM',
  'ERR_TIMEOUT',
  'ERR_UNAUTHORIZED',
  'ERR_CYCLIC_DEPENDENCIES',
] as const satisfies readonly ErrorCode[];
export type UnrecoverableErrorCode = (typeof UNRECOVERABLE_ERROR_CODES)[number];
export const isUnrecoverableErrorCode: (value: unknown) => value is UnrecoverableErrorCode =
  isOneOf(UNRECOVERABLE_ERROR_CODES);

/** The Landscaper `Error`: lastError, firstError, lastErrors[]. */
export interface LandscaperError {
  operation: string;
  reason: string;
  message: string;
  codes?: ErrorCode[];
  lastTransitionTime: Time;
  lastUpdateTime: Time;
}

/** A Landscaper condition (has lastUpdateTime and codes, unlike metav1.Condition). */
export interface LandscaperCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime: Time;
  lastUpdateTime: Time;
  reason: string;
  message: string;
  codes?: ErrorCode[];
}

export interface ObjectRef {
  name: string;
  namespace?: string;
}

/** A provider configuration (`spec.config`): any object with its own apiVersion/kind. */
export interface ProviderConfiguration {
  apiVersion?: string;
  kind?: string;
  [field: string]: unknown;
}

export interface OnDeleteConfig {
  skipUninstallIfClusterRemoved?: boolean;
}

export interface DeployItemSpec {
  /** The deployer type, e.g. `landscaper.gardener.cloud/kubernetes-manifest`. */
  type: string;
  target?: ObjectRef;
  /** Name of the Context in the item's namespace; default `default`. */
  context?: string;
  /** The deployer's provider configuration. */
  config?: ProviderConfiguration;
  /** Go duration (`10m`, `1h30m`) or `none`; progressing timeout, default 10m. */
  timeout?: string;
  updateOnChangeOnly?: boolean;
  onDelete?: OnDeleteConfig;
}

export interface DeployerInformation {
  identity: string;
  name: string;
  version: string;
}

export interface TransitionTimes {
  triggerTime?: Time;
  initTime?: Time;
  waitTime?: Time;
  finishedTime?: Time;
}

export interface DeployItemStatus {
  phase?: DeployItemPhase;
  /** Deprecated upstream field, still in the CRD. */
  deployItemPhase?: string;
  observedGeneration: number;
  conditions?: LandscaperCondition[];
  lastError?: LandscaperError | null;
  firstError?: LandscaperError | null;
  /** At most 5. */
  lastErrors?: LandscaperError[];
  lastReconcileTime?: Time;
  deployer?: DeployerInformation;
  providerStatus?: ProviderConfiguration;
  exportRef?: ObjectRef;
  jobID?: string;
  jobIDFinished?: string;
  jobIDGenerationTime?: Time;
  transitionTimes?: TransitionTimes;
}

export interface DeployItem extends TypedObject<DeployItemSpec, DeployItemStatus> {
  apiVersion?: typeof LANDSCAPER_API_VERSION;
  kind?: 'DeployItem';
}

export interface TargetSecretRef {
  name: string;
  /** Upstream Targets read Secrets in their own namespace only. */
  namespace?: string;
  /** Without a key the whole Secret `data` is the Target's content. */
  key?: string;
}

export interface TargetSpec {
  type: string;
  /** Exactly one of config and secretRef. */
  config?: unknown;
  secretRef?: TargetSecretRef;
}

/** `spec.config` of a `landscaper.gardener.cloud/kubernetes-cluster` Target. */
export interface KubernetesClusterTargetConfig {
  kubeconfig: string;
}

export interface Target extends KubeObject {
  apiVersion?: typeof LANDSCAPER_API_VERSION;
  kind?: 'Target';
  metadata?: ObjectMeta;
  spec: TargetSpec;
}

export interface SyncObjectSpec {
  /** The lock owner; `""` when unlocked. */
  podName: string;
  /** Kind of the locked object, e.g. `DeployItem`. */
  kind: string;
  /** Name of the locked object. */
  name: string;
  lastUpdateTime: Time;
  /** The controller, e.g. `manifest`, `mock`; the SyncObject is named `<prefix>-<uid>`. */
  prefix: string;
}

export interface SyncObject extends KubeObject {
  apiVersion?: typeof LANDSCAPER_API_VERSION;
  kind?: 'SyncObject';
  metadata?: ObjectMeta;
  spec: SyncObjectSpec;
}

/** Context has its fields at the top level (no spec). */
export interface Context extends KubeObject {
  apiVersion?: typeof LANDSCAPER_API_VERSION;
  kind?: 'Context';
  metadata?: ObjectMeta;
  repositoryContext?: Record<string, unknown>;
  registryPullSecrets?: { name: string }[];
  configurations?: Record<string, unknown>;
  componentVersionOverwrites?: string;
  verificationSignatures?: Record<string, unknown>;
  ocmConfig?: { name?: string };
}

/** Kubernetes selection operators (k8s.io/apimachinery selection.Operator). */
export const SELECTION_OPERATORS = ['=', '==', '!=', 'in', 'notin', 'exists', '!', 'gt', 'lt'] as const;
export type SelectionOperator = (typeof SELECTION_OPERATORS)[number];
export const isSelectionOperator: (value: unknown) => value is SelectionOperator =
  isOneOf(SELECTION_OPERATORS);

export interface Requirement {
  key: string;
  operator: SelectionOperator;
  values?: string[];
}

/** A deployer's target selector: any selector matches (OR); all parts of one must hold (AND). */
export interface TargetSelector {
  targets?: ObjectRef[];
  annotations?: Requirement[];
  labels?: Requirement[];
}
