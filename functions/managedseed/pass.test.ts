import type { Seed } from '../../shared/api/core.js';
import type { ManagedSeed, ManagedSeedStatus } from '../../shared/api/seedmanagement.js';
import { eventKind, eventTarget } from '../../shared/function/event-attrs.js';
import { eventName, eventObject } from '../../shared/kube/events.js';
import { finalizersWith } from '../../shared/kube/io.js';
import { errorRequeueMs, managedSeedsForShoot, seedPatch, statusChanged } from './pass.js';

const BACKOFF = { min: 5_000, max: 300_000 };
const NOW = new Date('2024-05-01T10:00:00Z');

function registered(message: string, lastUpdateTime: string): ManagedSeedStatus {
  return {
    conditions: [
      {
        type: 'SeedRegistered',
        status: 'False',
        reason: 'ReconcileError',
        message,
        lastTransitionTime: lastUpdateTime,
        lastUpdateTime,
      },
    ],
  };
}

describe('errorRequeueMs', () => {
  it.each<[string, ManagedSeedStatus | undefined, ManagedSeedStatus, number]>([
    ['first error', undefined, registered('boom', '2024-05-01T10:00:00Z'), 5_000],
    [
      'another error than before',
      registered('old', '2024-05-01T09:00:00Z'),
      registered('boom', NOW.toISOString()),
      5_000,
    ],
    [
      'same error for 40s',
      registered('boom', '2024-05-01T09:59:20Z'),
      registered('boom', '2024-05-01T09:59:20Z'),
      40_000,
    ],
    [
      'same error for 2s: at least min',
      registered('boom', '2024-05-01T09:59:58Z'),
      registered('boom', '2024-05-01T09:59:58Z'),
      5_000,
    ],
    [
      'same error for an hour: at most max',
      registered('boom', '2024-05-01T09:00:00Z'),
      registered('boom', '2024-05-01T09:00:00Z'),
      300_000,
    ],
  ])('%s', (_n, before, after, want) => {
    expect(errorRequeueMs(before, { status: after }, NOW, BACKOFF)).toBe(want);
  });
});

describe('statusChanged', () => {
  it('ignores key order and undefined members', () => {
    expect(
      statusChanged({ observedGeneration: 1, conditions: [] }, { conditions: [], observedGeneration: 1 }),
    ).toBe(false);
    expect(statusChanged(undefined, { observedGeneration: 1 })).toBe(true);
  });
});

describe('seedPatch', () => {
  const desired: Seed = {
    metadata: {
      name: 's',
      labels: { a: 'b' },
      ownerReferences: [{ apiVersion: 'v', kind: 'K', name: 'n', uid: 'u' }],
    },
    spec: { provider: { type: 'local', region: 'r' } },
  };
  it('sets labels, owners and spec; removes annotations only the observed Seed has; leaves finalizers alone', () => {
    const observed: Seed = {
      metadata: { name: 's', annotations: { x: 'y' }, finalizers: ['f'] },
      spec: { provider: { type: 'other', region: 'r' } },
    };
    expect(seedPatch(observed, desired)).toEqual([
      { op: 'add', path: '/metadata/labels', value: { a: 'b' } },
      { op: 'remove', path: '/metadata/annotations' },
      { op: 'add', path: '/metadata/ownerReferences', value: desired.metadata!.ownerReferences },
      { op: 'add', path: '/spec', value: desired.spec },
    ]);
  });
});

describe('managedSeedsForShoot', () => {
  const ms = (name: string, shoot: string, deleting = false, finalizers = ['gardener']): ManagedSeed => ({
    metadata: { name, namespace: 'garden', finalizers, ...(deleting ? { deletionTimestamp: 'x' } : {}) },
    spec: { shoot: { name: shoot } },
  });
  it('names the ManagedSeeds of the Shoot and every one being deleted', () => {
    const list = [
      ms('a', 'shoot-a'),
      ms('b', 'shoot-b'),
      ms('c', 'shoot-c', true),
      ms('d', 'shoot-d', true, []),
    ];
    expect(managedSeedsForShoot({ namespace: 'garden', name: 'shoot-a' }, list)).toEqual(['a', 'c']);
    expect(managedSeedsForShoot({ namespace: 'garden-p', name: 'shoot-a' }, list)).toEqual(['c']);
  });
});

describe('finalizersWith', () => {
  it.each<[string[] | undefined, boolean, string[] | undefined]>([
    [undefined, true, ['f']],
    [['g'], true, ['g', 'f']],
    [['g', 'f'], true, undefined],
    [['g', 'f'], false, ['g']],
    [['g'], false, undefined],
  ])('%j present=%s → %j', (list, present, want) => {
    expect(finalizersWith(list, 'f', present)).toEqual(want);
  });
});

describe('Events', () => {
  const seed = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Seed', name: 's', uid: 'u' };
  const warning = { type: 'Warning' as const, reason: 'R', message: 'm' };
  it('one name per object, type, reason and message; cluster-scoped objects in default', () => {
    expect(eventName(seed, warning)).toBe(eventName(seed, { ...warning }));
    expect(eventName(seed, warning)).not.toBe(eventName(seed, { ...warning, message: 'other' }));
    expect(eventName(seed, warning)).toMatch(/^s\.[0-9a-f]{16}$/);
    const o = eventObject(seed, warning, { component: 'c', now: NOW });
    expect(o).toMatchObject({
      metadata: { namespace: 'default' },
      involvedObject: { kind: 'Seed', name: 's', uid: 'u' },
      type: 'Warning',
      count: 1,
      firstTimestamp: '2024-05-01T10:00:00Z',
    });
    expect((o.involvedObject as Record<string, unknown>).namespace).toBeUndefined();
  });

  it('reads kind and target from attributes, else data', () => {
    expect(eventKind({ kind: 'Seed' })).toBe('Seed');
    expect(eventKind({ data: { kind: 'Shoot' } })).toBe('Shoot');
    expect(eventKind(null)).toBe('');
    expect(eventTarget({ target: 'managedseed' })).toBe('managedseed');
    expect(eventTarget({})).toBe('');
  });
});
