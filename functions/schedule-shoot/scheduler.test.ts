import type { CloudProfile, Seed, SeedSelector, Shoot } from '../../shared/api/core.js';
import { cloudProfile, input, outcome, seed, shoot } from './scheduler.fixtures.js';
import { decideSchedule, type ScheduleInput } from './scheduler.js';

const other = 'another-type';
const notUsable =
  'usable-seeds: none of the 1 seeds is valid for scheduling (not deleting, visible and ready)';
const zonal = (s: Shoot): void => {
  s.spec.controlPlane = { highAvailability: { failureTolerance: { type: 'zone' } } };
};
const inRegion = (region: string, type?: string) => (s: Seed) => {
  s.spec.provider.region = region;
  if (type) s.spec.provider.type = type;
};
const labelled = (labels: Record<string, string>, region?: string, type?: string) => (s: Seed) => {
  s.metadata!.labels = labels;
  if (region) s.spec.provider.region = region;
  if (type) s.spec.provider.type = type;
};
const minimal = { candidateDeterminationStrategy: 'MinimalDistance' } as const;
/** Upstream's MinimalDistance context: shoot and cloud profile of another provider type. */
const otherTypeShoot = (region = 'europe'): Shoot =>
  shoot((s) => ((s.spec.provider.type = other), (s.spec.region = region)));
const otherTypeProfile = (selector?: SeedSelector): CloudProfile =>
  cloudProfile((c) => ((c.spec.type = other), selector && (c.spec.seedSelector = selector)));

describe('decideSchedule: upstream scheduler cases', () => {
  const rows: [string, Partial<ScheduleInput>, string][] = [
    ['same region, one seed', {}, 'seed-1'],
    ['fewest shoots', { seeds: [seed(), seed('seed-2')], usage: { 'seed-1': 1 } }, 'seed-2'],
    ['tie goes to the first in list order', { seeds: [seed('b'), seed('a')], usage: { a: 2, b: 2 } }, 'b'],
    [
      'zone HA: the multi-zonal seed',
      {
        shoot: shoot(zonal),
        seeds: [seed(), seed('seed-multi-zonal', (s) => (s.spec.provider.zones = ['1', '2', '3']))],
      },
      'seed-multi-zonal',
    ],
    [
      'zone HA: no zones',
      { shoot: shoot(zonal) },
      "zones: none of the 1 seeds has at least 3 zones for hosting a shoot control plane with failure tolerance type 'zone'",
    ],
    [
      'zone HA: fewer than 3 zones',
      { shoot: shoot(zonal), seeds: [seed('seed-1', (s) => (s.spec.provider.zones = ['1', '2']))] },
      "zones: none of the 1 seeds has at least 3 zones for hosting a shoot control plane with failure tolerance type 'zone'",
    ],
    [
      "failure tolerance 'node' takes any seed",
      {
        shoot: shoot(
          (s) => (s.spec.controlPlane = { highAvailability: { failureTolerance: { type: 'node' } } }),
        ),
        seeds: [seed('seed-multi-zonal', (s) => (s.spec.provider.zones = ['1', '2']))],
      },
      'seed-multi-zonal',
    ],
    [
      'SameRegion: region no seed supports',
      { shoot: shoot((s) => (s.spec.region = 'another-region')) },
      "strategy: no matching seed candidate found for Configuration (Cloud Profile 'cloudprofile-1', Region 'another-region', SeedDeterminationStrategy 'SameRegion')",
    ],
    [
      'SameRegion: the cloud profile reference names the profile in the message',
      {
        shoot: shoot((s) => {
          s.spec.region = 'r2';
          s.spec.cloudProfile = { kind: 'NamespacedCloudProfile', name: 'custom' };
        }),
      },
      "strategy: no matching seed candidate found for Configuration (Cloud Profile 'custom', Region 'r2', SeedDeterminationStrategy 'SameRegion')",
    ],
    [
      'MinimalDistance: default match in another region',
      {
        config: minimal,
        shoot: otherTypeShoot('another-region'),
        cloudProfile: otherTypeProfile(),
        seeds: [seed('seed-1', inRegion('europe', other))],
      },
      'seed-1',
    ],
    [
      'MinimalDistance: cross provider via providerTypes',
      {
        config: minimal,
        shoot: otherTypeShoot('another-region'),
        cloudProfile: otherTypeProfile({ providerTypes: ['foo'] }),
      },
      'seed-1',
    ],
    [
      'MinimalDistance: any provider via *',
      {
        config: minimal,
        shoot: otherTypeShoot('another-region'),
        cloudProfile: otherTypeProfile({ providerTypes: ['*'] }),
      },
      'seed-1',
    ],
    [
      'MinimalDistance: matching labels and any provider',
      {
        config: minimal,
        shoot: otherTypeShoot('another-region'),
        cloudProfile: otherTypeProfile({ matchLabels: { select: 'true' }, providerTypes: ['*'] }),
        seeds: [seed('seed-1', labelled({ select: 'true' }))],
      },
      'seed-1',
    ],
    [
      'MinimalDistance: no matching provider',
      { config: minimal, shoot: otherTypeShoot(), cloudProfile: otherTypeProfile() },
      'provider: none out of the 1 seeds has a matching provider for "another-type"',
    ],
    [
      'MinimalDistance: no matching labels',
      {
        config: minimal,
        shoot: otherTypeShoot(),
        cloudProfile: otherTypeProfile({ matchLabels: { select: 'true' }, providerTypes: ['foo'] }),
      },
      "cloud-profile-seed-selector: none out of the 1 seeds has the matching labels required by seed selector of 'CloudProfile' (selector: 'select=true')",
    ],
    [
      'MinimalDistance: matching labels but not type',
      {
        config: minimal,
        shoot: otherTypeShoot(),
        cloudProfile: otherTypeProfile({ matchLabels: { select: 'true' } }),
        seeds: [seed('seed-1', labelled({ select: 'true' }))],
      },
      'provider: none out of the 1 seeds has a matching provider for "another-type"',
    ],
    [
      'MinimalDistance: lexicographically closest region',
      {
        config: minimal,
        shoot: shoot((s) => (s.spec.region = 'europe-west3')),
        seeds: [
          seed('seed-1', inRegion('europe-north1')),
          seed('seed-2', inRegion('europe-west1')),
          seed('seed-3', inRegion('asia-south1')),
        ],
      },
      'seed-2',
    ],
    [
      'MinimalDistance: cloud profile selector picks a seed in another region',
      {
        config: minimal,
        shoot: shoot((s) => ((s.spec.region = 'eu-de-2'), (s.spec.provider.type = 'some-type'))),
        cloudProfile: cloudProfile((c) => (c.spec.seedSelector = { matchLabels: { environment: 'two' } })),
        seeds: [
          seed('seed1', labelled({ environment: 'one' }, 'eu-de-200', 'some-type')),
          seed('seed2', labelled({ environment: 'two' }, 'eu-nl-1', 'some-type')),
        ],
      },
      'seed2',
    ],
    [
      'MinimalDistance: shoot selector narrows further',
      {
        config: minimal,
        shoot: shoot((s) => {
          s.spec.region = 'eu-de-2';
          s.spec.provider.type = 'some-type';
          s.spec.seedSelector = { matchLabels: { 'my-preferred': 'seed' } };
        }),
        cloudProfile: cloudProfile((c) => (c.spec.seedSelector = { matchLabels: { environment: 'two' } })),
        seeds: [
          seed('seed1', labelled({ environment: 'one' }, 'eu-de-200', 'some-type')),
          seed('seed2', labelled({ environment: 'two' }, 'eu-nl-1', 'some-type')),
          seed('seed3', labelled({ environment: 'two', 'my-preferred': 'seed' }, 'eu-nl-4', 'some-type')),
        ],
      },
      'seed3',
    ],
    [
      'capacity: the seed with room left',
      {
        config: minimal,
        seeds: [
          seed('seed-1', (s) => (s.status!.allocatable = { shoots: '1' })),
          seed('seed-2', (s) => (s.status!.allocatable = { shoots: '2' })),
        ],
        usage: { 'seed-1': 1, 'seed-2': 1 },
      },
      'seed-2',
    ],
    [
      'taints not tolerated',
      {
        seeds: [
          seed('seed-1', (s) => (s.spec.taints = [{ key: 'foo' }])),
          seed('seed-2', (s) => (s.spec.taints = [{ key: 'bar' }])),
        ],
      },
      "candidates: 0/2 seed cluster candidate(s) are eligible for scheduling: {seed-1 => shoot does not tolerate the seed's taints, seed-2 => shoot does not tolerate the seed's taints}",
    ],
    [
      'no capacity left',
      { seeds: [seed('seed-1', (s) => (s.status!.allocatable = { shoots: '1' }))], usage: { 'seed-1': 1 } },
      'candidates: 0/1 seed cluster candidate(s) are eligible for scheduling: {seed-1 => seed does not have available capacity for shoots}',
    ],
    [
      'cloud profile selects no seed',
      { cloudProfile: cloudProfile((c) => (c.spec.seedSelector = { matchLabels: { foo: 'bar' } })) },
      "cloud-profile-seed-selector: none out of the 1 seeds has the matching labels required by seed selector of 'CloudProfile' (selector: 'foo=bar')",
    ],
    [
      'shoot selects no seed',
      { shoot: shoot((s) => (s.spec.seedSelector = { matchLabels: { foo: 'bar' } })) },
      "shoot-seed-selector: none out of the 1 seeds has the matching labels required by seed selector of 'Shoot' (selector: 'foo=bar')",
    ],
    [
      'gardenlet not ready',
      {
        seeds: [
          seed('seed-1', (s) => (s.status!.conditions = [{ type: 'GardenletReady', status: 'False' }])),
        ],
      },
      notUsable,
    ],
    ['never reconciled', { seeds: [seed('seed-1', (s) => delete s.status!.lastOperation)] }, notUsable],
    [
      'invisible',
      { seeds: [seed('seed-1', (s) => (s.spec.settings = { scheduling: { visible: false } }))] },
      notUsable,
    ],
    [
      'deleting',
      { seeds: [seed('seed-1', (s) => (s.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z'))] },
      notUsable,
    ],
    [
      'no seeds at all',
      { seeds: [] },
      'usable-seeds: none of the 0 seeds is valid for scheduling (not deleting, visible and ready)',
    ],
  ];
  it.each(rows)('%s', (_name, patch, expected) => {
    expect(outcome(decideSchedule(input(patch)))).toBe(expected);
  });
});
