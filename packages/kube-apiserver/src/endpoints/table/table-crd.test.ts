/** The Table envelope, custom resource columns, and the JSONPath / duration / quantity formatting. */
import { builtinResources } from '../../registry/builtins/index.js';
import type { KubeObject, ResourceDef } from '../../api/types.js';
import { goFloat, printJSONPathValue } from './format.js';
import { humanDuration, parseIncludeObject, tableGroupVersion, toTable, toWatchTable } from './index.js';
import * as t from './table.fixtures.js';

const defs = new Map(builtinResources().map((d) => [d.kind, d]));
const def = (kind: string): ResourceDef => defs.get(kind)!;

function table(d: ResourceDef, objects: KubeObject[], more: object = {}): t.TableJSON {
  return toTable(d, objects, { now: t.NOW, includeObject: 'Metadata', ...more }) as unknown as t.TableJSON;
}

describe('Table envelope', () => {
  const cm = t.obj('ConfigMap', 'c', { data: { a: '1' } }, { labels: { x: 'y' } });

  test('list metadata and PartialObjectMetadata rows (the default)', () => {
    const out = table(def('ConfigMap'), [cm], {
      resourceVersion: '99',
      continue: 'abc',
      remainingItemCount: 3,
    });
    expect(Object.keys(out)).toEqual(['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
    expect(out).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '99', continue: 'abc', remainingItemCount: 3 },
    });
    expect(out.rows[0].object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: cm.metadata,
    });
  });

  test.each([
    ['Object', (o: KubeObject) => o],
    ['None', () => null],
  ] as const)('includeObject=%s', (include, expected) => {
    expect(table(def('ConfigMap'), [cm], { includeObject: include }).rows[0].object).toEqual(expected(cm));
  });

  test('v1beta1, an empty list, the CRD kind (default convertor: rows null), metadata without rv', () => {
    const beta = table(def('ConfigMap'), [cm], { groupVersion: 'meta.k8s.io/v1beta1' });
    expect([beta.apiVersion, beta.rows[0].object.apiVersion]).toEqual([
      'meta.k8s.io/v1beta1',
      'meta.k8s.io/v1beta1',
    ]);
    expect(table(def('ConfigMap'), [])).toMatchObject({ metadata: {}, rows: [] });
    expect(table(def('CustomResourceDefinition'), []).rows).toBeNull();
  });

  test('watch events: columns only on the first, resourceVersion of the object', () => {
    const opts = { now: t.NOW, includeObject: 'None' as const };
    expect(toWatchTable(def('ConfigMap'), cm, opts, true)).toMatchObject({
      metadata: { resourceVersion: '42' },
    });
    expect((toWatchTable(def('ConfigMap'), cm, opts, true) as any).columnDefinitions).toHaveLength(3);
    expect((toWatchTable(def('ConfigMap'), cm, opts, false) as any).columnDefinitions).toBeNull();
  });

  test('includeObject and Accept parsing', () => {
    expect([null, '', 'None', 'Object', 'Metadata'].map(parseIncludeObject)).toEqual([
      'Metadata',
      'Metadata',
      'None',
      'Object',
      'Metadata',
    ]);
    expect(() => parseIncludeObject('unrecognized')).toThrow(
      `Invalid value: "unrecognized": must be 'Metadata', 'Object', 'None', or empty`,
    );
    const kubectl =
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    expect(tableGroupVersion(kubectl)).toBe('meta.k8s.io/v1');
    expect(tableGroupVersion('application/json;as=Table;v=v1beta1;g=meta.k8s.io')).toBe(
      'meta.k8s.io/v1beta1',
    );
  });
});

describe('custom resources (apiextensions table convertor)', () => {
  test('Shoot-like columns: filters, first result only, types, dates, missing fields as null', () => {
    const out = table(t.shootDef, [t.shoot, t.freshShoot]);
    const labels = '{"note":"\\u003cx\\u003e","shoot.gardener.cloud/status":"healthy"}';
    expect(out.rows.map((r) => r.cells)).toEqual([
      ['dev', 'aws', 'eu-west-1', '1.32.2', 'True', 100, false, 'pool-a', labels, '5m', '55m'],
      ['fresh', 'gcp', 'europe-west1', '1.31.1', null, null, null, null, null, null, '3s'],
    ]);
    expect(out.columnDefinitions[1]).toEqual({
      name: 'Provider',
      type: 'string',
      format: '',
      description: 'Custom resource definition column (in JSONPath format): .spec.provider.type',
      priority: 0,
    });
    expect(out.columnDefinitions.map((c) => c.priority)).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0]);
    expect(out.columnDefinitions[9]).toMatchObject({
      name: 'Operated',
      type: 'date',
      description: 'When the last operation ran',
    });
  });

  test('a CRD without columns gets Age; values of the wrong type are null; bad dates', () => {
    const bare = { ...t.shootDef, printerColumns: [] };
    expect(table(bare, [t.shoot]).columnDefinitions.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    const typed = {
      ...t.shootDef,
      printerColumns: [
        { name: 'N', type: 'integer' as const, jsonPath: '.spec.region' },
        { name: 'F', type: 'number' as const, jsonPath: '.spec.f' },
        { name: 'I', type: 'integer' as const, jsonPath: '.spec.f' },
        { name: 'S', type: 'string' as const, jsonPath: '.spec.f' },
        { name: 'D', type: 'date' as const, jsonPath: '.spec.bad' },
        { name: 'E', type: 'date' as const, jsonPath: '.spec.empty' },
        { name: 'X', type: 'string' as const, jsonPath: '.spec[' },
      ],
    };
    const o = t.obj('Shoot', 's', { spec: { region: 'x', f: 2.75, bad: 'yesterday', empty: '' } });
    expect(table(typed, [o]).rows[0].cells).toEqual([
      's',
      null,
      2.75,
      2,
      '2.75',
      '<invalid>',
      '<unknown>',
      null,
    ]);
  });
});

describe('JSONPath results as columns', () => {
  test('printing a result as a string column does', () => {
    expect([
      printJSONPathValue(3),
      printJSONPathValue(0.5),
      printJSONPathValue(true),
      printJSONPathValue(null),
    ]).toEqual(['3', '0.5', 'true', '<no value>']);
    expect([goFloat(1234567.5), goFloat(0.00001), goFloat(123456.5)]).toEqual([
      '1.2345675e+06',
      '1e-05',
      '123456.5',
    ]);
    expect(printJSONPathValue([{ b: 1, a: 'x' }])).toBe('[{"a":"x","b":1}]');
  });
});

test.each<[number, string]>([
  [-2000, '<invalid>'],
  [-1999, '0s'],
  [0, '0s'],
  [119_999, '119s'],
  [120_000, '2m'],
  [121_000, '2m1s'],
  [599_999, '9m59s'],
  [600_000, '10m'],
  [10_799_999, '179m'],
  [10_800_000, '3h'],
  [12_600_000, '3h30m'],
  [28_800_000, '8h'],
  [172_799_999, '47h'],
  [172_800_000, '2d'],
  [180_000_000, '2d2h'],
  [691_200_000, '8d'],
  [729 * 86_400_000, '729d'],
  [730 * 86_400_000, '2y'],
  [731 * 86_400_000, '2y1d'],
  [2920 * 86_400_000, '8y'],
  [3288 * 86_400_000, '9y'],
])('humanDuration(%d ms) = %s', (ms, expected) => {
  expect(humanDuration(ms)).toBe(expected);
});
