/** The RBAC built-in definitions (builtins/rbac.ts) through the server's own decoder. */
import { builtinResources } from '../../registry/builtins/index.js';
import {
  clusterRoleBindingDef,
  clusterRoleDef,
  rbacDefs,
  roleBindingDef,
  roleDef,
} from '../../registry/builtins/rbac.js';
import { decodeObject } from '../../endpoints/decode.js';
import type { StatusError } from '../../api/errors.js';
import { tokenRequestDef } from './token-request.js';

const STRICT = { fieldValidation: 'Strict' as const };

function decodeFailure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    return e as StatusError;
  }
  throw new Error('expected decoding to fail');
}

describe('RBAC resource definitions', () => {
  it('are served as built-ins of rbac.authorization.k8s.io/v1', () => {
    const served = builtinResources().filter((d) => d.group === 'rbac.authorization.k8s.io');
    expect(served.map((d) => [d.kind, d.plural, d.namespaced])).toEqual([
      ['ClusterRoleBinding', 'clusterrolebindings', false],
      ['ClusterRole', 'clusterroles', false],
      ['RoleBinding', 'rolebindings', true],
      ['Role', 'roles', true],
    ]);
    expect(rbacDefs()[0]).not.toBe(rbacDefs()[0]);
  });

  it('decode a complete Role and ClusterRole strictly', () => {
    const rule = {
      apiGroups: ['apps'],
      resources: ['deployments', 'deployments/scale'],
      resourceNames: ['web'],
      verbs: ['get', 'update'],
    };
    const r = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r' },
      rules: [rule],
    };
    expect(decodeObject(roleDef(), r, STRICT).object.rules).toEqual([rule]);
    const cr = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'monitoring' },
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }],
      },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    };
    expect(decodeObject(clusterRoleDef(), cr, STRICT).warnings).toEqual([]);
  });

  it('reject unknown fields in rules under strict field validation', () => {
    const r = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resource: 'x' }],
    };
    expect(decodeFailure(() => decodeObject(roleDef(), r, STRICT)).code).toBe(400);
  });

  it('require roleRef and default its apiGroup', () => {
    const body = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb' },
      roleRef: { kind: 'Role', name: 'r' },
      subjects: [{ kind: 'ServiceAccount', name: 'fn', namespace: 'team' }],
    };
    expect(decodeObject(roleBindingDef(), body, STRICT).object.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'r',
    });
    const { roleRef: _omitted, ...withoutRef } = body;
    const err = decodeFailure(() =>
      decodeObject(clusterRoleBindingDef(), { ...withoutRef, kind: 'ClusterRoleBinding' }, STRICT),
    );
    expect(err.message).toBe(
      'ClusterRoleBinding.rbac.authorization.k8s.io "rb" is invalid: roleRef: Required value',
    );
  });

  it('show the printer columns kubectl shows', () => {
    expect(roleDef().printerColumns.map((c) => c.name)).toEqual(['Created At']);
    expect(roleBindingDef().printerColumns.map((c) => [c.name, c.priority ?? 0])).toEqual([
      ['Role', 0],
      ['Age', 0],
      ['Users', 1],
      ['Groups', 1],
      ['ServiceAccounts', 1],
    ]);
  });

  it('decode a TokenRequest as kubectl and client-node send it', () => {
    const body = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { creationTimestamp: null },
      spec: { audiences: null, expirationSeconds: 3600, boundObjectRef: null },
      status: { token: '' },
    };
    expect(decodeObject(tokenRequestDef(), body, STRICT).object.spec).toEqual({
      audiences: null,
      expirationSeconds: 3600,
      boundObjectRef: null,
    });
  });
});
