import { isHeld, lockLines, locksLeftHeld, type LockView } from './locks.js';

const lock = (name: string, podName: string, resourceVersion: string): LockView => ({
  metadata: { name, resourceVersion },
  spec: { podName, kind: 'DeployItem', name: `item-${name}` },
});

describe('locksLeftHeld: every lock still held at the end, whoever holds it', () => {
  it.each<[string, LockView[], LockView[], string[]]>([
    ['nothing held', [lock('a', '', '1')], [lock('a', '', '1')], []],
    [
      'held by a live owner and left so (the planted fault)',
      [lock('a', 'pod-1', '5')],
      [lock('a', 'pod-1', '5')],
      ['a'],
    ],
    [
      'held by an owner that is gone and left so',
      [lock('a', 'gone-1', '5')],
      [lock('a', 'gone-1', '5')],
      ['a'],
    ],
    ['released between the reads', [lock('a', 'pod-1', '5')], [lock('a', '', '6')], []],
    [
      'taken over by another owner in between (work going on)',
      [lock('a', 'pod-1', '5')],
      [lock('a', 'pod-2', '6')],
      [],
    ],
    ['released and taken again by the same owner', [lock('a', 'pod-1', '5')], [lock('a', 'pod-1', '7')], []],
    ['taken only after the first read', [lock('a', '', '5')], [lock('a', 'pod-1', '6')], []],
    ['gone (its item deleted)', [lock('a', 'pod-1', '5')], [], []],
    [
      'two left held of three',
      [lock('a', 'p', '1'), lock('b', 'p', '2'), lock('c', 'q', '3')],
      [lock('a', 'p', '1'), lock('b', '', '4'), lock('c', 'q', '3')],
      ['a', 'c'],
    ],
  ])('%s', (_what, first, later, left) => {
    expect(locksLeftHeld(first, later).map((l) => l.metadata.name)).toEqual(left);
  });

  it('isHeld: a podName set', () => {
    expect([
      isHeld(lock('a', 'p', '1')),
      isHeld(lock('a', '', '1')),
      isHeld({ metadata: { name: 'x' } }),
    ]).toEqual([true, false, false]);
  });

  it('says whether the holder is alive', () => {
    const alive = (pod: string): boolean => pod === 'pod-1';
    expect(lockLines([lock('a', 'pod-1', '1'), lock('b', 'pod-9', '1')], alive)).toEqual([
      'SyncObject a of DeployItem item-a still locked by pod-1 (alive)',
      'SyncObject b of DeployItem item-b still locked by pod-9 (gone)',
    ]);
  });
});
