import { authorize, rulesFor } from './authorizer.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap.js';
import {
  clusterRole,
  clusterRoleBinding,
  groupSubject,
  objects,
  plainUser,
  role,
  roleBinding,
  sa,
  saUser,
  userSubject,
} from './rbac.fixtures.js';
import type { Attributes, PolicyRule, UserInfo } from './types.js';

const fn = saUser('team', 'fn');

function res(
  verb: string,
  resource: string,
  extra: Partial<Attributes> = {},
  user: UserInfo = fn,
): Attributes {
  return { user, verb, apiGroup: '', resource, namespace: 'team', ...extra };
}

function path(verb: string, p: string, user: UserInfo = fn): Attributes {
  return { user, verb, path: p };
}

const READ_CM: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] };

describe('authorize: subjects', () => {
  const reader = role('team', 'reader', [READ_CM]);
  const cases: [string, UserInfo, ReturnType<typeof sa>, boolean][] = [
    ['User by name', plainUser('alice'), userSubject('alice'), true],
    ['User of another name', plainUser('bob'), userSubject('alice'), false],
    ['Group membership', plainUser('bob', ['devs']), groupSubject('devs'), true],
    ['Group not held', plainUser('bob', ['ops']), groupSubject('devs'), false],
    ['ServiceAccount with namespace', fn, sa('fn', 'team'), true],
    ['ServiceAccount defaulting to the binding namespace', fn, sa('fn'), true],
    ['ServiceAccount of another namespace', saUser('other', 'fn'), sa('fn'), false],
    ['ServiceAccount of another name', saUser('team', 'other'), sa('fn', 'team'), false],
    ['group system:serviceaccounts', saUser('x', 'y'), groupSubject('system:serviceaccounts'), true],
    ['group system:serviceaccounts:<ns>', fn, groupSubject('system:serviceaccounts:team'), true],
    ['group system:serviceaccounts:<other ns>', fn, groupSubject('system:serviceaccounts:other'), false],
    ['group system:authenticated', plainUser('carol'), groupSubject('system:authenticated'), true],
    [
      'a user named like a service account is one',
      plainUser('system:serviceaccount:team:fn'),
      sa('fn'),
      true,
    ],
    ['unknown subject kind', fn, { kind: 'Robot', name: 'fn' }, false],
  ];
  it.each(cases)('%s', (_name, user, subject, expected) => {
    const rb = roleBinding('team', 'rb', { kind: 'Role', name: 'reader' }, [subject]);
    const decision = authorize(
      res('list', 'configmaps', {}, user),
      objects({ roles: [reader], roleBindings: [rb] }),
    );
    expect(decision.allowed).toBe(expected);
  });

  it('never matches a ServiceAccount subject without namespace in a ClusterRoleBinding', () => {
    const crb = clusterRoleBinding('crb', 'reader', [sa('fn')]);
    const decision = authorize(
      res('list', 'configmaps'),
      objects({ clusterRoles: [clusterRole('reader', [READ_CM])], clusterRoleBindings: [crb] }),
    );
    expect(decision).toEqual({ allowed: false, reason: '' });
  });
});

describe('authorize: bindings and scopes', () => {
  const readerRole = role('team', 'reader', [READ_CM]);
  const readerCluster = clusterRole('cm-reader', [READ_CM]);
  const cases: [string, Parameters<typeof objects>[0], Attributes, boolean][] = [
    [
      'RoleBinding to a Role in its namespace',
      {
        roles: [readerRole],
        roleBindings: [roleBinding('team', 'rb', { kind: 'Role', name: 'reader' }, [sa('fn')])],
      },
      res('get', 'configmaps', { name: 'x' }),
      true,
    ],
    [
      'a RoleBinding of another namespace does not apply',
      {
        roles: [role('other', 'reader', [READ_CM])],
        roleBindings: [roleBinding('other', 'rb', { kind: 'Role', name: 'reader' }, [sa('fn', 'team')])],
      },
      res('get', 'configmaps'),
      false,
    ],
    [
      'a Role of another namespace is not found',
      {
        roles: [role('other', 'reader', [READ_CM])],
        roleBindings: [roleBinding('team', 'rb', { kind: 'Role', name: 'reader' }, [sa('fn')])],
      },
      res('list', 'configmaps'),
      false,
    ],
    [
      'ClusterRole via RoleBinding in that namespace',
      {
        clusterRoles: [readerCluster],
        roleBindings: [roleBinding('team', 'rb', { kind: 'ClusterRole', name: 'cm-reader' }, [sa('fn')])],
      },
      res('list', 'configmaps'),
      true,
    ],
    [
      'ClusterRole via RoleBinding not in another namespace',
      {
        clusterRoles: [readerCluster],
        roleBindings: [roleBinding('team', 'rb', { kind: 'ClusterRole', name: 'cm-reader' }, [sa('fn')])],
      },
      res('list', 'configmaps', { namespace: 'other' }),
      false,
    ],
    [
      'ClusterRole via RoleBinding not across namespaces',
      {
        clusterRoles: [readerCluster],
        roleBindings: [roleBinding('team', 'rb', { kind: 'ClusterRole', name: 'cm-reader' }, [sa('fn')])],
      },
      res('list', 'configmaps', { namespace: undefined }),
      false,
    ],
    [
      'ClusterRoleBinding in any namespace',
      {
        clusterRoles: [readerCluster],
        clusterRoleBindings: [clusterRoleBinding('crb', 'cm-reader', [sa('fn', 'team')])],
      },
      res('list', 'configmaps', { namespace: 'other' }),
      true,
    ],
    [
      'ClusterRoleBinding across namespaces',
      {
        clusterRoles: [readerCluster],
        clusterRoleBindings: [clusterRoleBinding('crb', 'cm-reader', [sa('fn', 'team')])],
      },
      res('list', 'configmaps', { namespace: undefined }),
      true,
    ],
    [
      'Role rules do not reach cluster-scoped resources',
      {
        roles: [role('team', 'all', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }])],
        roleBindings: [roleBinding('team', 'rb', { kind: 'Role', name: 'all' }, [sa('fn')])],
      },
      res('list', 'nodes', { namespace: undefined }),
      false,
    ],
    [
      'a RoleBinding of namespace X allows getting namespace X',
      {
        clusterRoles: [
          clusterRole('ns-get', [{ verbs: ['get'], apiGroups: [''], resources: ['namespaces'] }]),
        ],
        roleBindings: [roleBinding('team', 'rb', { kind: 'ClusterRole', name: 'ns-get' }, [sa('fn')])],
      },
      res('get', 'namespaces', { name: 'team' }),
      true,
    ],
  ];
  it.each(cases)('%s', (_name, parts, attrs, expected) => {
    expect(authorize(attrs, objects(parts)).allowed).toBe(expected);
  });

  it('lets system:masters do anything without any binding', () => {
    const admin = plainUser('admin', ['system:masters']);
    expect(authorize(res('delete', 'nodes', { namespace: undefined }, admin), objects({}))).toEqual({
      allowed: true,
      reason: '',
    });
    expect(authorize(path('post', '/anything', admin), objects({})).allowed).toBe(true);
  });

  it('says which binding allowed', () => {
    const parts = objects({
      roles: [readerRole],
      roleBindings: [roleBinding('team', 'rb', { kind: 'Role', name: 'reader' }, [sa('fn')])],
    });
    expect(authorize(res('list', 'configmaps'), parts)).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "rb/team" of Role "reader" to ServiceAccount "fn/team"',
    });
    const cluster = objects({
      clusterRoles: [readerCluster],
      clusterRoleBindings: [clusterRoleBinding('crb', 'cm-reader', [groupSubject('system:serviceaccounts')])],
    });
    expect(authorize(res('list', 'configmaps'), cluster).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "cm-reader" to Group "system:serviceaccounts"',
    );
  });

  it('reports bindings whose role is missing, as a real server does', () => {
    const one = objects({
      roleBindings: [roleBinding('team', 'rb', { kind: 'Role', name: 'missing' }, [sa('fn')])],
    });
    expect(authorize(res('list', 'configmaps'), one)).toEqual({
      allowed: false,
      reason: 'RBAC: role.rbac.authorization.k8s.io "missing" not found',
    });
    const several = objects({
      clusterRoleBindings: [
        clusterRoleBinding('a', 'gone', [sa('fn', 'team')]),
        clusterRoleBinding('b', 'gone', [sa('fn', 'team')]),
      ],
      roleBindings: [roleBinding('team', 'rb', { kind: 'Thing', name: 'x' }, [sa('fn')])],
    });
    expect(authorize(res('list', 'configmaps'), several).reason).toBe(
      'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, unsupported role reference kind: "Thing"]',
    );
  });

  it('still allows when another binding is broken', () => {
    const parts = objects({
      roles: [readerRole],
      roleBindings: [
        roleBinding('team', 'broken', { kind: 'Role', name: 'missing' }, [sa('fn')]),
        roleBinding('team', 'rb', { kind: 'Role', name: 'reader' }, [sa('fn')]),
      ],
    });
    expect(authorize(res('list', 'configmaps'), parts).allowed).toBe(true);
  });
});

describe('bootstrap policy', () => {
  const policy = objects({
    clusterRoles: bootstrapClusterRoles(),
    clusterRoleBindings: bootstrapClusterRoleBindings(),
  });
  it.each([
    ['/api', true],
    ['/apis/apps/v1', true],
    ['/openapi/v3', true],
    ['/version', true],
    ['/metrics', false],
  ])('lets any authenticated user get %s: %s', (p, expected) => {
    expect(authorize(path('get', p), policy).allowed).toBe(expected);
  });

  it('gives service accounts no resource access', () => {
    expect(authorize(res('list', 'configmaps'), policy).allowed).toBe(false);
    expect(
      authorize(
        res('create', 'selfsubjectaccessreviews', { apiGroup: 'authorization.k8s.io', namespace: undefined }),
        policy,
      ).allowed,
    ).toBe(true);
  });
});

describe('rulesFor', () => {
  it('collects the rules of every binding that applies, with resolution errors', () => {
    const parts = objects({
      roles: [role('team', 'reader', [READ_CM])],
      clusterRoles: bootstrapClusterRoles(),
      clusterRoleBindings: bootstrapClusterRoleBindings(),
      roleBindings: [
        roleBinding('team', 'rb', { kind: 'Role', name: 'reader' }, [sa('fn')]),
        roleBinding('team', 'broken', { kind: 'Role', name: 'missing' }, [sa('fn')]),
        roleBinding('team', 'not-me', { kind: 'Role', name: 'reader' }, [sa('other')]),
      ],
    });
    const { rules, errors } = rulesFor(fn, 'team', parts);
    expect(rules).toContainEqual(
      expect.objectContaining({ verbs: ['get', 'list'], resources: ['configmaps'] }),
    );
    expect(rules.filter((r) => r.resources?.includes('configmaps'))).toHaveLength(1);
    expect(errors).toEqual(['role.rbac.authorization.k8s.io "missing" not found']);
  });
});
