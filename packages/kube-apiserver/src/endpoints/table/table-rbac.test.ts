/** Tables of the rbac.authorization.k8s.io/v1 kinds as a 1.32 API server sends them. */
import { builtinResources } from '../../registry/builtins/index.js';
import type { KubeObject, ResourceDef } from '../../api/types.js';
import { CREATION_TIMESTAMP, NAME } from './descriptions.js';
import { toTable } from './index.js';
import * as t from './table.fixtures.js';

const defs = new Map(builtinResources().map((d) => [d.kind, d]));
const def = (kind: string): ResourceDef => defs.get(kind)!;
const RBAC = 'rbac.authorization.k8s.io/v1';

function rbac(kind: string, name: string, rest: Record<string, unknown> = {}): KubeObject {
  const o = t.obj(kind, name, rest);
  o.apiVersion = RBAC;
  if (kind.startsWith('Cluster')) delete o.metadata.namespace;
  return o;
}

function table(kind: string, objects: KubeObject[]): t.TableJSON {
  return toTable(def(kind), objects, { now: t.NOW, includeObject: 'Metadata' }) as unknown as t.TableJSON;
}

const cells = (o: KubeObject): unknown[] => table(o.kind, [o]).rows[0].cells;

const subjects = [
  { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
  { kind: 'ServiceAccount', name: 'fn', namespace: 'default' },
  { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
  { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' },
  { kind: 'ServiceAccount', name: 'bot', namespace: 'other' },
  { kind: 'Robot', name: 'r2' },
];

describe('Role and ClusterRole: the default table convertor', () => {
  test.each([
    ['Role', rbac('Role', 'r', { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] })],
    ['ClusterRole', rbac('ClusterRole', 'cr', { rules: [] })],
  ])('%s: Name and Created At (RFC 3339, not an age)', (kind, o) => {
    expect(cells(o)).toEqual([o.metadata.name, t.CREATED]);
    expect(table(kind, []).columnDefinitions).toEqual([
      { name: 'Name', type: 'string', format: 'name', description: NAME, priority: 0 },
      { name: 'Created At', type: 'date', format: '', description: CREATION_TIMESTAMP, priority: 0 },
    ]);
  });

  test('an empty list has rows null; a missing timestamp is Go zero time', () => {
    expect(table('Role', []).rows).toBeNull();
    expect(table('ClusterRole', []).rows).toBeNull();
    const o = rbac('ClusterRole', 'x');
    delete o.metadata.creationTimestamp;
    expect(cells(o)).toEqual(['x', '0001-01-01T00:00:00Z']);
  });
});

describe('RoleBinding and ClusterRoleBinding: printRoleBinding / printClusterRoleBinding', () => {
  test.each<[string, KubeObject, unknown[]]>([
    [
      'rolebinding to a Role, one service account',
      rbac('RoleBinding', 'rb', {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
        subjects: [{ kind: 'ServiceAccount', name: 'fn', namespace: 'default' }],
      }),
      ['rb', 'Role/r', '55m', '', '', 'default/fn'],
    ],
    [
      'rolebinding to a ClusterRole, subjects of every kind (others not shown)',
      rbac('RoleBinding', 'rb2', {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects,
      }),
      ['rb2', 'ClusterRole/view', '55m', 'alice, bob', 'devs', 'default/fn, other/bot'],
    ],
    [
      'clusterrolebinding with subjects',
      rbac('ClusterRoleBinding', 'crb', {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: subjects.slice(0, 3),
      }),
      ['crb', 'ClusterRole/cluster-admin', '55m', 'alice', 'devs', 'default/fn'],
    ],
    [
      'clusterrolebinding without subjects',
      rbac('ClusterRoleBinding', 'empty', {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      }),
      ['empty', 'ClusterRole/edit', '55m', '', '', ''],
    ],
    [
      'a service account subject without namespace keeps the slash',
      rbac('ClusterRoleBinding', 'sa', {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'ServiceAccount', name: 'fn' }],
      }),
      ['sa', 'ClusterRole/view', '55m', '', '', '/fn'],
    ],
  ])('%s', (_name, o, expected) => {
    expect(cells(o)).toEqual(expected);
  });

  test('column definitions: Name, Role, Age, then the wide Users, Groups, ServiceAccounts', () => {
    const roleBinding = table('RoleBinding', []);
    expect(roleBinding.rows).toEqual([]);
    expect(roleBinding.columnDefinitions).toEqual([
      { name: 'Name', type: 'string', format: 'name', description: NAME, priority: 0 },
      {
        name: 'Role',
        type: 'string',
        format: '',
        description:
          'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. ' +
          'If the RoleRef cannot be resolved, the Authorizer must return an error.',
        priority: 0,
      },
      { name: 'Age', type: 'string', format: '', description: CREATION_TIMESTAMP, priority: 0 },
      { name: 'Users', type: 'string', format: '', description: 'Users in the roleBinding', priority: 1 },
      { name: 'Groups', type: 'string', format: '', description: 'Groups in the roleBinding', priority: 1 },
      {
        name: 'ServiceAccounts',
        type: 'string',
        format: '',
        description: 'ServiceAccounts in the roleBinding',
        priority: 1,
      },
    ]);
    const clusterRoleBinding = table('ClusterRoleBinding', []).columnDefinitions;
    expect(clusterRoleBinding.map((c) => [c.name, c.priority, c.description])).toEqual([
      ['Name', 0, NAME],
      [
        'Role',
        0,
        'RoleRef can only reference a ClusterRole in the global namespace. ' +
          'If the RoleRef cannot be resolved, the Authorizer must return an error.',
      ],
      ['Age', 0, CREATION_TIMESTAMP],
      ['Users', 1, 'Users in the clusterRoleBinding'],
      ['Groups', 1, 'Groups in the clusterRoleBinding'],
      ['ServiceAccounts', 1, 'ServiceAccounts in the clusterRoleBinding'],
    ]);
  });
});
