import { attributesFor, requestInfo, selectedName } from './request-info.js';

type Expected = Partial<ReturnType<typeof requestInfo>>;

describe('requestInfo (RequestInfoFactory)', () => {
  const cases: [string, string, Expected][] = [
    // verbs
    [
      'GET',
      '/api/v1/namespaces/ns/configmaps/x',
      { verb: 'get', resource: 'configmaps', name: 'x', namespace: 'ns' },
    ],
    [
      'GET',
      '/api/v1/namespaces/ns/configmaps',
      { verb: 'list', resource: 'configmaps', name: '', namespace: 'ns' },
    ],
    ['GET', '/api/v1/configmaps', { verb: 'list', resource: 'configmaps', namespace: '' }],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=true', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=1', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=yes', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=false', { verb: 'list' }],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=0', { verb: 'list' }],
    ['GET', '/api/v1/namespaces/ns/configmaps?watch=FALSE', { verb: 'list' }],
    [
      'GET',
      '/api/v1/watch/namespaces/ns/configmaps',
      { verb: 'watch', resource: 'configmaps', namespace: 'ns' },
    ],
    ['GET', '/api/v1/watch/namespaces/ns/configmaps/x', { verb: 'watch', name: 'x' }],
    ['GET', '/api/v1/namespaces/ns/configmaps/x?watch=true', { verb: 'get', name: 'x' }],
    ['HEAD', '/api/v1/namespaces/ns/configmaps/x', { verb: 'get' }],
    ['POST', '/api/v1/namespaces/ns/configmaps', { verb: 'create', name: '' }],
    ['PUT', '/api/v1/namespaces/ns/configmaps/x', { verb: 'update', name: 'x' }],
    ['PATCH', '/api/v1/namespaces/ns/configmaps/x', { verb: 'patch', name: 'x' }],
    ['DELETE', '/api/v1/namespaces/ns/configmaps/x', { verb: 'delete', name: 'x' }],
    ['DELETE', '/api/v1/namespaces/ns/configmaps', { verb: 'deletecollection', name: '' }],
    ['OPTIONS', '/api/v1/namespaces/ns/configmaps', { verb: '' }],
    // field selector names
    ['GET', '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dx', { verb: 'list', name: 'x' }],
    [
      'GET',
      '/api/v1/namespaces/ns/configmaps?watch=1&fieldSelector=metadata.name%3D%3Dx',
      { verb: 'watch', name: 'x' },
    ],
    ['GET', '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name!%3Dx', { verb: 'list', name: '' }],
    [
      'GET',
      '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da%2Fb',
      { verb: 'list', name: '' },
    ],
    [
      'DELETE',
      '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dx',
      { verb: 'deletecollection', name: '' },
    ],
    // groups, subresources, namespaces
    [
      'PUT',
      '/apis/apps/v1/namespaces/ns/deployments/web/scale',
      {
        verb: 'update',
        apiGroup: 'apps',
        apiVersion: 'v1',
        resource: 'deployments',
        subresource: 'scale',
        name: 'web',
      },
    ],
    [
      'POST',
      '/api/v1/namespaces/ns/serviceaccounts/fn/token',
      { verb: 'create', resource: 'serviceaccounts', subresource: 'token', name: 'fn' },
    ],
    ['GET', '/api/v1/namespaces/ns', { verb: 'get', resource: 'namespaces', name: 'ns', namespace: 'ns' }],
    [
      'PUT',
      '/api/v1/namespaces/ns/finalize',
      { verb: 'update', resource: 'namespaces', name: 'ns', subresource: 'finalize', namespace: 'ns' },
    ],
    [
      'GET',
      '/api/v1/namespaces/ns/status',
      { verb: 'get', resource: 'namespaces', subresource: 'status', namespace: 'ns' },
    ],
    ['GET', '/api/v1/namespaces', { verb: 'list', resource: 'namespaces', namespace: '' }],
    [
      'GET',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:discovery',
      {
        verb: 'get',
        apiGroup: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        name: 'system:discovery',
      },
    ],
    [
      'GET',
      '/api/v1/proxy/namespaces/ns/pods/p/x/y',
      { verb: 'proxy', resource: 'pods', name: 'p', subresource: '' },
    ],
  ];
  it.each(cases)('%s %s', (method, url, expected) => {
    const info = requestInfo(method, url);
    expect(info.isResourceRequest).toBe(true);
    expect(info).toMatchObject(expected);
  });

  it.each([
    ['GET', '/api', 'get'],
    ['GET', '/api/v1', 'get'],
    ['GET', '/apis', 'get'],
    ['GET', '/apis/apps', 'get'],
    ['GET', '/apis/apps/v1', 'get'],
    ['GET', '/version', 'get'],
    ['GET', '/openapi/v3/apis/apps/v1', 'get'],
    ['POST', '/logs', 'post'],
  ])('%s %s is a non-resource request', (method, url, verb) => {
    const info = requestInfo(method, url);
    expect(info).toMatchObject({ isResourceRequest: false, verb, path: url });
  });

  it('reports a special verb without a resource', () => {
    expect(requestInfo('GET', '/api/v1/watch').error).toMatch(/unable to determine kind and namespace/);
  });

  it.each([
    [
      'http://localhost//api/v1/namespaces/ns/configmaps/x//',
      { namespace: 'ns', resource: 'configmaps', name: 'x' },
    ],
    ['http://localhost/api/v1/namespaces//configmaps', { namespace: '', resource: 'configmaps', name: '' }],
    ['http://localhost/apis/apps/v1//deployments', { apiGroup: 'apps', resource: '', name: 'deployments' }],
  ])('splits %s as strings.Split(strings.Trim(path, "/"), "/")', (url, expected) => {
    expect(requestInfo('GET', new URL(url))).toMatchObject({ isResourceRequest: true, ...expected });
  });

  it('decodes the path as Go does', () => {
    expect(requestInfo('GET', '/api/v1/namespaces/ns/configmaps/a%3Ab')).toMatchObject({ name: 'a:b' });
  });
});

describe('selectedName', () => {
  it.each([
    ['metadata.name=x', 'x'],
    ['metadata.name==x', 'x'],
    ['metadata.namespace=ns,metadata.name=x', 'x'],
    ['metadata.name=a\\,b', 'a,b'],
    ['metadata.name!=x', undefined],
    ['status.phase=Running', undefined],
    ['metadata.name=x,bad', undefined],
    ['metadata.name=a\\b', undefined],
    ['', undefined],
  ])('%s → %s', (selector, expected) => {
    expect(selectedName(selector)).toBe(expected);
  });
});

describe('attributesFor', () => {
  const user = { username: 'u', groups: [] };
  it('leaves empty parts out of resource attributes', () => {
    expect(attributesFor(user, requestInfo('GET', '/api/v1/nodes'))).toEqual({
      user,
      verb: 'list',
      apiGroup: '',
      apiVersion: 'v1',
      resource: 'nodes',
      subresource: undefined,
      name: undefined,
      namespace: undefined,
      path: '/api/v1/nodes',
    });
  });
  it('gives a non-resource request only its verb and path', () => {
    expect(attributesFor(user, requestInfo('GET', '/version'))).toEqual({
      user,
      verb: 'get',
      path: '/version',
    });
  });
});
