import type { Seed, Shoot } from '../../shared/api/core.js';
import type { RegionConfigMap } from './distance.js';
import { CLOUD_PROFILE, input, outcome, seed, shoot } from './scheduler.fixtures.js';
import { decideSchedule } from './scheduler.js';
import {
  bestScoreIndex,
  isScoringRuleName,
  scoreSeeds,
  validateScoring,
  type ScoringConfig,
  type SeedScore,
} from './scheduler-scoring.js';

const at = (name: string, region: string, allocatable?: string, type?: string): Seed =>
  seed(name, (s) => {
    s.spec.provider.region = region;
    if (type) s.spec.provider.type = type;
    if (allocatable !== undefined) s.status!.allocatable = { shoots: allocatable };
  });
const shootIn = (region: string, purpose?: 'testing'): Shoot =>
  shoot((s) => {
    s.spec.region = region;
    if (purpose) s.spec.purpose = purpose;
  });
const distance: ScoringConfig = { rules: [{ name: 'MinimalDistance', weight: 1 }] };
const least: ScoringConfig = { rules: [{ name: 'SeedResourcesLeastAllocated', weight: 1 }] };
const totals = (scores: SeedScore[]): Record<string, number> =>
  Object.fromEntries(scores.map((s) => [s.seed, s.total]));

describe('scoreSeeds: MinimalDistance', () => {
  const rows: [string, Seed[], Shoot, Map<string, number> | undefined, Record<string, number>][] = [
    [
      'Levenshtein, min-max normalised',
      [at('same', 'europe-west1'), at('near', 'europe-east1'), at('far', 'asia-south1')],
      shootIn('europe-west1'),
      undefined,
      // distances 0, 2, 14
      { same: 100, near: 85, far: 0 },
    ],
    ['all equal → 100', [at('a', 'r'), at('b', 'r')], shootIn('r'), undefined, { a: 100, b: 100 }],
    [
      'provider difference counts',
      [at('aws', 'r', undefined, 'aws'), at('foo', 'r')],
      shootIn('r'),
      undefined,
      { aws: 0, foo: 100 },
    ],
    [
      'region config when it lists a candidate; unlisted scores 0',
      [at('a', 'r1'), at('b', 'r2'), at('c', 'r3')],
      shootIn('r0'),
      new Map([
        ['r1', 10],
        ['r2', 30],
        ['r0', 0],
      ]),
      { a: 100, b: 0, c: 0 },
    ],
    [
      'region config lists no candidate: Levenshtein',
      [at('a', 'europe-west1'), at('b', 'europe-east1')],
      shootIn('europe-west1'),
      new Map([['us', 1]]),
      { a: 100, b: 0 },
    ],
    [
      'testing purpose ignores the region, not the provider',
      [at('x', 'asia'), at('y', 'europe'), at('z', 'europe', undefined, 'other')],
      shootIn('europe', 'testing'),
      undefined,
      { x: 100, y: 100, z: 0 },
    ],
  ];
  it.each(rows)('%s', (_name, seeds, s, regionDistances, expected) => {
    expect(totals(scoreSeeds({ seeds, shoot: s, usage: {}, regionDistances }, distance))).toEqual(expected);
  });
});

describe('scoreSeeds: SeedResourcesLeastAllocated', () => {
  const rows: [string, Seed, number, number][] = [
    ['empty seed of 10', at('s', 'r', '10'), 0, 90],
    ['half used', at('s', 'r', '10'), 5, 40],
    ['last slot', at('s', 'r', '10'), 9, 0],
    ['rounded down', at('s', 'r', '3'), 0, 66],
    ['no allocatable', at('s', 'r'), 0, 0],
    ['allocatable 0', at('s', 'r', '0'), 0, 0],
    ['canonical quantity', at('s', 'r', '1k'), 499, 50],
  ];
  it.each(rows)('%s', (_name, s, used, score) => {
    const [result] = scoreSeeds({ seeds: [s], shoot: shootIn('r'), usage: { s: used } }, least);
    expect(result.rules.SeedResourcesLeastAllocated).toBe(score);
    expect(result.usage).toBe(used);
  });
});

describe('scoreSeeds: weights and pick', () => {
  it('sums weighted rule scores', () => {
    const seeds = [at('near', 'europe-west1', '10'), at('far', 'asia-south1', '100')];
    const config: ScoringConfig = {
      rules: [
        { name: 'MinimalDistance', weight: 1 },
        { name: 'SeedResourcesLeastAllocated', weight: 3 },
      ],
    };
    const scores = scoreSeeds({ seeds, shoot: shootIn('europe-west1'), usage: { near: 4, far: 0 } }, config);
    expect(scores).toEqual([
      {
        seed: 'near',
        total: 100 + 3 * 50,
        usage: 4,
        rules: { MinimalDistance: 100, SeedResourcesLeastAllocated: 50 },
      },
      {
        seed: 'far',
        total: 0 + 3 * 99,
        usage: 0,
        rules: { MinimalDistance: 0, SeedResourcesLeastAllocated: 99 },
      },
    ]);
    expect(bestScoreIndex(scores)).toBe(1);
  });

  const score = (seed: string, total: number, usage: number): SeedScore => ({
    seed,
    total,
    usage,
    rules: {},
  });
  const picks: [string, SeedScore[], number][] = [
    ['highest total', [score('a', 1, 0), score('b', 2, 9)], 1],
    ['tie: fewer shoots', [score('a', 5, 3), score('b', 5, 1)], 1],
    ['tie on both: first in list', [score('a', 5, 1), score('b', 5, 1)], 0],
    ['nothing to pick', [], -1],
  ];
  it.each(picks)('%s', (_name, scores, index) => expect(bestScoreIndex(scores)).toBe(index));
});

describe('validateScoring', () => {
  const rows: [string, ScoringConfig, string[]][] = [
    ['valid', { rules: [{ name: 'MinimalDistance', weight: 2 }] }, []],
    [
      'unknown rule',
      { rules: [{ name: 'MostAllocated' as 'MinimalDistance', weight: 1 }] },
      [
        'scoring.rules[0].name: Unsupported value: "MostAllocated": supported values: MinimalDistance, SeedResourcesLeastAllocated',
      ],
    ],
    [
      'duplicate rule',
      {
        rules: [
          { name: 'MinimalDistance', weight: 1 },
          { name: 'MinimalDistance', weight: 1 },
        ],
      },
      ['scoring.rules[1].name: Duplicate value: "MinimalDistance"'],
    ],
    [
      'weights',
      {
        rules: [
          { name: 'MinimalDistance', weight: 0 },
          { name: 'SeedResourcesLeastAllocated', weight: 1.5 },
        ],
      },
      [
        'scoring.rules[0].weight: Invalid value: 0: must be a positive integer',
        'scoring.rules[1].weight: Invalid value: 1.5: must be a positive integer',
      ],
    ],
  ];
  it.each(rows)('%s', (_name, config, problems) => expect(validateScoring(config)).toEqual(problems));

  it('rule names', () => {
    expect(isScoringRuleName('MinimalDistance')).toBe(true);
    expect(isScoringRuleName('x')).toBe(false);
  });
});

describe('decideSchedule with scoring', () => {
  const regionConfig: RegionConfigMap = {
    metadata: {
      name: 'regions',
      namespace: 'garden',
      labels: { 'scheduling.gardener.cloud/purpose': 'region-config' },
      annotations: { 'scheduling.gardener.cloud/cloudprofiles': CLOUD_PROFILE },
    },
    data: { 'europe-west1': 'asia-south1: 1\neurope-west1: 5', bad: '[' },
  };
  const seeds = [at('near', 'europe-west1', '10'), at('far', 'asia-south1', '100')];

  it('replaces the strategy: a seed in another region can win', () => {
    const decision = decideSchedule(
      input({ seeds, shoot: shootIn('europe-west1'), usage: { near: 9 }, config: { scoring: least } }),
    );
    expect(decision).toMatchObject({ ok: true, seedName: 'far', candidates: ['near', 'far'] });
    expect(decision.ok && decision.scores?.map((s) => s.seed)).toEqual(['near', 'far']);
  });

  it('uses the region config for MinimalDistance', () => {
    const decision = decideSchedule(
      input({
        seeds,
        shoot: shootIn('europe-west1'),
        regionConfigs: [regionConfig],
        config: { scoring: distance },
      }),
    );
    expect(outcome(decision)).toBe('far');
  });

  it('a malformed region config fails only when MinimalDistance is scored', () => {
    const bad = input({
      seeds,
      shoot: shootIn('bad'),
      regionConfigs: [regionConfig],
      config: { scoring: distance },
    });
    expect(outcome(decideSchedule(bad))).toMatch(
      /^strategy: failed to determine seed candidates\. Wrong format/,
    );
    expect(outcome(decideSchedule({ ...bad, config: { scoring: least } }))).toBe('far');
  });

  it('filters still apply first', () => {
    const decision = decideSchedule(
      input({ seeds: [at('full', 'europe', '1')], usage: { full: 1 }, config: { scoring: least } }),
    );
    expect(outcome(decision)).toBe(
      'candidates: 0/1 seed cluster candidate(s) are eligible for scheduling: {full => seed does not have available capacity for shoots}',
    );
  });

  it('no rules: the strategy decides', () => {
    const decision = decideSchedule(
      input({ seeds, shoot: shootIn('europe-west1'), config: { scoring: { rules: [] } } }),
    );
    expect(outcome(decision)).toBe('near');
  });

  it('an invalid scoring config fails before the filters', () => {
    const decision = decideSchedule(
      input({ seeds: [], config: { scoring: { rules: [{ name: 'MinimalDistance', weight: -1 }] } } }),
    );
    expect(outcome(decision)).toBe(
      'config: invalid scheduler configuration: scoring.rules[0].weight: Invalid value: -1: must be a positive integer',
    );
  });
});
