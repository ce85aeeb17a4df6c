import { forbiddenError } from './forbidden.js';
import { saUser } from './rbac.fixtures.js';
import type { Attributes } from './types.js';
import { goQuote } from '@landscape/apimachinery';

const fn = saUser('default', 'fn');
const SA = 'User "system:serviceaccount:default:fn"';

describe('forbiddenError', () => {
  const cases: [string, Omit<Attributes, 'user'>, string, Record<string, unknown>][] = [
    [
      'a namespaced list',
      { verb: 'list', apiGroup: '', resource: 'configmaps', namespace: 'default' },
      `configmaps is forbidden: ${SA} cannot list resource "configmaps" in API group "" in the namespace "default"`,
      { kind: 'configmaps' },
    ],
    [
      'a named get',
      { verb: 'get', apiGroup: '', resource: 'configmaps', name: 'x', namespace: 'default' },
      `configmaps "x" is forbidden: ${SA} cannot get resource "configmaps" in API group "" in the namespace "default"`,
      { name: 'x', kind: 'configmaps' },
    ],
    [
      'a cluster-scoped list',
      { verb: 'list', apiGroup: '', resource: 'nodes' },
      `nodes is forbidden: ${SA} cannot list resource "nodes" in API group "" at the cluster scope`,
      { kind: 'nodes' },
    ],
    [
      'a list across namespaces',
      { verb: 'watch', apiGroup: 'apps', resource: 'deployments' },
      `deployments.apps is forbidden: ${SA} cannot watch resource "deployments" in API group "apps" at the cluster scope`,
      { group: 'apps', kind: 'deployments' },
    ],
    [
      'a subresource',
      {
        verb: 'update',
        apiGroup: 'apps',
        resource: 'deployments',
        subresource: 'scale',
        name: 'web',
        namespace: 'default',
      },
      `deployments.apps "web" is forbidden: ${SA} cannot update resource "deployments/scale" in API group "apps" in the namespace "default"`,
      { name: 'web', group: 'apps', kind: 'deployments' },
    ],
    [
      'a token request',
      {
        verb: 'create',
        apiGroup: '',
        resource: 'serviceaccounts',
        subresource: 'token',
        name: 'fn',
        namespace: 'default',
      },
      `serviceaccounts "fn" is forbidden: ${SA} cannot create resource "serviceaccounts/token" in API group "" in the namespace "default"`,
      { name: 'fn', kind: 'serviceaccounts' },
    ],
    [
      'a non-resource path',
      { verb: 'get', path: '/metrics' },
      `forbidden: ${SA} cannot get path "/metrics"`,
      {},
    ],
    [
      'markup in the path is escaped',
      { verb: 'get', path: '/<b>&' },
      `forbidden: ${SA} cannot get path "/&lt;b&gt;&amp;"`,
      {},
    ],
  ];
  it.each(cases)('%s', (_name, attrs, message, details) => {
    const status = forbiddenError({ user: fn, ...attrs }).toStatus();
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Forbidden',
      details,
      code: 403,
    });
  });

  it('appends the authorizer reason', () => {
    const err = forbiddenError(
      { user: fn, verb: 'list', apiGroup: '', resource: 'configmaps', namespace: 'default' },
      'RBAC: role.rbac.authorization.k8s.io "gone" not found',
    );
    expect(err.message).toBe(
      `configmaps is forbidden: ${SA} cannot list resource "configmaps" in API group "" in the namespace "default": RBAC: role.rbac.authorization.k8s.io "gone" not found`,
    );
  });

  it('serialises details without empty name and group, as Go omits them', () => {
    const body = JSON.parse(
      JSON.stringify(
        forbiddenError({ user: fn, verb: 'list', apiGroup: '', resource: 'pods', namespace: 'd' }).toStatus(),
      ),
    ) as { details: unknown };
    expect(body.details).toEqual({ kind: 'pods' });
  });
});

describe('goQuote', () => {
  it.each([
    ['plain', '"plain"'],
    ['a "q" \\ b', '"a \\"q\\" \\\\ b"'],
    ['tab\tnl\n', '"tab\\tnl\\n"'],
    ['\u0001', '"\\x01"'],
    ['ünï', '"ünï"'],
    ['\u2028', '"\\u2028"'],
  ])('%j', (input, expected) => {
    expect(goQuote(input)).toBe(expected);
  });
});
