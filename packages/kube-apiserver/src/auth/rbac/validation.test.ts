import {
  clusterRoleBindingDef,
  clusterRoleDef,
  roleBindingDef,
  roleDef,
} from '../../registry/builtins/rbac.js';
import type { StatusError } from '../../api/errors.js';
import type { KubeObject, ResourceDef } from '../../api/types.js';
import { clusterRole, clusterRoleBinding, role, roleBinding, sa } from './rbac.fixtures.js';
import { prepareRbacWrite, validateRbacName } from './validation.js';

function failure(def: ResourceDef, obj: KubeObject, prev?: KubeObject): StatusError {
  try {
    prepareRbacWrite(def, obj, prev);
  } catch (e) {
    return e as StatusError;
  }
  throw new Error('expected a 422');
}

describe('prepareRbacWrite: defaults', () => {
  it('defaults roleRef.apiGroup and the apiGroup of User and Group subjects', () => {
    const rb: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'team' },
      roleRef: { kind: 'Role', name: 'reader' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'fn' },
      ],
    };
    expect(prepareRbacWrite(roleBindingDef(), rb)).toMatchObject({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [
        { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'ServiceAccount', name: 'fn' },
      ],
    });
    expect(rb.roleRef).toEqual({ kind: 'Role', name: 'reader' });
  });

  it('passes valid roles through', () => {
    const r = role('team', 'reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]);
    expect(prepareRbacWrite(roleDef(), r)).toBe(r);
  });
});

describe('prepareRbacWrite: validation', () => {
  const cases: [string, ResourceDef, KubeObject, string][] = [
    [
      'a rule without verbs',
      roleDef(),
      role('team', 'r', [{ verbs: [], apiGroups: [''], resources: ['pods'] }]),
      'Role.rbac.authorization.k8s.io "r" is invalid: rules[0].verbs: Required value: verbs must contain at least one value',
    ],
    [
      'a resource rule without groups and resources',
      roleDef(),
      role('team', 'r', [{ verbs: ['get'] }]),
      'Role.rbac.authorization.k8s.io "r" is invalid: [rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[0].resources: Required value: resource rules must supply at least one resource]',
    ],
    [
      'non-resource URLs in a Role',
      roleDef(),
      role('team', 'r', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]),
      'Role.rbac.authorization.k8s.io "r" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    ],
    [
      'non-resource URLs mixed with resources',
      clusterRoleDef(),
      clusterRole('r', [{ verbs: ['get'], nonResourceURLs: ['/healthz'], resources: ['pods'] }]),
      'ClusterRole.rbac.authorization.k8s.io "r" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: rules cannot apply to both regular resources and non-resource URLs',
    ],
    [
      'an aggregationRule without selectors',
      clusterRoleDef(),
      { ...clusterRole('agg', []), aggregationRule: {} },
      'ClusterRole.rbac.authorization.k8s.io "agg" is invalid: aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ],
    [
      'an unknown roleRef kind',
      roleBindingDef(),
      roleBinding('team', 'rb', { kind: 'Thing', name: 'x' }, [sa('fn')]),
      'RoleBinding.rbac.authorization.k8s.io "rb" is invalid: roleRef.kind: Unsupported value: "Thing": supported values: "Role", "ClusterRole"',
    ],
    [
      'a ClusterRoleBinding to a Role',
      clusterRoleBindingDef(),
      {
        ...clusterRoleBinding('crb', 'x', []),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' },
      },
      'ClusterRoleBinding.rbac.authorization.k8s.io "crb" is invalid: roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    ],
    [
      'a roleRef of another group',
      roleBindingDef(),
      {
        ...roleBinding('team', 'rb', { kind: 'Role', name: 'x' }, []),
        roleRef: { apiGroup: 'example.com', kind: 'Role', name: 'x' },
      },
      'RoleBinding.rbac.authorization.k8s.io "rb" is invalid: roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
    ],
    [
      'a roleRef without name',
      roleBindingDef(),
      roleBinding('team', 'rb', { kind: 'Role', name: '' }, []),
      'RoleBinding.rbac.authorization.k8s.io "rb" is invalid: roleRef.name: Required value',
    ],
    [
      'a service account subject without namespace in a ClusterRoleBinding',
      clusterRoleBindingDef(),
      clusterRoleBinding('crb', 'view', [sa('fn')]),
      'ClusterRoleBinding.rbac.authorization.k8s.io "crb" is invalid: subjects[0].namespace: Required value',
    ],
    [
      'a service account subject with an apiGroup',
      roleBindingDef(),
      roleBinding('team', 'rb', { kind: 'Role', name: 'r' }, [
        { kind: 'ServiceAccount', name: 'fn', apiGroup: 'rbac.authorization.k8s.io' },
      ]),
      'RoleBinding.rbac.authorization.k8s.io "rb" is invalid: subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""',
    ],
    [
      'an invalid service account name',
      roleBindingDef(),
      roleBinding('team', 'rb', { kind: 'Role', name: 'r' }, [sa('Fn_1')]),
      "RoleBinding.rbac.authorization.k8s.io \"rb\" is invalid: subjects[0].name: Invalid value: \"Fn_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
    [
      'an unknown subject kind without name',
      roleBindingDef(),
      roleBinding('team', 'rb', { kind: 'Role', name: 'r' }, [{ kind: 'Robot', name: '' }]),
      'RoleBinding.rbac.authorization.k8s.io "rb" is invalid: [subjects[0].name: Required value, subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]',
    ],
  ];
  it.each(cases)('rejects %s', (_name, def, obj, message) => {
    const err = failure(def, obj);
    expect(err.code).toBe(422);
    expect(err.message).toBe(message);
  });

  it('accepts path-segment names such as system:discovery', () => {
    expect(validateRbacName('system:discovery')).toEqual([]);
    expect(validateRbacName('a/b%c')).toEqual(["may not contain '/'", "may not contain '%'"]);
    expect(validateRbacName('..')).toEqual(["may not be '..'"]);
  });
});

describe('prepareRbacWrite: roleRef is immutable', () => {
  const prev = roleBinding('team', 'rb', { kind: 'Role', name: 'a' }, [sa('fn')]);

  it('refuses another roleRef with the real message and causes', () => {
    const next = roleBinding('team', 'rb', { kind: 'Role', name: 'b' }, [sa('fn')]);
    const status = failure(roleBindingDef(), next, prev).toStatus();
    expect(status.message).toBe(
      'RoleBinding.rbac.authorization.k8s.io "rb" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"b"}: cannot change roleRef',
    );
    expect(status.details).toEqual({
      name: 'rb',
      group: 'rbac.authorization.k8s.io',
      kind: 'RoleBinding',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"b"}: cannot change roleRef',
          field: 'roleRef',
        },
      ],
    });
  });

  it('allows changing the subjects, and a roleRef that only gets its default apiGroup', () => {
    const next = {
      ...roleBinding('team', 'rb', { kind: 'Role', name: 'a' }, [sa('other')]),
      roleRef: { kind: 'Role', name: 'a' },
    };
    expect(prepareRbacWrite(roleBindingDef(), next, prev).subjects).toEqual([sa('other')]);
  });

  it('applies to ClusterRoleBindings too', () => {
    const old = clusterRoleBinding('crb', 'view', [sa('fn', 'team')]);
    const next = clusterRoleBinding('crb', 'edit', [sa('fn', 'team')]);
    expect(failure(clusterRoleBindingDef(), next, old).message).toContain('cannot change roleRef');
  });
});
