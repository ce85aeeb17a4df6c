import { DEFAULT_DELETION_GROUPS } from './deletion-config.js';
import {
  describeManifest,
  kubeconfigOf,
  parseProviderConfig,
  type ManifestProviderConfig,
} from './provider-config.js';

const V1 = 'manifest.deployer.landscaper.gardener.cloud/v1alpha1';
const V2 = 'manifest.deployer.landscaper.gardener.cloud/v1alpha2';
const cm = (name: string, namespace = 'default'): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data: { a: '1' },
});

function ok(config: unknown): ManifestProviderConfig {
  const r = parseProviderConfig(config);
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.config;
}

function problems(config: unknown): string[] {
  const r = parseProviderConfig(config);
  if (r.ok) throw new Error('expected problems');
  return r.problems;
}

describe('parseProviderConfig: valid configurations', () => {
  it('v1alpha1: a plain list, each manifest managed; defaults', () => {
    expect(ok({ apiVersion: V1, kind: 'ProviderConfiguration', manifests: [cm('a'), cm('b')] })).toEqual({
      version: 'v1alpha1',
      updateStrategy: 'update',
      readinessChecks: { disableDefault: false, custom: [] },
      exports: [],
      deletionGroups: DEFAULT_DELETION_GROUPS,
      deletionGroupsDuringUpdate: DEFAULT_DELETION_GROUPS,
      manifests: [
        { index: 0, policy: 'manage', object: cm('a') },
        { index: 1, policy: 'manage', object: cm('b') },
      ],
    });
  });

  it('patchAfterDeployment and patchBeforeDelete are read per entry', () => {
    const config = ok({
      apiVersion: V2,
      manifests: [
        {
          manifest: cm('a'),
          patchAfterDeployment: { data: { b: '2' } },
          patchBeforeDelete: { data: { c: '3' } },
        },
        { manifest: cm('b') },
      ],
    });
    expect(config.manifests[0]).toMatchObject({
      patchAfterDeployment: { data: { b: '2' } },
      patchBeforeDelete: { data: { c: '3' } },
    });
    expect(config.manifests[1].patchAfterDeployment).toBeUndefined();
  });

  it('exports: fromResource + jsonPath, fromObjectRef, in order (an export without fromResource kept)', () => {
    const fromResource = { apiVersion: 'v1', kind: 'Service', name: 'svc', namespace: 'default' };
    const fromObjectRef = { apiVersion: 'v1', kind: 'Secret', jsonPath: '.data.token' };
    const config = ok({
      apiVersion: V2,
      manifests: [],
      exports: {
        exports: [
          { key: 'a.ip', jsonPath: '.spec.clusterIP', fromResource },
          { key: 'token', jsonPath: '.secrets[0]', fromResource, fromObjectRef },
          { key: 'nothing', jsonPath: '.x' },
        ],
      },
    });
    expect(config.exports).toEqual([
      { key: 'a.ip', jsonPath: '.spec.clusterIP', fromResource },
      { key: 'token', jsonPath: '.secrets[0]', fromResource, fromObjectRef },
      { key: 'nothing', jsonPath: '.x' },
    ]);
  });

  it('v1alpha2: policies (empty = manage), annotations, strategy, readiness, kubeconfig', () => {
    const config = ok({
      apiVersion: V2,
      kind: 'ProviderConfiguration',
      updateStrategy: 'mergeOverwrite',
      kubeconfig: Buffer.from('apiVersion: v1\nkind: Config\n').toString('base64'),
      deleteTimeout: '5m',
      continuousReconcile: { every: '1h' },
      readinessChecks: {
        disableDefault: true,
        custom: [
          {
            name: 'c',
            labelSelector: { apiVersion: 'v1', kind: 'Pod', matchLabels: { app: 'x' } },
            requirements: [
              {
                jsonPath: '.status.phase',
                operator: 'in',
                values: [{ value: 'Running' }, { value: 'Succeeded' }],
              },
            ],
          },
        ],
      },
      manifests: [
        {
          policy: 'keep',
          manifest: cm('a'),
          annotateBeforeCreate: { x: '1' },
          annotateBeforeDelete: { y: '2' },
        },
        { policy: '', manifest: cm('b') },
        { manifest: cm('c') },
        { policy: 'ignore', manifest: { whatever: true } },
      ],
    });
    expect(config.version).toBe('v1alpha2');
    expect(config.updateStrategy).toBe('mergeOverwrite');
    expect(config.kubeconfig).toBe('apiVersion: v1\nkind: Config\n');
    expect(config.manifests.map((m) => m.policy)).toEqual(['keep', 'manage', 'manage', 'ignore']);
    expect(config.manifests[0]).toMatchObject({
      annotateBeforeCreate: { x: '1' },
      annotateBeforeDelete: { y: '2' },
    });
    expect(config.readinessChecks).toEqual({
      disableDefault: true,
      custom: [
        {
          name: 'c',
          disabled: false,
          resourceSelector: [],
          labelSelector: { apiVersion: 'v1', kind: 'Pod', matchLabels: { app: 'x' } },
          requirements: [{ jsonPath: '.status.phase', operator: 'in', values: ['Running', 'Succeeded'] }],
        },
      ],
    });
  });

  it('the same name in two namespaces, or of two kinds, is no duplicate', () => {
    expect(
      ok({ apiVersion: V1, manifests: [cm('a', 'x'), cm('a', 'y'), { ...cm('a', 'x'), kind: 'Secret' }] })
        .manifests,
    ).toHaveLength(3);
  });
});

describe('parseProviderConfig: every problem listed, each naming its manifest', () => {
  it.each<[string, unknown, string[]]>([
    ['not an object', 'x', ['(root): expected an object']],
    [
      'unknown apiVersion',
      { apiVersion: 'other/v1', manifests: [] },
      ['apiVersion: expected manifest.deployer.landscaper.gardener.cloud/v1alpha1 or /v1alpha2'],
    ],
    [
      'bad strategy and policy',
      { apiVersion: V2, updateStrategy: 'replace', manifests: [{ policy: 'often', manifest: cm('a') }] },
      [
        'updateStrategy: Invalid option: expected one of "update"|"patch"|"merge"|"mergeOverwrite"|""',
        'manifests[0] (ConfigMap default/a): policy: Invalid option: expected one of "manage"|"fallback"|"keep"|"ignore"|"immutable"|""',
      ],
    ],
    [
      'entries without a usable manifest',
      {
        apiVersion: V2,
        manifests: [{}, { manifest: 'text' }, { manifest: { kind: 'Secret', metadata: { namespace: 'n' } } }],
      },
      [
        'manifests[1] (not an object): manifest: expected an object',
        'manifests[0]: manifest: must be defined',
        'manifests[2] (Secret n/<no name>): apiVersion: must be a non-empty string',
        'manifests[2] (Secret n/<no name>): metadata.name: must be a non-empty string',
      ],
    ],
    [
      'v1alpha1 manifest shapes',
      {
        apiVersion: V1,
        manifests: [
          { apiVersion: 'v1', kind: 'ConfigMap' },
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 1 } } },
        ],
      },
      [
        'manifests[0] (ConfigMap <no name>): metadata: must be an object with a name',
        'manifests[1] (ConfigMap x): metadata.labels: must be a map of strings',
      ],
    ],
    [
      'duplicates',
      { apiVersion: V1, manifests: [cm('a'), cm('b'), cm('a')] },
      ['manifests[2] (ConfigMap default/a): the same object as manifests[0]'],
    ],
    [
      'patches must be objects',
      {
        apiVersion: V2,
        manifests: [{ manifest: cm('a'), patchAfterDeployment: 'x', patchBeforeDelete: [1] }],
      },
      [
        'manifests[0] (ConfigMap default/a): patchAfterDeployment: expected an object',
        'manifests[0] (ConfigMap default/a): patchBeforeDelete: expected an object',
      ],
    ],
    [
      'exports (upstream ValidateManifestExport, plus what this deployer cannot do)',
      {
        apiVersion: V2,
        manifests: [],
        exports: {
          exports: [
            { key: '', jsonPath: '' },
            { key: 'a[0]', jsonPath: '.x', targetName: 'other' },
            { key: 'k', jsonPath: '.x', fromResource: { apiVersion: 'v1', kind: 'ConfigMap' } },
            { key: 'k', jsonPath: '.x', fromObjectRef: { apiVersion: 'v1', kind: 'Secret' } },
          ],
        },
      },
      [
        'exports.exports.0.key: must not be empty',
        'exports.exports.0.jsonPath: must not be empty',
        'exports.exports.2.fromResource.name: must not be empty',
        'exports.exports.3.fromObjectRef.jsonPath: must not be empty',
        'exports.exports[1].targetName: exports from other targets are not supported by this deployer',
        'exports.exports[1].key: must be a field path (a.b.c)',
      ],
    ],
    [
      'kubeconfig not base64',
      { apiVersion: V2, kubeconfig: 'not base64!', manifests: [] },
      ['kubeconfig: must be a base64 encoded kubeconfig'],
    ],
    [
      'custom readiness requirements',
      {
        apiVersion: V2,
        manifests: [],
        readinessChecks: {
          custom: [
            {
              name: 'c',
              targetName: 'other',
              requirements: [
                { jsonPath: '.a', operator: '==', values: [] },
                { jsonPath: '.a', operator: 'exists', values: [{ value: 1 }] },
                { jsonPath: '.a[?(@.b ~ 1)]', operator: 'notin' },
              ],
            },
          ],
        },
      },
      [
        'readinessChecks.custom[0].targetName: checks on other targets are not supported by this deployer',
        'readinessChecks.custom[0].requirements[0]: operator == needs exactly one value',
        'readinessChecks.custom[0].requirements[1]: operator exists takes no values',
        'readinessChecks.custom[0].requirements[2]: operator notin needs at least one value',
        'readinessChecks.custom[0].requirements[2]: jsonPath: unsupported filter @.b ~ 1',
      ],
    ],
  ])('%s', (_name, config, want) => {
    expect(problems(config)).toEqual(want);
  });

  it('ignored manifests are not checked beyond being objects', () => {
    expect(ok({ apiVersion: V2, manifests: [{ policy: 'ignore', manifest: {} }] }).manifests).toHaveLength(1);
  });
});

describe('describeManifest', () => {
  it.each([
    [cm('a', 'n'), 'ConfigMap n/a'],
    [{ kind: 'Namespace', metadata: { name: 'x' } }, 'Namespace x'],
    [{}, '<no kind> <no name>'],
    [[], 'not an object'],
  ])('%j → %s', (m, want) => {
    expect(describeManifest(m)).toBe(want);
  });
});

describe('kubeconfigOf (the uninstall reads only this field)', () => {
  it.each<[unknown, string | undefined]>([
    [{ kubeconfig: Buffer.from('a: b').toString('base64'), manifests: 'broken' }, 'a: b'],
    [{ manifests: [] }, undefined],
    [undefined, undefined],
  ])('%j → %j', (config, want) => {
    expect(kubeconfigOf(config)).toBe(want);
  });

  it.each([[{ kubeconfig: '%%%' }], [{ kubeconfig: 42 }]])('%j is refused', (config) => {
    expect(() => kubeconfigOf(config)).toThrow('kubeconfig: must be a base64 encoded kubeconfig');
  });
});
