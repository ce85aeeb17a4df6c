import { afterBatch, deletable, deletionBatches, deletionGroupOf } from './deletion.js';
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
    [m('ConfigMap', 'a', 'ns'), 'namespaced'],
    [m('Namespace', 'ns'), 'cluster-scoped'],
    [m('ClusterRole', 'r'), 'cluster-scoped'],
    [m('CustomResourceDefinition', 'x.example.com'), 'crds'],
  ])('%j → %s', (res, group) => {
    expect(deletionGroupOf(res.resource)).toBe(group);
  });

  it('batches in order: namespaced, cluster-scoped, CRDs; empty groups left out', () => {
    const list = [
      m('CustomResourceDefinition', 'c'),
      m('Namespace', 'ns'),
      m('ConfigMap', 'a', 'ns'),
      m('Secret', 'b', 'ns'),
    ];
    expect(deletionBatches(list).map((b) => [b.group, b.resources.map((r) => r.resource.name)])).toEqual([
      ['namespaced', ['a', 'b']],
      ['cluster-scoped', ['ns']],
      ['crds', ['c']],
    ]);
    expect(deletionBatches([m('CustomResourceDefinition', 'c')]).map((b) => b.group)).toEqual(['crds']);
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
        group: 'namespaced',
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
        group: 'cluster-scoped',
        waitingFor: [m('Namespace', 'ns')],
        remaining: [m('Namespace', 'ns'), m('CustomResourceDefinition', 'c')],
      },
    ],
    ['last group gone: done', 2, [], { kind: 'done' }],
  ])('%s', (_name, at, still, want) => {
    expect(afterBatch(batches, at, still)).toEqual(want);
  });
});
