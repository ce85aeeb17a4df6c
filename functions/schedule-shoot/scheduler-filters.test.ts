import type { Seed, Shoot, Taint, Toleration } from '../../shared/api/core.js';
import { seed, shoot } from './scheduler.fixtures.js';
import {
  FILTER_STAGES,
  accessRestrictionsSupported,
  isFilterStage,
  isUsableSeed,
  matchProvider,
  taintsTolerated,
} from './scheduler-filters.js';
import { seedUsage, usageDelta, usageSeeds } from '../../shared/seedmanagement/scheduler-usage.js';

describe('isUsableSeed (upstream verifySeedReadiness table and more)', () => {
  const conditions = (overrides: Record<string, 'True' | 'False' | undefined>) => (s: Seed) => {
    const all = { GardenletReady: 'True', BackupBucketsReady: 'True', ExtensionsReady: 'True', ...overrides };
    s.status!.conditions = Object.entries(all)
      .filter(([, status]) => status !== undefined)
      .map(([type, status]) => ({ type, status: status as 'True' | 'False' }));
  };
  const backup = (s: Seed): void => {
    s.spec.backup = { provider: 'foo' };
  };
  const both =
    (...patches: ((s: Seed) => void)[]) =>
    (s: Seed) =>
      patches.forEach((p) => p(s));
  const rows: [string, Seed, boolean][] = [
    ['ready', seed(), true],
    ['GardenletReady missing', seed('s', both(backup, conditions({ GardenletReady: undefined }))), false],
    ['GardenletReady false', seed('s', both(backup, conditions({ GardenletReady: 'False' }))), false],
    [
      'BackupBucketsReady missing',
      seed('s', both(backup, conditions({ BackupBucketsReady: undefined }))),
      false,
    ],
    ['BackupBucketsReady missing, no backup', seed('s', conditions({ BackupBucketsReady: undefined })), true],
    ['BackupBucketsReady false', seed('s', both(backup, conditions({ BackupBucketsReady: 'False' }))), false],
    ['BackupBucketsReady false, no backup', seed('s', conditions({ BackupBucketsReady: 'False' })), true],
    ['ExtensionsReady missing', seed('s', both(backup, conditions({ ExtensionsReady: undefined }))), true],
    ['ExtensionsReady false', seed('s', both(backup, conditions({ ExtensionsReady: 'False' }))), true],
    ['backup null counts as none', seed('s', (s) => (s.spec.backup = null)), true],
    ['no lastOperation', seed('s', (s) => delete s.status!.lastOperation), false],
    ['no status', seed('s', (s) => delete s.status), false],
    ['invisible', seed('s', (s) => (s.spec.settings = { scheduling: { visible: false } })), false],
    ['no settings: defaulted visible', seed('s', (s) => delete s.spec.settings), true],
    ['deleting', seed('s', (s) => (s.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z')), false],
  ];
  it.each(rows)('%s', (_name, s, usable) => expect(isUsableSeed(s)).toBe(usable));
});

describe('taintsTolerated (upstream TaintsAreTolerated table)', () => {
  const check = (taints: Taint[] | undefined, tolerations: Toleration[] | undefined): boolean =>
    taintsTolerated(
      seed('s', (s) => (s.spec.taints = taints)),
      shoot((s) => (s.spec.tolerations = tolerations)),
    );
  const rows: [string, Taint[] | undefined, Toleration[] | undefined, boolean][] = [
    ['no taints', undefined, [{ key: 'foo' }], true],
    ['no tolerations', [{ key: 'foo' }], undefined, false],
    ['keys only (tolerated)', [{ key: 'foo' }], [{ key: 'foo' }], true],
    ['keys only (non-tolerated)', [{ key: 'foo' }], [{ key: 'bar' }], false],
    ['keys+values (tolerated)', [{ key: 'foo', value: 'bar' }], [{ key: 'foo', value: 'bar' }], true],
    ['keys+values (non-tolerated)', [{ key: 'foo', value: 'bar' }], [{ key: 'bar', value: 'foo' }], false],
    [
      'mixed (tolerated)',
      [{ key: 'foo' }, { key: 'bar', value: 'baz' }],
      [{ key: 'foo' }, { key: 'bar', value: 'baz' }],
      true,
    ],
    [
      'mixed (non-tolerated)',
      [{ key: 'foo' }, { key: 'bar', value: 'baz' }],
      [{ key: 'bar' }, { key: 'foo', value: 'baz' }],
      false,
    ],
    [
      'mixed, tolerations with values (tolerated)',
      [{ key: 'foo' }, { key: 'bar', value: 'baz' }],
      [
        { key: 'foo', value: 'bar' },
        { key: 'bar', value: 'baz' },
      ],
      true,
    ],
    [
      'mixed, tolerations with values (untolerated)',
      [{ key: 'foo' }, { key: 'bar', value: 'baz' }],
      [
        { key: 'foo', value: 'bar' },
        { key: 'bar', value: 'foo' },
      ],
      false,
    ],
    [
      'taints > tolerations',
      [{ key: 'foo' }, { key: 'bar', value: 'baz' }],
      [{ key: 'bar', value: 'baz' }],
      false,
    ],
    [
      'tolerations > taints',
      [{ key: 'foo' }, { key: 'bar', value: 'baz' }],
      [
        { key: 'foo', value: 'bar' },
        { key: 'bar', value: 'baz' },
        { key: 'baz', value: 'foo' },
      ],
      true,
    ],
    [
      'protected taint',
      [{ key: 'seed.gardener.cloud/protected' }],
      [{ key: 'seed.gardener.cloud/protected' }],
      true,
    ],
    [
      'duplicate taint keys need as many tolerations (upstream shortcut)',
      [{ key: 'a' }, { key: 'a' }],
      [{ key: 'a' }],
      false,
    ],
    ['empty taint value needs an empty toleration value', [{ key: 'a', value: '' }], [{ key: 'a' }], true],
    [
      'last toleration of a key wins',
      [{ key: 'a', value: 'x' }],
      [
        { key: 'a', value: 'x' },
        { key: 'a', value: 'y' },
      ],
      false,
    ],
  ];
  it.each(rows)('%s', (_name, taints, tolerations, expected) =>
    expect(check(taints, tolerations)).toBe(expected),
  );
});

describe('accessRestrictionsSupported', () => {
  const check = (offered: string[] | undefined, wanted: string[] | undefined): boolean =>
    accessRestrictionsSupported(
      seed('s', (s) => (s.spec.accessRestrictions = offered?.map((name) => ({ name })))),
      shoot((s) => (s.spec.accessRestrictions = wanted?.map((name) => ({ name })))),
    );
  const rows: [string, string[] | undefined, string[] | undefined, boolean][] = [
    ['shoot wants none', undefined, undefined, true],
    ['shoot wants none, seed offers', ['eu'], [], true],
    ['offered', ['eu', 'us'], ['eu'], true],
    ['not offered', ['us'], ['eu'], false],
    ['seed offers none', undefined, ['eu'], false],
    ['more wanted than offered (upstream shortcut)', ['eu'], ['eu', 'eu'], false],
  ];
  it.each(rows)('%s', (_name, offered, wanted, expected) => expect(check(offered, wanted)).toBe(expected));
});

describe('matchProvider', () => {
  const rows: [string, string, string[], boolean][] = [
    ['foo', 'foo', [], true],
    ['foo', 'bar', [], false],
    ['foo', 'bar', ['foo'], true],
    ['foo', 'foo', ['bar'], false],
    ['foo', 'bar', ['*'], true],
    ['baz', 'bar', ['foo', 'baz'], true],
  ];
  it.each(rows)('seed %s, shoot %s, providerTypes %p → %p', (seedType, shootType, types, expected) => {
    expect(matchProvider(seedType, shootType, types)).toBe(expected);
  });

  it('stage names', () => {
    expect(FILTER_STAGES).toHaveLength(9);
    expect(isFilterStage('zones')).toBe(true);
    expect(isFilterStage('strategy')).toBe(false);
  });
});

describe('seed usage (upstream CalculateSeedUsage table)', () => {
  const s = (spec?: string, status?: string): Shoot =>
    shoot((x) => {
      if (spec) x.spec.seedName = spec;
      if (status) x.status = { seedName: status };
    });
  const rows: [string, Shoot[], Record<string, number>][] = [
    ['no shoots', [], {}],
    ['both fields unset', [s()], {}],
    ['only spec', [s('seed')], { seed: 1 }],
    ['only status', [s(undefined, 'seed')], { seed: 1 }],
    ['both the same seed', [s('seed', 'seed')], { seed: 1 }],
    ['different seeds', [s('seed', 'seed2')], { seed: 1, seed2: 1 }],
    [
      'multiple shoots',
      [s(), s('seed', 'seed2'), s('seed2', 'seed2'), s('seed3', 'seed2'), s('seed3', 'seed4')],
      { seed: 1, seed2: 3, seed3: 2, seed4: 1 },
    ],
  ];
  it.each(rows)('%s', (_name, shoots, usage) => expect(seedUsage(shoots)).toEqual(usage));

  const deltas: [string, Shoot | undefined, Shoot | undefined, Record<string, number>][] = [
    ['add unscheduled', undefined, s(), {}],
    ['bind', s(), s('a'), { a: 1 }],
    ['migration starts', s('a', 'a'), s('b', 'a'), { b: 1 }],
    ['migration ends', s('b', 'a'), s('b', 'b'), { a: -1 }],
    ['delete mid-migration', s('b', 'a'), undefined, { a: -1, b: -1 }],
    ['no change', s('a', 'a'), s('a', 'a'), {}],
  ];
  it.each(deltas)('delta: %s', (_name, before, after, delta) =>
    expect(usageDelta(before, after)).toEqual(delta),
  );

  it('usageSeeds lists spec first', () => {
    expect(usageSeeds(s('b', 'a'))).toEqual(['b', 'a']);
    expect(usageSeeds(undefined)).toEqual([]);
  });
});
