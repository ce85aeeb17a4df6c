import { mergePatch, strategicMerge } from './patch.js';
import type { JSONSchemaProps } from '../api/types.js';

/** A Deployment-like schema with the patch metadata kubectl reads. */
const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    metadata: {
      type: 'object',
      properties: {
        finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
      },
    },
    spec: {
      type: 'object',
      properties: {
        strategy: {
          type: 'object',
          'x-kubernetes-patch-strategy': 'retainKeys',
          properties: { type: { type: 'string' }, rollingUpdate: { type: 'object' } },
        },
        containers: {
          type: 'array',
          'x-kubernetes-patch-strategy': 'merge',
          'x-kubernetes-patch-merge-key': 'name',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              image: { type: 'string' },
              args: { type: 'array', items: { type: 'string' } },
              env: {
                type: 'array',
                'x-kubernetes-patch-strategy': 'merge',
                'x-kubernetes-patch-merge-key': 'name',
                items: {
                  type: 'object',
                  properties: { name: { type: 'string' }, value: { type: 'string' } },
                },
              },
            },
          },
        },
        tolerations: { type: 'array', items: { type: 'object' } },
      },
    },
  },
};

const base = {
  metadata: { finalizers: ['a', 'b'] },
  spec: {
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
    containers: [
      { name: 'web', image: 'nginx:1', args: ['-x'], env: [{ name: 'A', value: '1' }] },
      { name: 'side', image: 'envoy:1' },
    ],
    tolerations: [{ key: 'k1' }],
  },
};

describe('strategic merge patch', () => {
  it.each([
    [
      'merges list items by their merge key, recursing into them',
      { spec: { containers: [{ name: 'web', image: 'nginx:2', env: [{ name: 'B', value: '2' }] }] } },
      (r: any) => {
        expect(r.spec.containers[0]).toEqual({
          name: 'web',
          image: 'nginx:2',
          args: ['-x'],
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
        });
        expect(r.spec.containers[1]).toEqual({ name: 'side', image: 'envoy:1' });
      },
    ],
    [
      'deletes an item with $patch: delete',
      { spec: { containers: [{ name: 'side', $patch: 'delete' }] } },
      (r: any) => expect(r.spec.containers.map((c: any) => c.name)).toEqual(['web']),
    ],
    [
      'replaces a whole list with a $patch: replace item',
      { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] } },
      (r: any) => expect(r.spec.containers).toEqual([{ name: 'only', image: 'x' }]),
    ],
    [
      'replaces a map with $patch: replace',
      { spec: { strategy: { $patch: 'replace', type: 'Recreate' } } },
      (r: any) => expect(r.spec.strategy).toEqual({ type: 'Recreate' }),
    ],
    [
      'keeps only $retainKeys after merging (kubectl switching a strategy)',
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } },
      (r: any) => expect(r.spec.strategy).toEqual({ type: 'Recreate' }),
    ],
    [
      'orders a merged list by $setElementOrder',
      {
        spec: {
          '$setElementOrder/containers': [{ name: 'side' }, { name: 'web' }],
        },
      },
      (r: any) => expect(r.spec.containers.map((c: any) => c.name)).toEqual(['side', 'web']),
    ],
    [
      'removes values with $deleteFromPrimitiveList',
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
      (r: any) => expect(r.metadata.finalizers).toEqual(['b']),
    ],
    [
      'unions a merge-strategy primitive list',
      { metadata: { finalizers: ['b', 'c'] } },
      (r: any) => expect(r.metadata.finalizers).toEqual(['a', 'b', 'c']),
    ],
    [
      'replaces lists without a patch strategy, and a primitive list inside a merged item',
      { spec: { tolerations: [{ key: 'k2' }], containers: [{ name: 'web', args: ['-y'] }] } },
      (r: any) => {
        expect(r.spec.tolerations).toEqual([{ key: 'k2' }]);
        expect(r.spec.containers[0].args).toEqual(['-y']);
      },
    ],
    [
      'deletes a field set to null',
      { spec: { strategy: { rollingUpdate: null } } },
      (r: any) => expect(r.spec.strategy).toEqual({ type: 'RollingUpdate' }),
    ],
  ])('%s', (_name, patch, check) => {
    const before = structuredClone(base);
    check(strategicMerge(base, patch, schema));
    expect(base).toEqual(before); // inputs are not mutated
  });
});

describe('JSON merge patch (RFC 7386)', () => {
  it.each([
    ['sets and deletes members', { a: 1, b: { c: 2 } }, { b: { c: null, d: 3 } }, { a: 1, b: { d: 3 } }],
    ['replaces arrays whole', { a: [1, 2] }, { a: [3] }, { a: [3] }],
    ['replaces a non-object target', { a: 'x' }, { a: { b: 1 } }, { a: { b: 1 } }],
  ])('%s', (_name, target, patch, expected) => {
    expect(mergePatch(target, patch)).toEqual(expected);
  });
});
