/**
 * The part of a real cluster's bootstrap RBAC policy (plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy) that clients depend on: cluster-admin for system:masters, and discovery,
 * version, health and OpenAPI for every authenticated user (without system:discovery a service
 * account could not even run `kubectl get`). The aggregated admin/edit/view roles and the
 * controller roles are not included.
 */
import type { KubeObject } from '../../api/types.js';
import {
  RBAC_GROUP,
  SYSTEM_AUTHENTICATED,
  SYSTEM_MASTERS,
  SYSTEM_UNAUTHENTICATED,
  type PolicyRule,
} from './types.js';

const BOOTSTRAP_METADATA = {
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};

function clusterRole(name: string, rules: PolicyRule[]): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: { name, ...structuredClone(BOOTSTRAP_METADATA) },
    rules,
  };
}

function clusterRoleBinding(name: string, groups: string[]): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, ...structuredClone(BOOTSTRAP_METADATA) },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    subjects: groups.map((g) => ({ apiGroup: RBAC_GROUP, kind: 'Group', name: g })),
  };
}

const DISCOVERY_URLS = [
  '/api',
  '/api/*',
  '/apis',
  '/apis/*',
  '/healthz',
  '/livez',
  '/openapi',
  '/openapi/*',
  '/readyz',
  '/version',
  '/version/',
];

const PUBLIC_INFO_URLS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

const MONITORING_URLS = [
  '/healthz',
  '/healthz/*',
  '/livez',
  '/livez/*',
  '/metrics',
  '/metrics/slis',
  '/readyz',
  '/readyz/*',
];

/** Default ClusterRoles of a Kubernetes 1.32 cluster (a subset; see the module comment). */
export function bootstrapClusterRoles(): KubeObject[] {
  return [
    clusterRole('cluster-admin', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole('system:basic-user', [
      {
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        verbs: ['create'],
      },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ]),
    clusterRole('system:discovery', [{ nonResourceURLs: DISCOVERY_URLS, verbs: ['get'] }]),
    clusterRole('system:public-info-viewer', [{ nonResourceURLs: PUBLIC_INFO_URLS, verbs: ['get'] }]),
    clusterRole('system:monitoring', [{ nonResourceURLs: MONITORING_URLS, verbs: ['get'] }]),
  ];
}

/** Their ClusterRoleBindings. */
export function bootstrapClusterRoleBindings(): KubeObject[] {
  return [
    clusterRoleBinding('cluster-admin', [SYSTEM_MASTERS]),
    clusterRoleBinding('system:basic-user', [SYSTEM_AUTHENTICATED]),
    clusterRoleBinding('system:discovery', [SYSTEM_AUTHENTICATED]),
    clusterRoleBinding('system:public-info-viewer', [SYSTEM_AUTHENTICATED, SYSTEM_UNAUTHENTICATED]),
    clusterRoleBinding('system:monitoring', ['system:monitoring']),
  ];
}
