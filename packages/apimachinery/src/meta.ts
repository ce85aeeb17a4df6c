/**
 * Object metadata and common shapes as they travel over the wire (JSON: timestamps are RFC 3339
 * strings). client-node's model types (V1ObjectMeta, ...) describe objects after its
 * ObjectSerializer ran, with `Date` timestamps; the raw helpers in shared/kube return JSON, so
 * the product's own kinds use these types.
 */
import { isOneOf } from './guards.js';

/** RFC 3339 timestamp, e.g. `2023-07-13T11:33:30Z`. */
export type Time = string;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time;
  deletionTimestamp?: Time;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Any Kubernetes object: apiVersion, kind, metadata and whatever else. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** A typed object with spec and optional status. */
export interface TypedObject<Spec, Status = never> extends KubeObject {
  metadata?: ObjectMeta;
  spec: Spec;
  status?: Status;
}

export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: T[];
}

export const PARTIAL_OBJECT_METADATA_API_VERSION = 'meta.k8s.io/v1';

/** What the API server returns for `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`. */
export interface PartialObjectMetadata {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

export interface PartialObjectMetadataList {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: PartialObjectMetadata[];
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface LocalObjectReference {
  name: string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

export const isConditionStatus: (value: unknown) => value is ConditionStatus = isOneOf(CONDITION_STATUSES);

/** A Kubernetes `metav1.Condition`. */
export interface Condition {
  type: string;
  status: ConditionStatus;
  observedGeneration?: number;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

/** metav1.StatusReason values (k8s.io/apimachinery/pkg/apis/meta/v1/types.go), StatusReasonUnknown ("") aside. */
export const STATUS_REASONS = [
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
] as const;
export type StatusReason = (typeof STATUS_REASONS)[number];
export const isStatusReason: (value: unknown) => value is StatusReason = isOneOf(STATUS_REASONS);

/** `metav1.Status`, the body of every API error. */
export interface Status {
  apiVersion?: string;
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { type?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}

/** A quantity as the API server prints it (`"250"`, `"325m"`, `"64625322666m"`). */
export type Quantity = string | number;

/** `namespace/name`, or `name` for cluster-scoped objects (what the seed logs as `resource`). */
export function objectKey(meta: Pick<ObjectMeta, 'namespace' | 'name'> | undefined): string {
  const name = meta?.name ?? '';
  return meta?.namespace ? `${meta.namespace}/${name}` : name;
}
