import { ManifestError, sourceSpecFromManifest, sourceSpecsFromYaml } from './manifest.js';

const base = {
  apiVersion: 'sources.knative.dev/v1',
  kind: 'ApiServerSource',
  metadata: { name: 'deployitems', namespace: 'ls' },
  spec: {
    resources: [{ apiVersion: 'landscaper.gardener.cloud/v1alpha1', kind: 'DeployItem' }],
    sink: { uri: 'http://broker/' },
  },
};

describe('sourceSpecFromManifest', () => {
  it('defaults: Reference mode, own namespace, no extensions', () => {
    const spec = sourceSpecFromManifest(base);
    expect(spec).toMatchObject({
      id: 'ls/deployitems',
      namespace: 'ls',
      mode: 'Reference',
      sinkUri: 'http://broker/',
      extensions: {},
      namespaceSelector: undefined,
    });
  });

  it('reads mode, selectors and ceOverrides', () => {
    const spec = sourceSpecFromManifest({
      ...base,
      spec: {
        ...base.spec,
        mode: 'Resource',
        namespaceSelector: { matchLabels: { team: 'a' } },
        resources: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            selector: { matchExpressions: [{ key: 'x', operator: 'Exists' }] },
          },
        ],
        ceOverrides: { extensions: { env: 'prod' } },
      },
    });
    expect(spec.mode).toBe('Resource');
    expect(spec.namespaceSelector).toEqual({ matchLabels: { team: 'a' } });
    expect(spec.resources[0].selector).toEqual({ matchExpressions: [{ key: 'x', operator: 'Exists' }] });
    expect(spec.extensions).toEqual({ env: 'prod' });
  });

  it.each([
    ['no resources', { ...base, spec: { ...base.spec, resources: [] } }, 'spec.resources'],
    ['bad mode', { ...base, spec: { ...base.spec, mode: 'Ref' } }, 'spec.mode'],
    [
      'bad operator',
      {
        ...base,
        spec: { ...base.spec, namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'Equals' }] } },
      },
      'spec.namespaceSelector.matchExpressions[0].operator',
    ],
    [
      'bad extension name',
      { ...base, spec: { ...base.spec, ceOverrides: { extensions: { 'Bad-Name': 'x' } } } },
      'spec.ceOverrides.extensions',
    ],
  ])('%s is a ManifestError naming %s', (_n, manifest, path) => {
    let err: unknown;
    try {
      sourceSpecFromManifest(manifest);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as ManifestError).problems.join('\n')).toContain(path);
  });
});

describe('sourceSpecsFromYaml', () => {
  it('keeps ApiServerSources, skips other kinds, lists every problem', () => {
    const good = `apiVersion: sources.knative.dev/v1
kind: ApiServerSource
metadata: {name: a}
spec:
  resources: [{apiVersion: v1, kind: Pod}]
  sink: {uri: 'http://x'}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
`;
    expect(sourceSpecsFromYaml(good).map((s) => s.id)).toEqual(['default/a']);
    const bad = `${good}---
apiVersion: sources.knative.dev/v1
kind: ApiServerSource
metadata: {name: b}
spec: {resources: []}
---
apiVersion: sources.knative.dev/v1
kind: ApiServerSource
metadata: {name: c}
spec: {mode: Nope, resources: [{apiVersion: v1, kind: Pod}]}
`;
    expect(() => sourceSpecsFromYaml(bad, 'f.yaml')).toThrow(/document 2.*document 3/s);
  });
});
