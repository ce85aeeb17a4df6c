/**
 * Built-in Kubernetes kinds the product touches, re-exported from @kubernetes/client-node's models.
 *
 * Caveat: these model types describe objects as client-node's typed APIs return them, after its
 * ObjectSerializer ran (timestamps are `Date`, e.g. `V1Lease.spec.renewTime`). Objects read
 * through the raw JSON helpers of shared/kube keep RFC 3339 strings; compare times with
 * `new Date(x)` (works for both) rather than trusting the static type.
 */
export type {
  CoreV1Event,
  V1ConfigMap,
  V1CustomResourceDefinition,
  V1DaemonSet,
  V1Deployment,
  V1EndpointSlice,
  V1Endpoints,
  V1LabelSelector,
  V1Lease,
  V1ListMeta,
  V1Namespace,
  V1Node,
  V1ObjectMeta,
  V1OwnerReference,
  V1Pod,
  V1ReplicaSet,
  V1Scale,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1Status,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';

export const BuiltinLabels = {
  /** On an EndpointSlice: the Service it belongs to. */
  serviceName: 'kubernetes.io/service-name',
} as const;

/** Node Leases live here, named after their Node. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
