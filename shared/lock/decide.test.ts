import type { SyncObject } from '../api/landscaper.js';
import type { AcquireStep, ReleaseStep } from './decide.js';
import { decideAcquire, decideRelease, isAcquireAction, newSyncObject, withOwner } from './decide.js';

const ME = 'fn-a-1';

function so(podName: string, meta: Partial<NonNullable<SyncObject['metadata']>> = {}): SyncObject {
  return {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'SyncObject',
    metadata: { name: 'mock-u1', namespace: 'ns', resourceVersion: '7', ...meta },
    spec: { podName, kind: 'DeployItem', name: 'di', lastUpdateTime: '2024-01-01T00:00:00Z', prefix: 'mock' },
  };
}

describe('decideAcquire', () => {
  const table: [string, SyncObject | undefined, string, boolean | undefined, AcquireStep][] = [
    ['absent → create', undefined, ME, undefined, { action: 'create' }],
    ['mine → locked without a write', so(ME), ME, undefined, { action: 'mine' }],
    ['mine wins over a liveness answer', so(ME), ME, false, { action: 'mine' }],
    [
      'unlocked ("") → take over, no liveness check',
      so(''),
      ME,
      undefined,
      { action: 'takeOver', resourceVersion: '7', previousOwner: '', reason: 'unlocked' },
    ],
    [
      'other owner, liveness unknown → check',
      so('fn-b'),
      ME,
      undefined,
      { action: 'checkLiveness', owner: 'fn-b' },
    ],
    [
      'other owner alive → not locked',
      so('fn-b'),
      ME,
      true,
      { action: 'notLocked', reason: 'locked by fn-b' },
    ],
    [
      'other owner dead → take over with the resourceVersion read',
      so('fn-b'),
      ME,
      false,
      { action: 'takeOver', resourceVersion: '7', previousOwner: 'fn-b', reason: 'owner fn-b is gone' },
    ],
    [
      'being deleted → not locked',
      so('', { deletionTimestamp: '2024-01-01T00:00:00Z' }),
      ME,
      undefined,
      { action: 'notLocked', reason: 'the SyncObject is being deleted' },
    ],
    [
      'no resourceVersion → not locked (no blind write)',
      so('fn-b', { resourceVersion: undefined }),
      ME,
      false,
      { action: 'notLocked', reason: 'the SyncObject has no resourceVersion' },
    ],
    [
      'empty identity → not locked',
      so(''),
      '',
      undefined,
      { action: 'notLocked', reason: 'no owner identity' },
    ],
    [
      'missing spec.podName counts as unlocked',
      { ...so(''), spec: undefined } as unknown as SyncObject,
      ME,
      undefined,
      { action: 'takeOver', resourceVersion: '7', previousOwner: '', reason: 'unlocked' },
    ],
  ];
  it.each(table)('%s', (_name, existing, me, alive, want) => {
    const step = decideAcquire(existing, me, alive);
    expect(step).toEqual(want);
    expect(isAcquireAction(step.action)).toBe(true);
  });
});

describe('decideRelease', () => {
  const table: [string, SyncObject | undefined, string, ReleaseStep][] = [
    ['mine → release with the resourceVersion', so(ME), ME, { action: 'release', resourceVersion: '7' }],
    ['gone → nothing', undefined, ME, { action: 'none', reason: 'the SyncObject is gone' }],
    ['taken over by another → nothing', so('fn-b'), ME, { action: 'none', reason: 'locked by fn-b' }],
    ['already unlocked → nothing', so(''), ME, { action: 'none', reason: 'not locked' }],
    ['empty identity never releases ""', so(''), '', { action: 'none', reason: 'not locked' }],
    [
      'no resourceVersion → nothing',
      so(ME, { resourceVersion: undefined }),
      ME,
      { action: 'none', reason: 'the SyncObject has no resourceVersion' },
    ],
  ];
  it.each(table)('%s', (_name, existing, me, want) => {
    expect(decideRelease(existing, me)).toEqual(want);
  });
});

describe('SyncObject builders', () => {
  it('newSyncObject records owner, kind, name, prefix and the time', () => {
    const got = newSyncObject({
      name: 'mock-u1',
      prefix: 'mock',
      target: { kind: 'DeployItem', name: 'di', namespace: 'ns', uid: 'u1' },
      owner: ME,
      now: new Date('2024-02-03T04:05:06.789Z'),
    });
    expect(got).toEqual({
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'SyncObject',
      metadata: { name: 'mock-u1', namespace: 'ns' },
      spec: {
        podName: ME,
        kind: 'DeployItem',
        name: 'di',
        lastUpdateTime: '2024-02-03T04:05:06Z',
        prefix: 'mock',
      },
    });
  });

  it('withOwner changes owner and time, keeps the resourceVersion, and does not mutate its input', () => {
    const before = so('fn-b');
    const copy = structuredClone(before);
    const got = withOwner(before, '', new Date('2024-02-03T04:05:06Z'));
    expect(got.spec).toEqual({ ...before.spec, podName: '', lastUpdateTime: '2024-02-03T04:05:06Z' });
    expect(got.metadata?.resourceVersion).toBe('7');
    expect(before).toEqual(copy);
  });
});
