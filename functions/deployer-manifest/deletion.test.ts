import { deletionGroupsOf, deletionGroupsProblems } from './deletion-config.js';
import { afterBatch, deletable, deletionBatches } from './deletion.js';
import type { ManagedResource } from './provider-status.js';

const m = (
  kind: string,
  name: string,
  namespace?: string,
  policy: ManagedResource['policy'] = 'manage',
): ManagedResource => ({
  policy,
  resource: {
    apiVersion: kind === 'CustomResourceDefinition' ? 'apiextensions.k8s.io/v1' : 'v1',
    kind,
    name,
    ...(namespace ? { namespace } : {}),
  },
});

describe('deletion groups (upstream defaults)', () => {
  it.each([
    [m('ConfigMap', 'a', 'ns'), 'namespaced-resources'],
    [m('Namespace', 'ns'), 'cluster-scoped-resources'],
    [m('ClusterRole', 'r'), 'cluster-scoped-resources'],
    [m('CustomResourceDefinition', 'x.example.com'), 'crds'],
  ])('%j → %s', (res, group) => {
    expect(deletionBatches([res]).map((b) => b.group)).toEqual([group]);
  });

  it('batches in order: namespaced, cluster-scoped, CRDs; empty groups left out', () => {
    const list = [
      m('CustomResourceDefinition', 'c'),
      m('Namespace', 'ns'),
      m('ConfigMap', 'a', 'ns'),
      m('Secret', 'b', 'ns'),
    ];
    expect(deletionBatches(list).map((b) => [b.group, b.resources.map((r) => r.resource.name)])).toEqual([
      ['namespaced-resources', ['a', 'b']],
      ['cluster-scoped-resources', ['ns']],
      ['crds', ['c']],
    ]);
    expect(deletionBatches([m('CustomResourceDefinition', 'c')]).map((b) => b.group)).toEqual(['crds']);
    expect(deletionGroupsOf([])).toEqual(deletionGroupsOf(undefined));
  });

  it('configured groups: first match wins, custom by apiVersion/kind/names/namespaces, unmatched not deleted', () => {
    const groups = deletionGroupsOf([
      { customResourceGroup: { resources: [{ apiVersion: 'v1', kind: 'Secret', namespaces: ['ns'] }] } },
      { predefinedResourceGroup: { type: 'cluster-scoped-resources', forceDelete: true } },
      { customResourceGroup: { resources: [{ apiVersion: 'v1', kind: 'ConfigMap', names: ['a'] }] } },
    ]);
    const list = [
      m('ConfigMap', 'a', 'ns'),
      m('ConfigMap', 'other', 'ns'),
      m('Namespace', 'ns'),
      m('Secret', 's', 'ns'),
      m('Secret', 's', 'elsewhere'),
    ];
    expect(
      deletionBatches(list, groups).map((b) => [
        b.group,
        b.forceDelete,
        b.resources.map((r) => r.resource.name),
      ]),
    ).toEqual([
      ['customResourceGroup[0]', false, ['s']],
      ['cluster-scoped-resources', true, ['ns']],
      ['customResourceGroup[2]', false, ['a']],
    ]);
  });

  it.each<[string, unknown, string[]]>([
    ['valid', [{ predefinedResourceGroup: { type: 'empty' } }], []],
    [
      'both set',
      [{ predefinedResourceGroup: { type: 'crds' }, customResourceGroup: { resources: [{ kind: 'X' }] } }],
      [
        'deletionGroups[0]: Invalid value: predefinedResourceGroup and customResourceGroup must not both be set',
      ],
    ],
    [
      'none set',
      [{}],
      ['deletionGroups[0]: Invalid value: either predefinedResourceGroup or customResourceGroup must be set'],
    ],
    [
      'unknown type',
      [{ predefinedResourceGroup: { type: 'pods' } }],
      [
        'deletionGroups[0]: predefinedResourceGroup.type: Unsupported value: "pods": supported values: "namespaced-resources", "cluster-scoped-resources", "crds", "empty"',
      ],
    ],
    [
      'empty custom, deleteAllResources, targetName',
      [{ customResourceGroup: { deleteAllResources: true, targetName: 't' } }],
      [
        'deletionGroups[0]: customResourceGroup.resources: Required value: must not be empty',
        'deletionGroups[0]: customResourceGroup.deleteAllResources: not supported by this deployer',
        'deletionGroups[0]: customResourceGroup.targetName: groups on other targets are not supported by this deployer',
      ],
    ],
  ])('validation (upstream ValidateDeletionGroups): %s', (_n, groups, want) => {
    expect(deletionGroupsProblems({ deletionGroups: groups })).toEqual(want);
  });

  it('deletable leaves out keep and ignore', () => {
    const list = [
      m('ConfigMap', 'a', 'n'),
      m('ConfigMap', 'k', 'n', 'keep'),
      m('ConfigMap', 'i', 'n', 'ignore'),
      m('ConfigMap', 'f', 'n', 'fallback'),
      m('ConfigMap', 'im', 'n', 'immutable'),
    ];
    expect(deletable(list).map((r) => r.resource.name)).toEqual(['a', 'f', 'im']);
  });
});

describe('afterBatch', () => {
  const batches = deletionBatches([
    m('ConfigMap', 'a', 'ns'),
    m('ConfigMap', 'b', 'ns'),
    m('Namespace', 'ns'),
    m('CustomResourceDefinition', 'c'),
  ]);

  it.each<[string, number, ManagedResource[], unknown]>([
    [
      'a namespaced object still there: wait, nothing later started',
      0,
      [m('ConfigMap', 'b', 'ns')],
      {
        kind: 'wait',
        group: 'namespaced-resources',
        waitingFor: [m('ConfigMap', 'b', 'ns')],
        remaining: [m('ConfigMap', 'b', 'ns'), m('Namespace', 'ns'), m('CustomResourceDefinition', 'c')],
      },
    ],
    ['namespaced gone: on to the next group', 0, [], { kind: 'next' }],
    [
      'cluster-scoped still there',
      1,
      [m('Namespace', 'ns')],
      {
        kind: 'wait',
        group: 'cluster-scoped-resources',
        waitingFor: [m('Namespace', 'ns')],
        remaining: [m('Namespace', 'ns'), m('CustomResourceDefinition', 'c')],
      },
    ],
    ['last group gone: done', 2, [], { kind: 'done' }],
  ])('%s', (_name, at, still, want) => {
    expect(afterBatch(batches, at, still)).toEqual(want);
  });
});
