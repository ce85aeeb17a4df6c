import { toPatch } from './patch-after.js';
import type { ManifestEntry } from './provider-config.js';
import type { ManagedResource } from './provider-status.js';
import { beforeDelete } from './uninstall.js';

const cm = (name: string, policy: ManifestEntry['policy'] = 'manage', patch = true): ManifestEntry => ({
  index: 0,
  policy,
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } },
  ...(patch ? { patchAfterDeployment: { data: { x: '1' } } } : {}),
});
const managed = (name: string): ManagedResource => ({
  policy: 'manage',
  resource: { apiVersion: 'v1', kind: 'ConfigMap', name, namespace: 'ns' },
});

describe('patchAfterDeployment: which objects (upstream: patchInfo only for written objects)', () => {
  it('patches managed objects with a patch; not ignore, immutable, unmanaged or unpatched ones', () => {
    const entries = [
      cm('a'),
      cm('imm', 'immutable'),
      cm('ign', 'ignore'),
      cm('elsewhere', 'fallback'),
      cm('nopatch', 'manage', false),
      cm('fb', 'fallback'),
    ];
    const list = [managed('a'), managed('imm'), managed('nopatch'), managed('fb')];
    expect(toPatch(entries, list).map((e) => e.object.metadata.name)).toEqual(['a', 'fb']);
  });
});

describe('beforeDelete (upstream AnnotateAndPatchBeforeDelete)', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', annotations: { keep: 'k' } },
    data: { a: '1', b: '2' },
  };

  it.each<[string, Partial<ManagedResource>, unknown]>([
    ['nothing asked: the object as it is', {}, obj],
    [
      'annotations merged',
      { annotateBeforeDelete: { x: 'y' } },
      { ...obj, metadata: { name: 'a', annotations: { keep: 'k', x: 'y' } } },
    ],
    [
      'patch merged deeply, overriding',
      { patchBeforeDelete: { data: { b: '3' }, spec: { x: [1] } } },
      { ...obj, data: { a: '1', b: '3' }, spec: { x: [1] } },
    ],
    [
      'both',
      { annotateBeforeDelete: { x: 'y' }, patchBeforeDelete: { metadata: { labels: { l: 'v' } } } },
      { ...obj, metadata: { name: 'a', annotations: { keep: 'k', x: 'y' }, labels: { l: 'v' } } },
    ],
  ])('%s', (_n, m, want) => {
    expect(beforeDelete(obj, { ...managed('a'), ...m })).toEqual(want);
  });
});
