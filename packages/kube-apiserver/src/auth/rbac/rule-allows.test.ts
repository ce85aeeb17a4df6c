import { ruleAllows } from './authorizer.js';
import { saUser } from './rbac.fixtures.js';
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

describe('ruleAllows', () => {
  const cases: [string, PolicyRule, Attributes, boolean][] = [
    // verbs
    [
      'exact verb',
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
      res('list', 'configmaps'),
      true,
    ],
    [
      'other verb',
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
      res('create', 'configmaps'),
      false,
    ],
    [
      'watch is its own verb',
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
      res('watch', 'configmaps'),
      false,
    ],
    [
      'verb *',
      { verbs: ['*'], apiGroups: [''], resources: ['configmaps'] },
      res('deletecollection', 'configmaps'),
      true,
    ],
    // api groups
    [
      'core group rule, apps request',
      { verbs: ['get'], apiGroups: [''], resources: ['deployments'] },
      res('get', 'deployments', { apiGroup: 'apps' }),
      false,
    ],
    [
      'group *',
      { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] },
      res('get', 'deployments', { apiGroup: 'apps' }),
      true,
    ],
    [
      'no apiGroups matches nothing',
      { verbs: ['get'], resources: ['configmaps'] },
      res('get', 'configmaps'),
      false,
    ],
    // resources and subresources
    ['resource *', { verbs: ['get'], apiGroups: [''], resources: ['*'] }, res('get', 'secrets'), true],
    [
      'resource * covers subresources',
      { verbs: ['get'], apiGroups: [''], resources: ['*'] },
      res('get', 'pods', { subresource: 'log' }),
      true,
    ],
    [
      'res/sub allows the subresource',
      { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/scale'] },
      res('update', 'deployments', { apiGroup: 'apps', subresource: 'scale' }),
      true,
    ],
    [
      'res/sub does not allow the resource',
      { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/scale'] },
      res('update', 'deployments', { apiGroup: 'apps' }),
      false,
    ],
    [
      'res does not allow its subresources',
      { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'] },
      res('update', 'deployments', { apiGroup: 'apps', subresource: 'scale' }),
      false,
    ],
    [
      '*/scale allows any scale',
      { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] },
      res('update', 'statefulsets', { apiGroup: 'apps', subresource: 'scale' }),
      true,
    ],
    [
      '*/scale does not allow the resource',
      { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] },
      res('update', 'deployments', { apiGroup: 'apps' }),
      false,
    ],
    [
      '*/status is not scale',
      { verbs: ['update'], apiGroups: ['apps'], resources: ['*/status'] },
      res('update', 'deployments', { apiGroup: 'apps', subresource: 'scale' }),
      false,
    ],
    [
      '*/* is only the literal subresource *',
      { verbs: ['get'], apiGroups: [''], resources: ['*/*'] },
      res('get', 'pods', { subresource: 'log' }),
      false,
    ],
    // resourceNames
    [
      'named get in resourceNames',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      res('get', 'configmaps', { name: 'a' }),
      true,
    ],
    [
      'named get not in resourceNames',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      res('get', 'configmaps', { name: 'b' }),
      false,
    ],
    [
      'list without a name never matches resourceNames',
      { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      res('list', 'configmaps'),
      false,
    ],
    [
      'list with a metadata.name selector matches',
      { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      res('list', 'configmaps', { name: 'a' }),
      true,
    ],
    [
      'create never matches resourceNames',
      { verbs: ['create'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      res('create', 'configmaps'),
      false,
    ],
    [
      'deletecollection never matches resourceNames',
      { verbs: ['deletecollection'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
      res('deletecollection', 'configmaps'),
      false,
    ],
    [
      'resourceNames with a subresource',
      { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/scale'], resourceNames: ['web'] },
      res('update', 'deployments', { apiGroup: 'apps', subresource: 'scale', name: 'web' }),
      true,
    ],
    // non-resource URLs
    ['exact url', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, path('get', '/healthz'), true],
    ['url prefix*', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, path('get', '/apis/apps/v1'), true],
    [
      'prefix/* does not match the bare prefix',
      { verbs: ['get'], nonResourceURLs: ['/api/*'] },
      path('get', '/api'),
      false,
    ],
    [
      'prefix without slash',
      { verbs: ['get'], nonResourceURLs: ['/open*'] },
      path('get', '/openapi/v3'),
      true,
    ],
    ['url *', { verbs: ['get'], nonResourceURLs: ['*'] }, path('get', '/anything'), true],
    ['url verb mismatch', { verbs: ['get'], nonResourceURLs: ['*'] }, path('post', '/anything'), false],
    [
      'url rule does not allow resources',
      { verbs: ['*'], nonResourceURLs: ['*'] },
      res('get', 'configmaps'),
      false,
    ],
    [
      'resource rule does not allow urls',
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      path('get', '/version'),
      false,
    ],
  ];
  it.each(cases)('%s', (_name, rule, attrs, expected) => {
    expect(ruleAllows(attrs, rule)).toBe(expected);
  });
});
