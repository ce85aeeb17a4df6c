import {
  buildProviderStatus,
  compareManaged,
  readProviderStatus,
  refKey,
  uniqueManaged,
  type ManagedResource,
} from './provider-status.js';

const cm = (name: string, namespace = 'default'): ManagedResource['resource'] => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name,
  namespace,
});

describe('readProviderStatus', () => {
  it.each<[string, unknown, ReturnType<typeof readProviderStatus>]>([
    ['none', undefined, { managedResources: [], orphanedResources: [] }],
    [
      'another deployer',
      { apiVersion: 'x', kind: 'Other', foo: 1 },
      { managedResources: [], orphanedResources: [] },
    ],
    [
      'v1alpha2 with the extension fields',
      {
        apiVersion: 'manifest.deployer.landscaper.gardener.cloud/v1alpha2',
        kind: 'ProviderStatus',
        managedResources: [
          { policy: 'keep', resource: cm('a'), annotateBeforeDelete: { x: 'y' } },
          { resource: { apiVersion: 'v1', kind: 'Namespace', name: 'ns', namespace: '' } },
          { policy: 'bogus', resource: cm('dropped') },
          { resource: { kind: 'NoVersion', name: 'x' } },
        ],
        orphanedResources: [{ policy: 'fallback', resource: cm('o') }],
        appliedJobID: 'j',
        appliedGeneration: 3,
      },
      {
        managedResources: [
          { policy: 'keep', resource: cm('a'), annotateBeforeDelete: { x: 'y' } },
          { policy: 'manage', resource: { apiVersion: 'v1', kind: 'Namespace', name: 'ns' } },
        ],
        orphanedResources: [{ policy: 'fallback', resource: cm('o') }],
        appliedJobID: 'j',
        appliedGeneration: 3,
      },
    ],
    [
      'v1alpha1 (typed object references) reads as manage',
      {
        apiVersion: 'manifest.deployer.landscaper.gardener.cloud/v1alpha1',
        kind: 'ProviderStatus',
        managedResources: [cm('a')],
      },
      { managedResources: [{ policy: 'manage', resource: cm('a') }], orphanedResources: [] },
    ],
  ])('%s', (_name, raw, want) => {
    expect(readProviderStatus(raw)).toEqual(want);
  });
});

describe('buildProviderStatus', () => {
  it('writes the upstream shape and leaves empty extension fields out', () => {
    expect(
      buildProviderStatus({
        managedResources: [{ policy: 'manage', resource: cm('a') }],
        orphanedResources: [],
      }),
    ).toEqual({
      apiVersion: 'manifest.deployer.landscaper.gardener.cloud/v1alpha2',
      kind: 'ProviderStatus',
      managedResources: [{ policy: 'manage', resource: cm('a') }],
    });
  });

  it('round-trips through readProviderStatus', () => {
    const status = {
      managedResources: [{ policy: 'immutable' as const, resource: cm('a') }],
      orphanedResources: [{ policy: 'manage' as const, resource: cm('b') }],
      appliedJobID: 'job',
      appliedGeneration: 2,
    };
    expect(readProviderStatus(buildProviderStatus(status))).toEqual(status);
  });
});

describe('identity and order', () => {
  it('refKey ignores the version of the kind', () => {
    expect(refKey({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'a', namespace: 'n' })).toBe(
      refKey({ apiVersion: 'apps/v1beta1', kind: 'Deployment', name: 'a', namespace: 'n' }),
    );
    expect(refKey(cm('a', 'x'))).not.toBe(refKey(cm('a', 'y')));
  });

  it('compareManaged sorts by kind, namespace, name', () => {
    const list: ManagedResource[] = [
      { policy: 'manage', resource: cm('b', 'a') },
      { policy: 'manage', resource: { apiVersion: 'v1', kind: 'Secret', name: 'a', namespace: 'a' } },
      { policy: 'manage', resource: cm('a', 'b') },
      { policy: 'manage', resource: cm('a', 'a') },
    ];
    expect(
      [...list]
        .sort(compareManaged)
        .map((m) => `${m.resource.kind}/${m.resource.namespace}/${m.resource.name}`),
    ).toEqual(['ConfigMap/a/a', 'ConfigMap/a/b', 'ConfigMap/b/a', 'Secret/a/a']);
  });

  it('uniqueManaged keeps the first entry of an object', () => {
    expect(
      uniqueManaged([
        { policy: 'keep', resource: cm('a') },
        { policy: 'manage', resource: cm('a') },
        { policy: 'manage', resource: cm('b') },
      ]),
    ).toEqual([
      { policy: 'keep', resource: cm('a') },
      { policy: 'manage', resource: cm('b') },
    ]);
  });
});
