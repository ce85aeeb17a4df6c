import {
  decideReadiness,
  decideRecovery,
  isCrashLooping,
  isSliceReady,
  nextSweepAt,
  podsToWeed,
  resweepInterval,
  serviceOfSlice,
  type PodLike,
  type RecoveryAction,
  type RememberedReadiness,
} from './decide.js';

const slice = (...ready: Array<boolean | null | undefined>): Parameters<typeof isSliceReady>[0] => ({
  metadata: { name: 's', namespace: 'ns', labels: { 'kubernetes.io/service-name': 'kube-apiserver' } },
  endpoints: ready.map((r) => ({ conditions: { ready: r } })),
});

describe('readiness', () => {
  it.each([
    [[true], true],
    [[true, true], true],
    [[true, false], false],
    [[null], false],
    [[undefined], false],
    [[], false],
  ])('EndpointSlice with ready %j → %s', (ready, want) => {
    expect(isSliceReady(slice(...ready))).toBe(want);
  });

  it('names the service of a slice by its label', () => {
    expect(serviceOfSlice(slice(true))).toBe('kube-apiserver');
    expect(serviceOfSlice({ metadata: {} })).toBeUndefined();
  });
});

describe('decideRecovery', () => {
  it.each<[RecoveryAction, boolean | undefined, boolean, boolean]>([
    ['add', undefined, true, true],
    ['add', undefined, false, false],
    ['add', true, true, true],
    ['update', false, true, true],
    ['update', true, true, false],
    ['update', undefined, true, false],
    ['update', false, false, false],
    ['update', true, false, false],
    ['delete', false, true, false],
    ['resync', false, true, false],
  ])('%s, previously %s, now ready %s → %s', (action, previous, ready, want) => {
    expect(decideRecovery(action, previous, ready)).toBe(want);
  });
});

describe('decideReadiness (any delivery order)', () => {
  type R = RememberedReadiness | undefined;
  const r = (rv: number | undefined, ready: boolean, handled: boolean): RememberedReadiness => ({
    rv,
    ready,
    handled,
  });
  it.each<[string, R, RecoveryAction, number | undefined, boolean, boolean, R | null | 'unchanged']>([
    ['first add, not ready', undefined, 'add', 5, false, false, r(5, false, false)],
    ['first add, ready (upstream: initial list)', undefined, 'add', 5, true, true, r(5, true, true)],
    ['in order: not ready → ready', r(5, false, false), 'update', 9, true, true, r(9, true, true)],
    [
      'ready, nothing remembered (Redis lost it): as an add',
      undefined,
      'update',
      9,
      true,
      true,
      r(9, true, true),
    ],
    [
      'reordered: ready first, then the older not-ready proves it',
      r(9, true, false),
      'add',
      5,
      false,
      true,
      r(9, true, true),
    ],
    ['reordered, already handled: nothing', r(9, true, true), 'add', 5, false, false, 'unchanged'],
    ['an older ready changes nothing', r(9, true, false), 'update', 7, true, false, 'unchanged'],
    [
      'an older not-ready after a not-ready: nothing',
      r(9, false, false),
      'update',
      7,
      false,
      false,
      'unchanged',
    ],
    ['the same state again: nothing', r(9, true, false), 'update', 9, true, false, 'unchanged'],
    ['ready → not ready', r(9, true, true), 'update', 12, false, false, r(12, false, false)],
    ['delete forgets', r(9, true, true), 'delete', 13, false, false, null],
    [
      'no resourceVersions: in arrival order',
      r(undefined, false, false),
      'update',
      undefined,
      true,
      true,
      r(undefined, true, true),
    ],
  ])('%s', (_name, remembered, action, rv, ready, recovery, next) => {
    const d = decideReadiness(remembered, { action, rv, ready });
    expect(d.recovery).toBe(recovery);
    if (next === 'unchanged') expect(d.next).toBeUndefined();
    else expect(d.next).toEqual(next);
  });
});

const pod = (
  name: string,
  labels: Record<string, string>,
  reason?: string,
  extra: Partial<PodLike['metadata']> = {},
  init = false,
): PodLike & { metadata: { name: string } } => {
  const statuses = [{ state: reason ? { waiting: { reason } } : { running: {} } }];
  return {
    metadata: { name, namespace: 'ns', labels, ...extra },
    status: init ? { initContainerStatuses: statuses } : { containerStatuses: statuses },
  };
};

describe('crash-looping pods', () => {
  it.each([
    ['CrashLoopBackOff', pod('a', {}, 'CrashLoopBackOff'), true],
    ['an init container in CrashLoopBackOff', pod('a', {}, 'CrashLoopBackOff', {}, true), true],
    ['ImagePullBackOff', pod('a', {}, 'ImagePullBackOff'), false],
    ['running', pod('a', {}), false],
    ['being deleted', pod('a', {}, 'CrashLoopBackOff', { deletionTimestamp: '2026-01-01T00:00:00Z' }), false],
    ['no status', { metadata: { name: 'a' } }, false],
  ])('%s → %s', (_what, p, want) => {
    expect(isCrashLooping(p)).toBe(want);
  });

  it('weeds only crash-looping pods matching any of the selectors', () => {
    const pods = [
      pod('kcm', { role: 'controller-manager' }, 'CrashLoopBackOff'),
      pod('other', { role: 'other' }, 'CrashLoopBackOff'),
      pod('ok', { role: 'controller-manager' }),
      pod('mcm', { app: 'mcm' }, 'CrashLoopBackOff'),
    ];
    const selected = podsToWeed(pods, [
      { matchLabels: { role: 'controller-manager' } },
      { matchExpressions: [{ key: 'app', operator: 'In', values: ['mcm'] }] },
    ]);
    expect(selected.map((p) => p.metadata.name)).toEqual(['kcm', 'mcm']);
  });
});

describe('sweeping an open window again (listing, no Pod events)', () => {
  it.each([
    [5 * 60_000, 30_000],
    [60_000, 6_000],
    [6_000, 1_000],
    [500, 1_000],
  ])('watchDuration %i ms → every %i ms', (watch, want) => {
    expect(resweepInterval(watch)).toBe(want);
  });

  it.each<[string, number, number | undefined, number | undefined]>([
    ['open: a tenth of the window later', 1_000, 60_000, 7_000],
    ['no window', 1_000, undefined, undefined],
    ['closed', 1_000, 1_000, undefined],
    ['closes before the next sweep', 1_000, 6_000, undefined],
  ])('%s', (_what, now, until, want) => {
    expect(nextSweepAt(now, until, 60_000)).toBe(want);
  });
});
