import { discoveryPath, mapScalable, parseGroupVersion, type DiscoveredResourceList } from './restmapper.js';

// as a kube-apiserver and the embedded one serve them (subresources are entries of their own)
const APPS: DiscoveredResourceList = {
  groupVersion: 'apps/v1',
  resources: [
    { name: 'deployments', kind: 'Deployment', namespaced: true },
    { name: 'deployments/scale', kind: 'Scale', namespaced: true },
    { name: 'deployments/status', kind: 'Deployment', namespaced: true },
    { name: 'statefulsets', kind: 'StatefulSet', namespaced: true },
    { name: 'statefulsets/scale', kind: 'Scale', namespaced: true },
    { name: 'daemonsets', kind: 'DaemonSet', namespaced: true },
    { name: 'daemonsets/status', kind: 'DaemonSet', namespaced: true },
  ],
};
const MCM: DiscoveredResourceList = {
  groupVersion: 'machine.sapcloud.io/v1alpha1',
  resources: [
    { name: 'machinedeployments', kind: 'MachineDeployment', namespaced: true },
    { name: 'machinedeployments/scale', kind: 'Scale', namespaced: true },
    { name: 'machines', kind: 'Machine', namespaced: true },
  ],
};

describe('parseGroupVersion / discoveryPath', () => {
  it.each([
    ['apps/v1', { group: 'apps', version: 'v1' }, '/apis/apps/v1'],
    ['v1', { group: '', version: 'v1' }, '/api/v1'],
    [
      'machine.sapcloud.io/v1alpha1',
      { group: 'machine.sapcloud.io', version: 'v1alpha1' },
      '/apis/machine.sapcloud.io/v1alpha1',
    ],
  ])('%s', (apiVersion, gv, path) => {
    expect(parseGroupVersion(apiVersion)).toEqual(gv);
    expect(discoveryPath(parseGroupVersion(apiVersion))).toBe(path);
  });
});

describe('mapScalable', () => {
  it.each([
    ['Deployment', APPS, 'apps/v1', 'deployments'],
    ['StatefulSet', APPS, 'apps/v1', 'statefulsets'],
    ['MachineDeployment', MCM, 'machine.sapcloud.io/v1alpha1', 'machinedeployments'],
  ])('%s: the resource with a scale subresource', (kind, list, apiVersion, plural) => {
    const m = mapScalable(list, apiVersion, kind);
    expect(m).toEqual({
      ok: true,
      gvk: {
        group: parseGroupVersion(apiVersion).group,
        version: parseGroupVersion(apiVersion).version,
        apiVersion,
        kind,
        plural,
        namespaced: true,
      },
    });
  });

  it.each<[string, DiscoveredResourceList | undefined, string, string, string, string]>([
    [
      'a kind the group version does not serve',
      APPS,
      'apps/v1',
      'MachineDeployment',
      'NoKindMatch',
      'no matches for kind "MachineDeployment" in version "apps/v1"',
    ],
    [
      'a group version the server does not serve (404)',
      undefined,
      'example.com/v1',
      'Widget',
      'NoKindMatch',
      'no matches for kind "Widget" in version "example.com/v1"',
    ],
    [
      'the kind in the wrong case (RESTMapping matches exactly)',
      APPS,
      'apps/v1',
      'deployment',
      'NoKindMatch',
      'no matches for kind "deployment" in version "apps/v1"',
    ],
    [
      'a kind without a scale subresource',
      APPS,
      'apps/v1',
      'DaemonSet',
      'NoScaleSubresource',
      'daemonsets.apps (kind "DaemonSet" in version "apps/v1") has no scale subresource',
    ],
    [
      'a subresource is no kind of its own',
      { resources: [{ name: 'widgets/scale', kind: 'Scale' }] },
      'example.com/v1',
      'Scale',
      'NoKindMatch',
      'no matches for kind "Scale" in version "example.com/v1"',
    ],
    [
      'a core kind without scale',
      { resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }] },
      'v1',
      'ConfigMap',
      'NoScaleSubresource',
      'configmaps.core (kind "ConfigMap" in version "v1") has no scale subresource',
    ],
  ])('%s', (_name, list, apiVersion, kind, reason, error) => {
    expect(mapScalable(list, apiVersion, kind)).toEqual({ ok: false, reason, error });
  });
});
