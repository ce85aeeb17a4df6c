/** Builders of RBAC objects and users for the RBAC unit tests. */
import type { KubeObject } from '../../api/types.js';
import type { PolicyRule, RbacObjects, Subject, UserInfo } from './types.js';

const API_VERSION = 'rbac.authorization.k8s.io/v1';

export function role(namespace: string, name: string, rules: PolicyRule[]): KubeObject {
  return { apiVersion: API_VERSION, kind: 'Role', metadata: { name, namespace }, rules };
}

export function clusterRole(name: string, rules: PolicyRule[]): KubeObject {
  return { apiVersion: API_VERSION, kind: 'ClusterRole', metadata: { name }, rules };
}

export function roleBinding(
  namespace: string,
  name: string,
  ref: { kind: string; name: string },
  subjects: Subject[],
): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...ref },
    subjects,
  };
}

export function clusterRoleBinding(name: string, roleName: string, subjects: Subject[]): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
    subjects,
  };
}

export const sa = (name: string, namespace?: string): Subject => ({
  kind: 'ServiceAccount',
  name,
  namespace,
});
export const userSubject = (name: string): Subject => ({
  kind: 'User',
  apiGroup: 'rbac.authorization.k8s.io',
  name,
});
export const groupSubject = (name: string): Subject => ({
  kind: 'Group',
  apiGroup: 'rbac.authorization.k8s.io',
  name,
});

export function saUser(namespace: string, name: string): UserInfo {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    uid: `uid-${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

export function plainUser(name: string, groups: string[] = []): UserInfo {
  return { username: name, groups: [...groups, 'system:authenticated'] };
}

export function objects(parts: Partial<RbacObjects>): RbacObjects {
  return { roles: [], clusterRoles: [], roleBindings: [], clusterRoleBindings: [], ...parts };
}
