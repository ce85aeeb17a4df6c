/**
 * k8s.io/api rbac/v1 (generated.proto, types.go): Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding, what `kubectl create role|clusterrole|rolebinding|clusterrolebinding` sends.
 *
 * `rules` (no omitempty) is a Go nil slice when absent: JSON `null`, which the decoder leaves out.
 * PolicyRule.verbs has no omitempty either; the other lists are omitempty. Subject.kind and .name
 * and all of RoleRef have no omitempty (kept as "" when on the wire), Subject.apiGroup and
 * .namespace have.
 */
import { KEEP, list, message, obj, str, strs, type MessageDesc } from '../descriptor.js';
import { LabelSelector, ObjectMeta } from './meta.js';

export const PolicyRule = message('PolicyRule', {
  1: strs('verbs'),
  2: strs('apiGroups'),
  3: strs('resources'),
  4: strs('resourceNames'),
  5: strs('nonResourceURLs'),
});

export const Subject = message('Subject', {
  1: str('kind', KEEP),
  2: str('apiGroup'),
  3: str('name', KEEP),
  4: str('namespace'),
});

export const RoleRef = message('RoleRef', {
  1: str('apiGroup', KEEP),
  2: str('kind', KEEP),
  3: str('name', KEEP),
});

export const AggregationRule = message('AggregationRule', {
  1: list('clusterRoleSelectors', LabelSelector),
});

export const Role = message('Role', {
  1: obj('metadata', ObjectMeta),
  2: list('rules', PolicyRule),
});

export const ClusterRole = message('ClusterRole', {
  1: obj('metadata', ObjectMeta),
  2: list('rules', PolicyRule),
  3: obj('aggregationRule', AggregationRule),
});

/** RoleBinding and ClusterRoleBinding share their fields: metadata 1, subjects 2, roleRef 3. */
const binding = (name: string): MessageDesc =>
  message(name, {
    1: obj('metadata', ObjectMeta),
    2: list('subjects', Subject),
    3: obj('roleRef', RoleRef),
  });

export const RoleBinding = binding('RoleBinding');
export const ClusterRoleBinding = binding('ClusterRoleBinding');
