/**
 * The printer columns of the built-in kinds, keyed by kind and then column name: each entry
 * carries the column definition a Kubernetes 1.32 API server sends and the function computing its
 * cells as pkg/printers/internalversion/printers.go does.
 */
import type { KindColumns } from './columns.js';
import {
  daemonSetColumns,
  deploymentColumns,
  horizontalPodAutoscalerColumns,
  replicaSetColumns,
  replicationControllerColumns,
  statefulSetColumns,
} from './printers-apps.js';
import {
  configMapColumns,
  customResourceDefinitionColumns,
  endpointSliceColumns,
  endpointsColumns,
  leaseColumns,
  namespaceColumns,
  secretColumns,
  serviceAccountColumns,
  serviceColumns,
} from './printers-core.js';
import { eventColumns, nodeColumns } from './printers-node.js';
import { podColumns } from './printers-pod.js';
import { clusterRoleBindingColumns, defaultConvertorColumns, roleBindingColumns } from './printers-rbac.js';

export const BUILTIN_COLUMNS: Record<string, KindColumns> = {
  Namespace: namespaceColumns,
  Secret: secretColumns,
  ConfigMap: configMapColumns,
  Service: serviceColumns,
  ServiceAccount: serviceAccountColumns,
  Pod: podColumns,
  ReplicationController: replicationControllerColumns,
  Endpoints: endpointsColumns,
  Event: eventColumns,
  Node: nodeColumns,
  EndpointSlice: endpointSliceColumns,
  Lease: leaseColumns,
  Deployment: deploymentColumns,
  ReplicaSet: replicaSetColumns,
  StatefulSet: statefulSetColumns,
  DaemonSet: daemonSetColumns,
  HorizontalPodAutoscaler: horizontalPodAutoscalerColumns,
  CustomResourceDefinition: customResourceDefinitionColumns,
  Role: defaultConvertorColumns,
  ClusterRole: defaultConvertorColumns,
  RoleBinding: roleBindingColumns,
  ClusterRoleBinding: clusterRoleBindingColumns,
};

/** Kinds served with apiserver's default table convertor (an empty list has `rows: null`). */
export const DEFAULT_CONVERTOR_KINDS = new Set(['CustomResourceDefinition', 'Role', 'ClusterRole']);
