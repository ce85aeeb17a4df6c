import {
  applyGroupOf,
  desiredObject,
  isManagedAfter,
  MANAGED_BY_LABEL,
  managedEntry,
  orphansOf,
  planApply,
  refOf,
  withRequiredFields,
  type ApplyAction,
} from './plan.js';
import type { ManifestEntry, ManifestPolicy, UpdateStrategy } from './provider-config.js';
import { refKey, type ManagedResource } from './provider-status.js';

const ITEM = 'my-item';
const manifest = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'ns', labels: { app: 'x' } },
  data: { a: 'mine' },
};
const entry = (policy: ManifestPolicy, extra: Partial<ManifestEntry> = {}): ManifestEntry => ({
  index: 0,
  policy,
  object: structuredClone(manifest),
  ...extra,
});
const current = (
  labels: Record<string, string>,
  data: Record<string, string> = { a: 'theirs', extra: 'x' },
): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'ns', uid: 'u', resourceVersion: '7', labels },
  data,
});
const ours = { [MANAGED_BY_LABEL]: ITEM };
const desiredBody = { ...manifest, metadata: { ...manifest.metadata, labels: { app: 'x', ...ours } } };

function plan(
  policy: ManifestPolicy,
  cur?: Record<string, unknown>,
  strategy: UpdateStrategy = 'update',
  extra: Partial<ManifestEntry> = {},
): ApplyAction {
  return planApply({
    entry: entry(policy, extra),
    namespaced: true,
    strategy,
    itemName: ITEM,
    ...(cur ? { current: cur } : {}),
  });
}

describe('planApply by policy', () => {
  it.each<[string, ManifestPolicy, Record<string, unknown> | undefined, ApplyAction['op'], string]>([
    ['manage creates a missing object', 'manage', undefined, 'create', ''],
    ['manage updates an object of anyone', 'manage', current({ [MANAGED_BY_LABEL]: 'other' }), 'update', ''],
    ['keep creates', 'keep', undefined, 'create', ''],
    ['keep updates', 'keep', current(ours), 'update', ''],
    ['fallback creates', 'fallback', undefined, 'create', ''],
    ['fallback updates its own', 'fallback', current(ours), 'update', ''],
    [
      "fallback leaves another item's object",
      'fallback',
      current({ [MANAGED_BY_LABEL]: 'other' }),
      'skip',
      'managed-elsewhere',
    ],
    ['fallback leaves an unlabelled object', 'fallback', current({}), 'skip', 'managed-elsewhere'],
    ['immutable creates', 'immutable', undefined, 'create', ''],
    ['immutable never updates', 'immutable', current(ours), 'skip', 'immutable'],
    ['ignore never creates', 'ignore', undefined, 'skip', 'ignored'],
    ['ignore never updates', 'ignore', current(ours), 'skip', 'ignored'],
  ])('%s', (_name, policy, cur, op, why) => {
    const action = plan(policy, cur);
    expect(action.op).toBe(op);
    if (why !== '') expect(action).toEqual({ op: 'skip', why });
  });

  it('a create carries our label and annotateBeforeCreate', () => {
    expect(plan('manage', undefined, 'update', { annotateBeforeCreate: { before: 'create' } })).toEqual({
      op: 'create',
      body: { ...desiredBody, metadata: { ...desiredBody.metadata, annotations: { before: 'create' } } },
    });
  });
});

describe('planApply by update strategy (object present, ours)', () => {
  const cur = current({ ...ours, other: 'label' });
  it.each<[UpdateStrategy, ApplyAction]>([
    [
      'update',
      { op: 'update', body: { ...desiredBody, metadata: { ...desiredBody.metadata, resourceVersion: '7' } } },
    ],
    [
      'patch',
      {
        op: 'patch',
        patch: { metadata: { labels: { app: 'x', other: null } }, data: { a: 'mine', extra: null } },
      },
    ],
    [
      'merge',
      {
        op: 'update',
        body: {
          ...cur,
          metadata: { ...(cur.metadata as object), labels: { ...ours, other: 'label', app: 'x' } },
          data: { a: 'theirs', extra: 'x' },
        },
      },
    ],
    [
      'mergeOverwrite',
      {
        op: 'update',
        body: {
          ...cur,
          metadata: { ...(cur.metadata as object), labels: { ...ours, other: 'label', app: 'x' } },
          data: { a: 'mine', extra: 'x' },
        },
      },
    ],
  ])('%s', (strategy, want) => {
    expect(plan('manage', cur, strategy)).toEqual(want);
  });

  it.each<UpdateStrategy>(['update', 'patch', 'merge', 'mergeOverwrite'])(
    '%s skips a write that changes nothing',
    (strategy) => {
      const same = { ...desiredBody, metadata: { ...desiredBody.metadata, uid: 'u', resourceVersion: '3' } };
      expect(plan('manage', same, strategy)).toEqual({ op: 'skip', why: 'unchanged' });
    },
  );
});

describe('desiredObject / refOf', () => {
  it('drops the namespace of a cluster-scoped kind', () => {
    const e = entry('manage');
    expect(desiredObject(e, false, ITEM).metadata).toEqual({ name: 'cm', labels: { app: 'x', ...ours } });
    expect(refOf(e.object, false)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm' });
    expect(refOf(e.object, true)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'cm',
      namespace: 'ns',
    });
  });

  it('does not change the entry', () => {
    const e = entry('manage');
    desiredObject(e, true, ITEM);
    expect(e.object).toEqual(manifest);
  });
});

describe('withRequiredFields (what an update must carry over)', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    [
      'Service clusterIP',
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's', resourceVersion: '1' },
        spec: { clusterIP: '10.0.0.1', ports: [] },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's', resourceVersion: '1' },
        spec: { clusterIP: '10.0.0.1', ports: [{ port: 80 }] },
      },
    ],
    [
      'Job selector and template labels',
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j', resourceVersion: '2' },
        spec: { selector: { matchLabels: { uid: 'x' } }, template: { metadata: { labels: { uid: 'x' } } } },
      },
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j' },
        spec: { template: { spec: { containers: [] } } },
      },
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j', resourceVersion: '2' },
        spec: {
          selector: { matchLabels: { uid: 'x' } },
          template: { metadata: { labels: { uid: 'x' } }, spec: { containers: [] } },
        },
      },
    ],
    [
      'ServiceAccount secrets when the manifest has none',
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'sa', resourceVersion: '3' },
        secrets: [{ name: 'tok' }],
      },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } },
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'sa', resourceVersion: '3' },
        secrets: [{ name: 'tok' }],
      },
    ],
    [
      'ServiceAccount secrets of the manifest win',
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'sa', resourceVersion: '3' },
        secrets: [{ name: 'tok' }],
      },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' }, secrets: [{ name: 'mine' }] },
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'sa', resourceVersion: '3' },
        secrets: [{ name: 'mine' }],
      },
    ],
  ])('%s', (_name, cur, desired, want) => {
    expect(withRequiredFields(cur, desired as never)).toEqual(want);
  });
});

describe('apply groups, managed entries, orphans', () => {
  it.each([
    ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', false, 'crds'],
    ['v1', 'Namespace', false, 'cluster-scoped'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRole', false, 'cluster-scoped'],
    ['v1', 'ConfigMap', true, 'namespaced'],
  ])('%s %s → %s', (apiVersion, kind, namespaced, want) => {
    expect(applyGroupOf(apiVersion, kind, namespaced)).toBe(want);
  });

  it('isManagedAfter: writes, immutable and unchanged count; ignored and foreign do not', () => {
    expect(
      (
        [
          { op: 'create', body: {} },
          { op: 'update', body: {} },
          { op: 'patch', patch: {} },
          { op: 'skip', why: 'immutable' },
          { op: 'skip', why: 'unchanged' },
          { op: 'skip', why: 'ignored' },
          { op: 'skip', why: 'managed-elsewhere' },
        ] as ApplyAction[]
      ).map(isManagedAfter),
    ).toEqual([true, true, true, true, true, false, false]);
  });

  it('managedEntry records annotateBeforeDelete', () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', namespace: 'ns' };
    expect(managedEntry(entry('keep', { annotateBeforeDelete: { a: 'b' } }), ref)).toEqual({
      policy: 'keep',
      resource: ref,
      annotateBeforeDelete: { a: 'b' },
    });
  });

  it('orphansOf: dropped objects except keep/ignore, once each', () => {
    const m = (name: string, policy: ManagedResource['policy'] = 'manage'): ManagedResource => ({
      policy,
      resource: { apiVersion: 'v1', kind: 'ConfigMap', name, namespace: 'ns' },
    });
    const listed = new Set([refKey(m('still').resource)]);
    expect(
      orphansOf(
        [m('still'), m('gone'), m('kept', 'keep'), m('ign', 'ignore'), m('fb', 'fallback'), m('gone')],
        listed,
      ),
    ).toEqual([m('gone'), m('fb', 'fallback')]);
  });
});
