import { fromCrdManifests, fromResourceList } from './discovery.js';

describe('fromResourceList', () => {
  const resources = [
    { name: 'deployments', kind: 'Deployment', namespaced: true },
    { name: 'deployments/status', kind: 'Deployment', namespaced: true },
    { name: 'deployments/scale', kind: 'Scale', namespaced: true },
  ];
  it('finds the main resource of a kind', () => {
    expect(fromResourceList(resources, 'apps/v1', 'Deployment')).toEqual({
      group: 'apps',
      version: 'v1',
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      plural: 'deployments',
      namespaced: true,
    });
  });
  it('not subresources, not other kinds', () => {
    expect(fromResourceList(resources, 'apps/v1', 'Scale')).toBeUndefined();
    expect(fromResourceList(resources, 'apps/v1', 'StatefulSet')).toBeUndefined();
  });
});

describe('fromCrdManifests', () => {
  const crd = (scope: string): Record<string, unknown> => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope,
      names: { kind: 'Widget', plural: 'widgets' },
      versions: [{ name: 'v1' }, { name: 'v2' }],
    },
  });
  it.each<[string, Record<string, unknown>[], string, boolean | undefined]>([
    ['namespaced CRD', [crd('Namespaced')], 'example.com/v2', true],
    ['cluster-scoped CRD', [crd('Cluster')], 'example.com/v1', false],
    ['version the CRD does not have', [crd('Namespaced')], 'example.com/v3', undefined],
    ['other group', [crd('Namespaced')], 'other.com/v1', undefined],
    [
      'not a CRD',
      [{ ...crd('Namespaced'), kind: 'ConfigMap', apiVersion: 'v1' }],
      'example.com/v1',
      undefined,
    ],
  ])('%s', (_name, manifests, apiVersion, namespaced) => {
    const gvk = fromCrdManifests(manifests, apiVersion, 'Widget');
    expect(gvk?.namespaced).toBe(namespaced);
    if (gvk) expect(gvk).toMatchObject({ plural: 'widgets', group: 'example.com', apiVersion });
  });
});
