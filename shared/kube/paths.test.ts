import { GVK } from '../api/gvk.js';
import { KubeRequestError } from './errors.js';
import { queryString, resourcePath } from './paths.js';

describe('resourcePath', () => {
  it.each([
    [GVK.ConfigMap, { namespace: 'ns', name: 'a' }, '/api/v1/namespaces/ns/configmaps/a'],
    [GVK.ConfigMap, { namespace: 'ns' }, '/api/v1/namespaces/ns/configmaps'],
    [GVK.ConfigMap, {}, '/api/v1/configmaps'],
    [GVK.Namespace, { name: 'default' }, '/api/v1/namespaces/default'],
    [
      GVK.Deployment,
      { namespace: 'ns', name: 'd', subresource: 'scale' as const },
      '/apis/apps/v1/namespaces/ns/deployments/d/scale',
    ],
    [
      GVK.DeployItem,
      { namespace: 'ns', name: 'di', subresource: 'status' as const },
      '/apis/landscaper.gardener.cloud/v1alpha1/namespaces/ns/deployitems/di/status',
    ],
    [GVK.Seed, { name: 's' }, '/apis/core.gardener.cloud/v1beta1/seeds/s'],
    [GVK.Cluster, {}, '/apis/extensions.gardener.cloud/v1alpha1/clusters'],
    [GVK.ConfigMap, { namespace: 'a b', name: 'x/y' }, '/api/v1/namespaces/a%20b/configmaps/x%2Fy'],
  ])('%# %o', (gvk, options, want) => {
    expect(resourcePath(gvk, options)).toBe(want);
  });

  it.each([
    ['namespaced object without namespace', () => resourcePath(GVK.Pod, { name: 'p' })],
    ['cluster-scoped with namespace', () => resourcePath(GVK.Node, { namespace: 'ns', name: 'n' })],
    ['empty name', () => resourcePath(GVK.Node, { name: '' })],
    ['subresource without name', () => resourcePath(GVK.Pod, { namespace: 'ns', subresource: 'status' })],
  ])('refuses %s', (_name, fn) => {
    expect(fn).toThrow(KubeRequestError);
  });
});

describe('queryString', () => {
  it('leaves out undefined and empty values', () => {
    expect(
      queryString({ labelSelector: 'a=b,c in (d)', limit: 2, continue: undefined, fieldSelector: '' }),
    ).toBe('?labelSelector=a%3Db%2Cc+in+%28d%29&limit=2');
    expect(queryString({})).toBe('');
    expect(queryString()).toBe('');
  });
});
