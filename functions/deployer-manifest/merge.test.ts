import { isEmptyValue, mergeObjects, mergePatchFor, withoutServerFields } from './merge.js';

describe('mergeObjects (mergo on maps)', () => {
  const current = {
    data: { a: 'theirs', extra: 'x', empty: '' },
    list: [1, 2],
    emptyList: [],
    nested: { keep: true, n: 0 },
    scalar: 'old',
  };
  const manifest = {
    data: { a: 'mine', b: 'new', empty: 'filled' },
    list: [3],
    emptyList: [9],
    nested: { n: 5, add: 'y' },
    scalar: null,
    fresh: { x: 1 },
  };

  it.each<[string, boolean, Record<string, unknown>]>([
    [
      'merge: only what is missing or empty is taken; lists stay unless empty',
      false,
      {
        data: { a: 'theirs', extra: 'x', empty: 'filled', b: 'new' },
        list: [1, 2],
        emptyList: [9],
        nested: { keep: true, n: 5, add: 'y' },
        scalar: 'old',
        fresh: { x: 1 },
      },
    ],
    [
      'mergeOverwrite: the manifest wins (null too); lists replaced whole; the rest kept',
      true,
      {
        data: { a: 'mine', extra: 'x', empty: 'filled', b: 'new' },
        list: [3],
        emptyList: [9],
        nested: { keep: true, n: 5, add: 'y' },
        scalar: null,
        fresh: { x: 1 },
      },
    ],
  ])('%s', (_name, overwrite, want) => {
    const before = structuredClone(current);
    expect(mergeObjects(current, manifest, overwrite)).toEqual(want);
    expect(current).toEqual(before);
  });

  it('a map replaces a scalar only with overwrite', () => {
    expect(mergeObjects({ a: 'x' }, { a: { b: 1 } }, false)).toEqual({ a: 'x' });
    expect(mergeObjects({ a: 'x' }, { a: { b: 1 } }, true)).toEqual({ a: { b: 1 } });
    expect(mergeObjects({ a: {} }, { a: { b: 1 } }, false)).toEqual({ a: { b: 1 } });
  });
});

describe('isEmptyValue', () => {
  it.each([
    [undefined, true],
    [null, true],
    ['', true],
    [0, true],
    [false, true],
    [[], true],
    [{}, true],
    ['a', false],
    [1, false],
    [true, false],
    [[0], false],
    [{ a: undefined }, false],
  ])('%j → %s', (v, want) => {
    expect(isEmptyValue(v)).toBe(want);
  });
});

describe('mergePatchFor (RFC 7386 from current to desired)', () => {
  const current = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'a',
      namespace: 'n',
      uid: 'u',
      resourceVersion: '5',
      creationTimestamp: 't',
      managedFields: [{}],
      labels: { x: '1', gone: 'y' },
    },
    data: { a: '1', b: '2' },
    status: { whatever: true },
  };

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'nothing differs',
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'n', labels: { x: '1', gone: 'y' } },
        data: { a: '1', b: '2' },
      },
      {},
    ],
    [
      'changed, added and removed keys; status and server metadata left alone',
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'n', labels: { x: '2' } },
        data: { a: '1', c: '3' },
      },
      { metadata: { labels: { x: '2', gone: null } }, data: { b: null, c: '3' } },
    ],
    [
      'lists are replaced whole',
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'n', labels: { x: '1', gone: 'y' } },
        data: { a: '1', b: '2' },
        list: [1],
      },
      { list: [1] },
    ],
  ])('%s', (_name, desired, want) => {
    expect(mergePatchFor(current, desired)).toEqual(want);
  });

  it('withoutServerFields drops status and server-owned metadata only', () => {
    expect(withoutServerFields(current)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'n', labels: { x: '1', gone: 'y' } },
      data: { a: '1', b: '2' },
    });
  });
});
