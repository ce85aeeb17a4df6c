import type { CloudProfile, Seed, Shoot } from '../../shared/api/core.js';
import { intIn, pickOf, prng, type Rand } from '../../shared/random/index.js';
import { decideSchedule, type SchedulerConfig } from './scheduler.js';
import { fastPlan, seedIndex, type PlanInput } from './scheduler-fast.js';
import { decideReadingCounts } from './scheduler-counts.js';
import { cloudProfile, input, outcome, seed, shoot } from './scheduler.fixtures.js';

const PROVIDERS = ['a', 'b'];
const REGIONS = ['r1', 'r2', 'r3'];

const chance = (rand: Rand, p: number): boolean => rand() < p;

function randomSeed(rand: Rand, i: number): Seed {
  return seed(`seed-${i.toString().padStart(2, '0')}`, (s) => {
    s.spec.provider = { type: pickOf(rand, PROVIDERS), region: pickOf(rand, REGIONS) };
    s.metadata = { ...s.metadata, labels: { env: pickOf(rand, ['prod', 'canary']) } };
    if (chance(rand, 0.6)) s.spec.provider.zones = ['z1', 'z2', 'z3'].slice(0, intIn(rand, 1, 3));
    if (chance(rand, 0.1)) s.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    if (chance(rand, 0.1)) s.spec.settings = { scheduling: { visible: false } };
    if (chance(rand, 0.1)) s.status!.conditions = [{ type: 'GardenletReady', status: 'False' }];
    if (chance(rand, 0.15)) s.spec.taints = [{ key: 'dedicated', value: pickOf(rand, ['x', 'y']) }];
    if (chance(rand, 0.3)) s.spec.accessRestrictions = [{ name: 'eu-access-only' }];
    if (chance(rand, 0.1))
      s.metadata.annotations = { 'shoot.gardener.cloud/emergency-stop-reconciliations': 'true' };
    if (chance(rand, 0.1)) s.spec.settings = { ...s.spec.settings, shootDNS: { enabled: false } };
    if (chance(rand, 0.1)) s.spec.networks = { pods: '2001:db8::/64', services: '10.2.0.0/16' };
    if (chance(rand, 0.3)) s.spec.dns = { defaults: [{ type: 'aws-route53', domain: 'example.com' }] };
    const allocatable = pickOf(rand, [undefined, '0', '1', '2', '3', '5', 'bad']);
    if (allocatable !== undefined) s.status!.allocatable = { shoots: allocatable };
  });
}

function randomShoot(rand: Rand): Shoot {
  return shoot((s) => {
    s.spec.provider.type = pickOf(rand, PROVIDERS);
    s.spec.region = pickOf(rand, [...REGIONS, 'r4']);
    if (chance(rand, 0.2)) s.spec.purpose = 'testing';
    if (chance(rand, 0.15)) s.spec.seedSelector = { matchLabels: { env: 'prod' } };
    if (chance(rand, 0.03))
      s.spec.seedSelector = { matchExpressions: [{ key: 'env', operator: 'Bogus', values: ['x'] }] };
    if (chance(rand, 0.2)) s.spec.tolerations = [{ key: 'dedicated', value: pickOf(rand, ['x', 'y']) }];
    if (chance(rand, 0.2)) s.spec.controlPlane = { highAvailability: { failureTolerance: { type: 'zone' } } };
    if (chance(rand, 0.15)) s.spec.accessRestrictions = [{ name: 'eu-access-only' }];
    if (chance(rand, 0.1)) s.spec.dns = { providers: [{ type: 'aws-route53' }] };
    if (chance(rand, 0.08))
      s.spec.dns = {
        domain: pickOf(rand, ['shoot.project.example.com', 'other.project.example.com', 'x.custom.org']),
      };
    if (chance(rand, 0.1))
      s.spec.networking = { type: 'calico', pods: '2001:db8::/64', ipFamilies: ['IPv6'] };
  });
}

function randomProfile(rand: Rand): CloudProfile {
  return cloudProfile((c) => {
    const kind = intIn(rand, 0, 3);
    if (kind === 1) c.spec.seedSelector = { providerTypes: ['*'] };
    if (kind === 2) c.spec.seedSelector = { providerTypes: ['b'] };
    if (kind === 3)
      c.spec.seedSelector = { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['canary'] }] };
  });
}

function randomConfig(rand: Rand): SchedulerConfig {
  const k = intIn(rand, 0, 9);
  if (k === 0) return { candidateDeterminationStrategy: 'MinimalDistance' };
  if (k === 1) return { scoring: { rules: [{ name: 'SeedResourcesLeastAllocated', weight: 1 }] } };
  return {};
}

function randomUsage(rand: Rand, seeds: readonly Seed[]): Record<string, number> {
  const usage: Record<string, number> = {};
  for (const s of seeds) if (chance(rand, 0.7)) usage[s.metadata!.name!] = intIn(rand, 0, 4);
  return usage;
}

/** countsOf over `usage`, recording the seeds asked for. */
function reader(usage: Record<string, number>, asked: string[][]) {
  return (names: readonly string[]): Promise<Record<string, number>> => {
    asked.push([...names]);
    return Promise.resolve(Object.fromEntries(names.map((n) => [n, usage[n] ?? 0])));
  };
}

describe('decideReadingCounts: the same decision as decideSchedule with every count', () => {
  it('agrees on 3,000 random worlds (every stage failing; fast path, failure pass and full decision)', async () => {
    const rand = prng(16);
    const paths = { fast: 0, failure: 0, full: 0 };
    const outcomes = new Set<string>();
    for (let n = 0; n < 3000; n++) {
      const seeds = Array.from({ length: intIn(rand, 0, 9) }, (_, i) => randomSeed(rand, i));
      const usage = randomUsage(rand, seeds);
      const planInput: PlanInput = {
        shoot: randomShoot(rand),
        seeds,
        cloudProfile: randomProfile(rand),
        config: randomConfig(rand),
        projectName: 'project',
      };
      const asked: string[][] = [];
      const got = await decideReadingCounts(planInput, reader(usage, asked));
      const want = decideSchedule({ ...planInput, usage });
      expect(got).toEqual(want);
      const plan = fastPlan(planInput);
      if (plan && plan.names.length > 0 && plan.decide(usage)) paths.fast++;
      else if (plan) paths.failure++;
      else paths.full++;
      outcomes.add(want.ok ? 'ok' : want.stage);
    }
    // the worlds reach both paths and every outcome the decision has
    expect(paths.fast).toBeGreaterThan(200);
    expect(paths.failure).toBeGreaterThan(300);
    expect(paths.full).toBeGreaterThan(100);
    expect([...outcomes].sort()).toEqual(
      [
        'ok',
        'usable-seeds',
        'cloud-profile-seed-selector',
        'shoot-seed-selector',
        'provider',
        'zones',
        'access-restrictions',
        'domain',
        'emergency-stop',
        'candidates',
        'strategy',
      ].sort(),
    );
  });
});

describe('fastPlan', () => {
  const seeds = [
    seed('a-r1-1'),
    seed('a-r2-1', (s) => (s.spec.provider.region = 'asia')),
    seed('b-europe-1', (s) => (s.spec.provider.type = 'bar')),
    seed('a-r1-2', (s) => (s.status!.allocatable = { shoots: '1' })),
    seed('a-r1-3'),
  ];

  it("reads the counts of the shoot's region's fitting seeds only, and picks the fewest (first on a tie)", async () => {
    const asked: string[][] = [];
    const usage = { 'a-r1-1': 2, 'a-r1-2': 0, 'a-r1-3': 1, 'a-r2-1': 0, 'b-europe-1': 0 };
    const decision = await decideReadingCounts(input({ seeds }), reader(usage, asked));
    expect(outcome(decision)).toBe('a-r1-2');
    expect(asked).toEqual([['a-r1-1', 'a-r1-2', 'a-r1-3']]);
    expect(decision.ok && decision.candidates).toEqual(['a-r1-1', 'a-r1-2', 'a-r1-3']);
  });

  it('a full region: another region has an unlimited seed, so the strategy fails, no more counts read', async () => {
    const only = [seeds[1], seeds[2], seeds[3]];
    const asked: string[][] = [];
    const usage = { 'a-r1-2': 1 };
    const decision = await decideReadingCounts(input({ seeds: only }), reader(usage, asked));
    expect(decision).toEqual(decideSchedule({ ...input({ seeds: only }), usage }));
    expect(outcome(decision)).toBe(
      "strategy: no matching seed candidate found for Configuration (Cloud Profile 'cloudprofile-1', Region 'europe', SeedDeterminationStrategy 'SameRegion')",
    );
    expect(asked).toEqual([['a-r1-2']]);
  });

  it('a full landscape: stage 9 fails listing every problem (its counts read)', async () => {
    const only = [seeds[2], seeds[3]];
    const asked: string[][] = [];
    const usage = { 'a-r1-2': 1 };
    const decision = await decideReadingCounts(input({ seeds: only }), reader(usage, asked));
    expect(decision).toEqual(decideSchedule({ ...input({ seeds: only }), usage }));
    expect(outcome(decision)).toBe(
      'candidates: 0/1 seed cluster candidate(s) are eligible for scheduling: {a-r1-2 => seed does not have available capacity for shoots}',
    );
    expect(asked).toEqual([['a-r1-2'], ['a-r1-2'], ['a-r1-2']]);
  });

  it('does not apply to scoring, MinimalDistance or a selector that does not convert', () => {
    const base = input({ seeds });
    expect(
      fastPlan({ ...base, config: { scoring: { rules: [{ name: 'MinimalDistance', weight: 1 }] } } }),
    ).toBeUndefined();
    expect(
      fastPlan({ ...base, config: { candidateDeterminationStrategy: 'MinimalDistance' } }),
    ).toBeUndefined();
    const bogus = shoot(
      (s) => (s.spec.seedSelector = { matchExpressions: [{ key: 'k', operator: 'Bogus', values: [] }] }),
    );
    expect(fastPlan({ ...base, shoot: bogus })).toBeUndefined();
    // a testing shoot takes any region of its provider, whatever the strategy
    const testing = shoot((s) => (s.spec.purpose = 'testing'));
    const plan = fastPlan({
      ...base,
      shoot: testing,
      config: { candidateDeterminationStrategy: 'MinimalDistance' },
    });
    expect(plan?.names).toEqual(['a-r1-1', 'a-r2-1', 'a-r1-2', 'a-r1-3']);
  });

  it('a managed domain keeps the seeds of its default domain (any seed passing stages 1–6 decides)', () => {
    const managed = seed('z-other-region', (s) => {
      s.spec.provider.region = 'asia';
      s.spec.dns = { defaults: [{ type: 'aws-route53', domain: 'example.com' }] };
    });
    const withDefault = seed(
      'a-r1-4',
      (s) => (s.spec.dns = { defaults: [{ type: 'aws-route53', domain: 'example.com' }] }),
    );
    const base = input({ seeds: [...seeds, withDefault, managed], projectName: 'project' });
    const named = (domain: string): string[] | undefined =>
      fastPlan({ ...base, shoot: shoot((s) => (s.spec.dns = { domain })) })?.names;
    expect(named('shoot.project.example.com')).toEqual(['a-r1-4']);
    expect(named('other.project.example.com')).toEqual([]);
    expect(named('shoot.project.custom.org')).toEqual(['a-r1-1', 'a-r1-2', 'a-r1-3', 'a-r1-4']);
    // the only seed with the default is invisible: the domain is custom for the decision
    const hidden = seed('a-r1-4', (s) => {
      s.spec.dns = { defaults: [{ type: 'aws-route53', domain: 'example.com' }] };
      s.spec.settings = { scheduling: { visible: false } };
    });
    const plan = fastPlan({
      ...input({ seeds: [...seeds, hidden], projectName: 'project' }),
      shoot: shoot((s) => (s.spec.dns = { domain: 'other.project.example.com' })),
    });
    expect(plan?.names).toEqual(['a-r1-1', 'a-r1-2', 'a-r1-3']);
  });

  it('indexes a seed list once; pools hold the seeds that can take a shoot at all', () => {
    const more = [
      ...seeds,
      seed('a-r1-full', (s) => (s.status!.allocatable = { shoots: '0' })),
      seed('a-r1-bad', (s) => (s.status!.allocatable = { shoots: 'x' })),
      seed('a-r1-stopped', (s) => {
        s.metadata!.annotations = { 'shoot.gardener.cloud/emergency-stop-reconciliations': 'true' };
      }),
      seed('a-r1-unready', (s) => (s.status!.conditions = [])),
    ];
    expect(seedIndex(more)).toBe(seedIndex(more));
    const pool = seedIndex(more).pools.get('foo\0europe') ?? [];
    expect(pool.map((c) => [c.name, c.capacity])).toEqual([
      ['a-r1-1', undefined],
      ['a-r1-2', 1],
      ['a-r1-3', undefined],
    ]);
  });
});
