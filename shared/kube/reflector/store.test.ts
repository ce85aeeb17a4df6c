import {
  applyChanges,
  changeForWatchEvent,
  changesForRelist,
  changesForWatchEvent,
  isExpiredStatus,
  objectKey,
} from './store.js';
import type { WatchedObject } from './types.js';

const cm = (name: string, rv: string, ns = 'a', labels: Record<string, string> = {}): WatchedObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, resourceVersion: rv, labels },
});
const all = (): boolean => true;
const inA = (o: WatchedObject): boolean => o.metadata?.namespace === 'a';
const known = (...objs: WatchedObject[]): Map<string, WatchedObject> =>
  new Map(objs.map((o) => [objectKey(o), o]));
const summary = (changes: { action: string; object: WatchedObject }[]): string[] =>
  changes.map((c) => `${c.action} ${objectKey(c.object)}@${c.object.metadata?.resourceVersion}`);

describe('changesForWatchEvent (informer store)', () => {
  it.each([
    ['ADDED unknown → add', known(), 'ADDED', cm('x', '2'), all, ['add a/x@2']],
    ['ADDED known, same rv → nothing', known(cm('x', '2')), 'ADDED', cm('x', '2'), all, []],
    ['ADDED known, newer rv → update', known(cm('x', '1')), 'ADDED', cm('x', '2'), all, ['update a/x@2']],
    ['MODIFIED known → update', known(cm('x', '1')), 'MODIFIED', cm('x', '3'), all, ['update a/x@3']],
    ['MODIFIED unknown (entered the selector) → add', known(), 'MODIFIED', cm('x', '3'), all, ['add a/x@3']],
    [
      'MODIFIED known, no longer accepted → delete',
      known(cm('x', '1', 'b')),
      'MODIFIED',
      cm('x', '3', 'b'),
      inA,
      ['delete b/x@3'],
    ],
    ['MODIFIED unknown, not accepted → nothing', known(), 'MODIFIED', cm('x', '3', 'b'), inA, []],
    [
      'DELETED known → delete with the final state',
      known(cm('x', '1')),
      'DELETED',
      cm('x', '4'),
      all,
      ['delete a/x@4'],
    ],
    ['DELETED unknown, not accepted → nothing', known(), 'DELETED', cm('x', '4', 'b'), inA, []],
  ] as const)('%s', (_n, k, type, obj, accept, want) => {
    expect(summary(changesForWatchEvent(k, type, obj, accept))).toEqual(want);
  });
});

describe("changeForWatchEvent (adapter store: Knative's resourceDelegate, one event per Add/Update/Delete)", () => {
  it.each([
    ['ADDED → add', 'ADDED', cm('x', '2'), all, 'add'],
    ['MODIFIED → update', 'MODIFIED', cm('x', '3'), all, 'update'],
    ['DELETED → delete', 'DELETED', cm('x', '4'), all, 'delete'],
    ['ADDED outside the selected namespaces → nothing', 'ADDED', cm('x', '2', 'b'), inA, undefined],
    ['MODIFIED outside the selected namespaces → nothing', 'MODIFIED', cm('x', '3', 'b'), inA, undefined],
    ['DELETED outside the selected namespaces → nothing', 'DELETED', cm('x', '4', 'b'), inA, undefined],
  ] as const)('%s', (_n, type, obj, accept, want) => {
    expect(changeForWatchEvent(type, obj, accept)?.action).toBe(want);
  });

  it('the same object seen twice at one resourceVersion is sent twice (no memory, as Knative)', () => {
    const a = changeForWatchEvent('ADDED', cm('x', '2'), all);
    const b = changeForWatchEvent('ADDED', cm('x', '2'), all);
    expect([a?.action, b?.action]).toEqual(['add', 'add']);
  });

  it('a MODIFIED of an object never seen is an update, not an add', () => {
    expect(changeForWatchEvent('MODIFIED', cm('x', '7'), all)?.action).toBe('update');
  });
});

describe('changesForRelist (informer store)', () => {
  it.each([
    [
      'initial list: an add per object',
      known(),
      [cm('x', '1'), cm('y', '2')],
      all,
      ['add a/x@1', 'add a/y@2'],
    ],
    ['nothing changed → nothing', known(cm('x', '1')), [cm('x', '1')], all, []],
    [
      'changed, new and gone while away',
      known(cm('x', '1'), cm('gone', '2'), cm('same', '3')),
      [cm('x', '5'), cm('same', '3'), cm('new', '6')],
      all,
      ['update a/x@5', 'add a/new@6', 'delete a/gone@2'],
    ],
    [
      'objects not accepted are left out and deleted if known',
      known(cm('x', '1', 'b')),
      [cm('x', '1', 'b')],
      inA,
      ['delete b/x@1'],
    ],
  ] as const)('%s', (_n, k, listed, accept, want) => {
    expect(summary(changesForRelist(k, listed, accept))).toEqual(want);
  });

  it('a delete carries the last state known', () => {
    const last = cm('gone', '2');
    expect(changesForRelist(known(last), [], all)[0].object).toBe(last);
  });
});

describe('applyChanges', () => {
  it('returns a new map and leaves the input alone', () => {
    const before = known(cm('x', '1'), cm('y', '1'));
    const after = applyChanges(before, [
      { action: 'update', object: cm('x', '2') },
      { action: 'delete', object: cm('y', '1') },
      { action: 'add', object: cm('z', '3') },
    ]);
    expect([...after.keys()].sort()).toEqual(['a/x', 'a/z']);
    expect(after.get('a/x')?.metadata?.resourceVersion).toBe('2');
    expect(before.size).toBe(2);
  });
});

describe('objectKey and isExpiredStatus', () => {
  it.each([
    [{ metadata: { name: 'n' } }, 'n'],
    [{ metadata: { name: 'n', namespace: 's' } }, 's/n'],
  ])('%j → %s', (o, key) => expect(objectKey(o)).toBe(key));

  it.each([
    [{ kind: 'Status', code: 410, reason: 'Expired' }, true],
    [{ kind: 'Status', reason: 'Gone' }, true],
    [{ kind: 'Status', code: 500, reason: 'InternalError' }, false],
    [null, false],
  ])('%j → %s', (s, want) => expect(isExpiredStatus(s)).toBe(want));
});
