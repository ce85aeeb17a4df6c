import type { DeployItem } from '../../shared/api/landscaper.js';
import { keyFields } from './exports-config.js';
import {
  construct,
  EXPORT_SECRET_KEY,
  exportLocation,
  exportSecret,
  mergeValues,
  referencedRef,
  valueAt,
} from './exports.js';

const from = { apiVersion: 'v1', kind: 'ConfigMap', name: 'my-data', namespace: 'ns' };
const secretKind = { apiVersion: 'v1', kind: 'Secret' };

describe('export values (upstream jsonpath.GetValue / Construct, utils.MergeMaps)', () => {
  it.each<[string, unknown, unknown]>([
    ['data.somekey', { data: { somekey: 'abc' } }, { value: 'abc' }],
    ['.data', { data: { name: 'x' } }, { value: { name: 'x' } }],
    ['secrets[0]', { secrets: [{ name: 'sa-token' }] }, { value: { name: 'sa-token' } }],
    ['data.missing', { data: {} }, { error: 'not found' }],
  ])('valueAt(%s)', (path, obj, want) => {
    expect(valueAt(path, obj)).toEqual(want);
  });

  it.each<[string, unknown, Record<string, unknown>]>([
    ['exportkey', 'abc', { exportkey: 'abc' }],
    ['a.b.c', 1, { a: { b: { c: 1 } } }],
    ['.a', { x: 1 }, { a: { x: 1 } }],
  ])('construct(%s)', (key, value, want) => {
    expect(construct(key, value)).toEqual(want);
  });

  it.each([['a[0]'], ['a.*'], ['']])('%j is not a key', (key) => {
    expect(keyFields(key)).toBeUndefined();
  });

  it('merges deeply, later wins', () => {
    expect(mergeValues({ a: { b: 1, c: 2 }, d: 1 }, { a: { c: 3 }, d: { e: 1 } })).toEqual({
      a: { b: 1, c: 3 },
      d: { e: 1 },
    });
  });

  it.each<[string, unknown, unknown]>([
    [
      'name and namespace',
      { name: 'r', namespace: 'other' },
      { ...secretKind, name: 'r', namespace: 'other' },
    ],
    ['namespace defaults to the resource', { name: 'r' }, { ...secretKind, name: 'r', namespace: 'ns' }],
    ['not a map', 'r', 'unexpected reference "r", expected map with name and namespace'],
    [
      'no name',
      { namespace: 'x' },
      'unexpected reference {"namespace":"x"}, expected map to have a name key',
    ],
    ['name not a string', { name: 1 }, 'expected name 1 to be a string'],
  ])('referencedRef: %s', (_n, value, want) => {
    expect(referencedRef(value, from, secretKind)).toEqual(want);
  });
});

describe('the export Secret (upstream CreateOrUpdateExport)', () => {
  const item: DeployItem = {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name: 'di', namespace: 'ls', uid: 'u1' },
    spec: { type: 'landscaper.gardener.cloud/kubernetes-manifest' },
  };

  it('is <item>-export in the item namespace, else where exportRef points', () => {
    expect(exportLocation(item)).toEqual({ name: 'di-export', namespace: 'ls' });
    expect(
      exportLocation({
        ...item,
        status: { observedGeneration: 0, exportRef: { name: 'x', namespace: 'y' } },
      }),
    ).toEqual({
      name: 'x',
      namespace: 'y',
    });
  });

  it('holds the values as JSON under "config", owned by the item', () => {
    const s = exportSecret(item, { exportkey: 'abc' }) as {
      metadata: { ownerReferences: unknown[] };
      data: Record<string, string>;
    };
    expect(JSON.parse(Buffer.from(s.data[EXPORT_SECRET_KEY], 'base64').toString())).toEqual({
      exportkey: 'abc',
    });
    expect(s.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'DeployItem', name: 'di', uid: 'u1', controller: true }),
    ]);
  });
});
