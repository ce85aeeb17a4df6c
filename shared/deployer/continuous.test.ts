import type { DeployItem, DeployItemStatus } from '../api/landscaper.js';
import type { HookResult } from './hooks.js';
import { registerHookSetup, runHooks } from './hooks.js';
import type { ContinuousReconcileSpec } from './continuous.js';
import {
  continuousReconcileHook,
  continuousReconcileHookSetup,
  continuousReconcileProblems,
  continuousReconcileSpecOf,
  continuousReconcileWanted,
  continuousSchedule,
  decideContinuousReconcile,
  isContinuousReconcileActive,
  nextContinuousReconcile,
  startContinuousJob,
} from './continuous.js';

const ACTIVE = 'continuousreconcile.extensions.landscaper.gardener.cloud/active';
const at = (iso: string): Date => new Date(iso);
const LAST = '2024-05-01T12:00:00Z';

const succeeded: DeployItemStatus = {
  observedGeneration: 1,
  phase: 'Succeeded',
  jobID: 'j1',
  jobIDFinished: 'j1',
  lastReconcileTime: LAST,
  transitionTimes: { initTime: LAST, finishedTime: '2024-05-01T12:02:00Z' },
};

function item(opts: {
  cr?: unknown;
  status?: DeployItemStatus;
  annotations?: Record<string, string>;
  deleting?: boolean;
}): DeployItem {
  return {
    metadata: {
      name: 'di',
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
      ...(opts.deleting ? { deletionTimestamp: LAST } : {}),
    },
    spec: {
      type: 'landscaper.gardener.cloud/mock',
      config: {
        apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
        ...(opts.cr !== undefined ? { continuousReconcile: opts.cr } : {}),
      },
    },
    status: opts.status ?? succeeded,
  };
}

describe('continuousSchedule', () => {
  it.each<[string, ContinuousReconcileSpec, string, string | undefined]>([
    ['every 1h', { every: '1h' }, '2024-05-01T12:00:00Z', '2024-05-01T13:00:00.000Z'],
    [
      'every cuts the start to the second',
      { every: '10m' },
      '2024-05-01T12:00:00.700Z',
      '2024-05-01T12:10:00.000Z',
    ],
    ['every below 1s → 1s', { every: '300ms' }, '2024-05-01T12:00:00Z', '2024-05-01T12:00:01.000Z'],
    ['every whole seconds only', { every: '1.5s' }, '2024-05-01T12:00:00Z', '2024-05-01T12:00:01.000Z'],
    ['cron hourly', { cron: '0 * * * *' }, '2024-05-01T12:00:00Z', '2024-05-01T13:00:00.000Z'],
    ['cron strictly after', { cron: '*/15 * * * *' }, '2024-05-01T12:14:59Z', '2024-05-01T12:15:00.000Z'],
    ['cron descriptor', { cron: '@daily' }, '2024-05-01T12:00:00Z', '2024-05-02T00:00:00.000Z'],
    ['cron @every', { cron: '@every 30m' }, '2024-05-01T12:00:00Z', '2024-05-01T12:30:00.000Z'],
    [
      'cron day-of-month OR day-of-week (robfig)',
      { cron: '0 0 13 * 5' },
      '2024-05-01T12:00:00Z',
      '2024-05-03T00:00:00.000Z',
    ],
    [
      'cron with CRON_TZ',
      { cron: 'CRON_TZ=Europe/Berlin 0 6 * * *' },
      '2024-05-01T12:00:00Z',
      '2024-05-02T04:00:00.000Z',
    ],
    [
      'cron wins over every',
      { cron: '0 0 * * *', every: '1m' },
      '2024-05-01T12:00:00Z',
      '2024-05-02T00:00:00.000Z',
    ],
  ])('%s', (_name, spec, from, expected) => {
    expect(continuousSchedule(spec)(at(from))?.toISOString()).toBe(expected);
  });
});

describe('continuousReconcileProblems', () => {
  it.each<[unknown, string[]]>([
    [undefined, []],
    [null, []],
    [{ every: '1h' }, []],
    [{ cron: '*/5 * * * *' }, []],
    [{}, ['exactly one of cron and every must be specified']],
    [{ cron: '', every: '' }, ['exactly one of cron and every must be specified']],
    [{ cron: '* * * * *', every: '1h' }, ['exactly one of cron and every must be specified']],
    [{ every: 5 }, ['every: must be a string', 'exactly one of cron and every must be specified']],
    [{ every: '0s' }, ['every: specified duration has to be greater than zero']],
    [{ every: '-1h' }, ['every: specified duration has to be greater than zero']],
    [{ every: 'hourly' }, ['invalid duration "hourly": expected a number']],
    ['1h', ['must be an object with cron or every']],
  ])('%j → %j', (value, expected) => {
    expect(continuousReconcileProblems(value)).toEqual(expected);
  });

  it.each([['* * * * * *'], ['bogus'], ['61 * * * *']])('refuses cron %j', (cron) => {
    expect(continuousReconcileProblems({ cron })).toHaveLength(1);
  });
});

describe('continuousReconcileSpecOf / isContinuousReconcileActive', () => {
  it.each<[string, DeployItem, ContinuousReconcileSpec | undefined]>([
    ['configured', item({ cr: { every: '1h' } }), { every: '1h' }],
    ['not configured', item({}), undefined],
    ['invalid', item({ cr: { every: 'x' } }), undefined],
  ])('%s', (_name, di, expected) => {
    expect(continuousReconcileSpecOf(di)).toEqual(expected);
  });

  it.each<[Record<string, string> | undefined, boolean]>([
    [undefined, true],
    [{ [ACTIVE]: 'true' }, true],
    [{ [ACTIVE]: 'False' }, true],
    [{ [ACTIVE]: 'false' }, false],
  ])('annotations %j → active %s', (annotations, expected) => {
    expect(isContinuousReconcileActive(item({ annotations }))).toBe(expected);
  });
});

describe('nextContinuousReconcile', () => {
  it.each<[string, DeployItemStatus, string | undefined]>([
    ['from lastReconcileTime', succeeded, '2024-05-01T13:00:00.000Z'],
    ['else from finishedTime', { ...succeeded, lastReconcileTime: undefined }, '2024-05-01T13:02:00.000Z'],
    ['neither', { observedGeneration: 0 }, undefined],
  ])('%s', (_name, status, expected) => {
    expect(nextContinuousReconcile(item({ status }), { every: '1h' })?.toISOString()).toBe(expected);
  });
});

describe('continuousReconcileWanted: whether the hook has an item to decide (the check sends finished jobs only then)', () => {
  const hourly = { every: '1h' };
  it.each<[string, DeployItem, boolean]>([
    ['Succeeded, finished, a valid spec', item({ cr: hourly }), true],
    ['a cron spec', item({ cr: { cron: '0 */6 * * *' } }), true],
    ['not configured', item({}), false],
    ['an invalid spec', item({ cr: { every: 'soon' } }), false],
    ['switched off by annotation', item({ cr: hourly, annotations: { [ACTIVE]: 'false' } }), false],
    ['deleting', item({ cr: hourly, deleting: true }), false],
    ['Failed', item({ cr: hourly, status: { ...succeeded, phase: 'Failed' } }), false],
    ['its job running', item({ cr: hourly, status: { ...succeeded, jobID: 'j2' } }), false],
  ])('%s → %s', (_name, di, wanted) => {
    expect(continuousReconcileWanted(di)).toBe(wanted);
  });
});

describe('decideContinuousReconcile (ShouldReconcile hook)', () => {
  const hourly = { every: '1h' };
  const due: HookResult = { abortReconcile: false, requeue: false, requeueAfterMs: 3_600_000 };
  it.each<[string, DeployItem | undefined, string, HookResult | undefined]>([
    ['no item (Start)', undefined, '2024-05-01T13:00:00Z', undefined],
    ['not configured', item({}), '2024-05-01T13:00:00Z', undefined],
    [
      'switched off by annotation',
      item({ cr: hourly, annotations: { [ACTIVE]: 'false' } }),
      '2024-05-01T14:00:00Z',
      undefined,
    ],
    ['deleting', item({ cr: hourly, deleting: true }), '2024-05-01T14:00:00Z', undefined],
    [
      'Failed item',
      item({ cr: hourly, status: { ...succeeded, phase: 'Failed' } }),
      '2024-05-01T14:00:00Z',
      undefined,
    ],
    [
      'job running',
      item({ cr: hourly, status: { ...succeeded, jobID: 'j2' } }),
      '2024-05-01T14:00:00Z',
      undefined,
    ],
    [
      'not due yet: abort, requeue at due',
      item({ cr: hourly }),
      '2024-05-01T12:20:00Z',
      { abortReconcile: true, requeue: false, requeueAfterMs: 2_400_000 },
    ],
    ['due exactly now', item({ cr: hourly }), '2024-05-01T13:00:00Z', due],
    ['overdue', item({ cr: hourly }), '2024-05-01T15:00:00Z', due],
    [
      'due within rounding (upstream rounds to seconds)',
      item({ cr: hourly }),
      '2024-05-01T12:59:59.600Z',
      due,
    ],
    [
      'cron: not due',
      item({ cr: { cron: '0 */6 * * *' } }),
      '2024-05-01T17:00:00Z',
      { abortReconcile: true, requeue: false, requeueAfterMs: 3_600_000 },
    ],
    [
      'cron: due, requeue at the following run',
      item({ cr: { cron: '0 */6 * * *' } }),
      '2024-05-01T19:00:00Z',
      { abortReconcile: false, requeue: false, requeueAfterMs: 5 * 3_600_000 },
    ],
  ])('%s', (_name, di, now, expected) => {
    expect(decideContinuousReconcile(di, at(now))).toEqual(expected);
  });

  it.each<[string, ContinuousReconcileSpec | undefined, HookResult | undefined]>([
    [
      'spec from the getter',
      { every: '10m' },
      { abortReconcile: false, requeue: false, requeueAfterMs: 600_000 },
    ],
    ['getter says not configured', undefined, undefined],
  ])('custom spec getter: %s', (_name, spec, expected) => {
    expect(
      continuousReconcileHook(() => spec)(
        { item: item({}), now: at('2024-05-01T13:00:00Z') },
        'ShouldReconcile',
      ),
    ).toEqual(expected);
  });

  it('as a registered ShouldReconcile hook: "reconcile" wins over a nil hook and an abort (AND)', async () => {
    let hooks = registerHookSetup({}, continuousReconcileHookSetup());
    hooks = registerHookSetup(hooks, {
      hook: () => ({ abortReconcile: true, requeue: false, requeueAfterMs: 0 }),
      types: ['ShouldReconcile'],
    });
    expect(continuousReconcileHookSetup().types).toEqual(['ShouldReconcile']);
    await expect(
      runHooks(hooks, 'ShouldReconcile', {
        item: item({ cr: { every: '1h' } }),
        now: at('2024-05-01T13:00:00Z'),
      }),
    ).resolves.toEqual({
      abortReconcile: false,
      requeue: false,
      requeueAfterMs: 3_600_000,
    });
  });
});

describe('startContinuousJob', () => {
  it.each<[string, DeployItemStatus, DeployItemStatus | undefined]>([
    [
      'finished: new job with triggerTime',
      succeeded,
      {
        ...succeeded,
        jobID: 'next',
        jobIDGenerationTime: '2024-05-01T13:00:00Z',
        transitionTimes: { ...succeeded.transitionTimes, triggerTime: '2024-05-01T13:00:00Z' },
      },
    ],
    ['still running: nothing', { ...succeeded, jobID: 'j2' }, undefined],
  ])('%s', (_name, status, expected) => {
    const di = item({ status });
    const before = structuredClone(di);
    expect(startContinuousJob(di, at('2024-05-01T13:00:00.400Z'), () => 'next')).toEqual(expected);
    expect(di).toEqual(before);
  });
});
