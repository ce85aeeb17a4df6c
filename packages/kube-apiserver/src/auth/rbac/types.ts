/**
 * The shapes RBAC works with: the authenticated user, the attributes of a request as the
 * authorizer sees them, and the fields of Role, ClusterRole, RoleBinding and ClusterRoleBinding.
 */
import type { KubeObject } from '../../api/types.js';

/** user.Info: who is asking (from the admin token or a ServiceAccount token). */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  /** Extra attributes (pod name/uid, credential id) as a token authenticator adds them. */
  extra?: Record<string, string[]>;
}

/**
 * authorizer.Attributes. A resource request has `resource` set (possibly with subresource, name,
 * namespace); a non-resource request (`/version`, `/apis`, `/openapi/v3`) has only `path`.
 */
export interface Attributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection (or a special verb). */
  verb: string;
  /** '' for the core group. */
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  /** The URL path (the only attribute of a non-resource request besides verb and user). */
  path?: string;
  /** Whether this is a resource request; default: whether `resource` is set. */
  resourceRequest?: boolean;
}

export type Decision = { allowed: true; reason: string } | { allowed: false; reason: string };

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** The stored RBAC objects one authorization looks at (RoleBindings of other namespaces are ignored). */
export interface RbacObjects {
  roles: readonly KubeObject[];
  clusterRoles: readonly KubeObject[];
  roleBindings: readonly KubeObject[];
  clusterRoleBindings: readonly KubeObject[];
}

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Store keys (`<group>/<plural>`) of the RBAC kinds. */
export const RBAC_RESOURCES = {
  roles: `${RBAC_GROUP}/roles`,
  clusterRoles: `${RBAC_GROUP}/clusterroles`,
  roleBindings: `${RBAC_GROUP}/rolebindings`,
  clusterRoleBindings: `${RBAC_GROUP}/clusterrolebindings`,
} as const;

/** The superuser group: a privileged-group authorizer allows it everything, before RBAC. */
export const SYSTEM_MASTERS = 'system:masters';
export const SYSTEM_AUTHENTICATED = 'system:authenticated';
export const SYSTEM_UNAUTHENTICATED = 'system:unauthenticated';
export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;
}

export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

/** The rules of a stored Role or ClusterRole (tolerant of missing fields). */
export function rulesOf(obj: KubeObject): PolicyRule[] {
  const rules = Array.isArray(obj.rules) ? (obj.rules as Record<string, unknown>[]) : [];
  return rules.map((r) => ({
    verbs: strings(r?.verbs),
    apiGroups: strings(r?.apiGroups),
    resources: strings(r?.resources),
    resourceNames: strings(r?.resourceNames),
    nonResourceURLs: strings(r?.nonResourceURLs),
  }));
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function subjectsOf(obj: KubeObject): Subject[] {
  const subjects = Array.isArray(obj.subjects) ? (obj.subjects as Record<string, unknown>[]) : [];
  return subjects.map((s) => ({
    kind: str(s?.kind),
    apiGroup: str(s?.apiGroup),
    name: str(s?.name),
    namespace: str(s?.namespace),
  }));
}

export function roleRefOf(obj: KubeObject): RoleRef {
  const ref = (obj.roleRef ?? {}) as Record<string, unknown>;
  return { apiGroup: str(ref.apiGroup), kind: str(ref.kind), name: str(ref.name) };
}
