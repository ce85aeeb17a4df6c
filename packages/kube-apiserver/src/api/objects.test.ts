/**
 * The object helpers every write goes through (./objects.ts): equality as JSON sees it, the
 * comparison that decides a no-op write, the metadata an update carries over.
 */
import { carryServerMeta, deepEqual, sameContent } from './objects.js';
import type { KubeObject, ObjectMeta } from './types.js';

const cm = (metadata: ObjectMeta | undefined, data?: unknown): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata, ...(data === undefined ? {} : { data }) }) as KubeObject;

describe('deepEqual', () => {
  it.each([
    ['undefined members are absent', { a: 1, b: undefined }, { a: 1 }, true],
    ['a missing member differs', { a: 1, b: 2 }, { a: 1 }, false],
    ['a member only on the right differs', { a: 1 }, { a: 1, b: 2 }, false],
    ['key order does not count', { a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    ['list order counts', [1, 2], [2, 1], false],
    ['a list is not a map', [], {}, false],
    ['null is not an empty map', null, {}, false],
    ['nested difference', { a: { b: { c: 1 } } }, { a: { b: { c: 2 } } }, false],
  ])('%s', (_name, a, b, expected) => {
    expect(deepEqual(a, b)).toBe(expected);
    expect(deepEqual(b, a)).toBe(expected);
  });
});

describe('sameContent', () => {
  it.each([
    [
      'resourceVersion and managedFields ignored',
      cm({ name: 'x', resourceVersion: '1' }),
      cm({ name: 'x', resourceVersion: '2', managedFields: [] }),
      true,
    ],
    ['other metadata counts', cm({ name: 'x', labels: { a: 'b' } }), cm({ name: 'x' }), false],
    ['the body counts', cm({ name: 'x' }, { k: 'v' }), cm({ name: 'x' }, { k: 'w' }), false],
    ['no metadata is empty metadata', cm(undefined), cm({ resourceVersion: '3' }), true],
  ])('%s', (_name, a, b, expected) => {
    expect(sameContent(a, b)).toBe(expected);
    expect(sameContent(b, a)).toBe(expected);
  });
});

describe('carryServerMeta', () => {
  const prev: ObjectMeta = { name: 'x', namespace: 'ns', uid: 'u', creationTimestamp: 't', generation: 3 };

  it('keeps the body key order and appends the server fields it lacks', () => {
    const out = carryServerMeta({ labels: { a: 'b' }, name: 'x', generation: 9, uid: 'other' }, prev);
    expect(Object.keys(out)).toEqual([
      'labels',
      'name',
      'generation',
      'uid',
      'creationTimestamp',
      'namespace',
    ]);
    expect(out).toEqual({
      labels: { a: 'b' },
      name: 'x',
      generation: 3,
      uid: 'u',
      creationTimestamp: 't',
      namespace: 'ns',
    });
  });

  it('drops a deletionTimestamp the stored object does not have, and the namespace of a cluster-scoped one', () => {
    const out = carryServerMeta(
      { deletionTimestamp: 'd', deletionGracePeriodSeconds: 0 },
      { ...prev, namespace: undefined, generation: undefined },
    );
    expect(out).toEqual({ uid: 'u', creationTimestamp: 't', name: 'x' });
  });
});
