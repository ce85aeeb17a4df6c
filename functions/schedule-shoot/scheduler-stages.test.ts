import type { Seed, Shoot } from '../../shared/api/core.js';
import type { RegionConfigMap } from './distance.js';
import { CLOUD_PROFILE, cloudProfile, input, outcome, seed, shoot } from './scheduler.fixtures.js';
import {
  SCHEDULE_STAGES,
  decideSchedule,
  isScheduleStage,
  schedulingFailedLastOperation,
  seedUsage,
  shouldSchedule,
  type ScheduleInput,
} from './scheduler.js';

const other = 'another-type';
const zonal = (s: Shoot): void => {
  s.spec.controlPlane = { highAvailability: { failureTolerance: { type: 'zone' } } };
};
describe('decideSchedule: taints, capacity, restrictions, emergency stop, purpose', () => {
  const tainted = (...taints: { key: string; value?: string }[]): Seed[] => [
    seed('seed-1', (s) => (s.spec.taints = taints)),
  ];
  const tolerating = (...tolerations: { key: string; value?: string }[]): Shoot =>
    shoot((s) => (s.spec.tolerations = tolerations));
  const taintMsg =
    "candidates: 0/1 seed cluster candidate(s) are eligible for scheduling: {seed-1 => shoot does not tolerate the seed's taints}";
  const full = (shoots: string) => (s: Seed) => (s.status!.allocatable = { shoots });
  const rows: [string, Partial<ScheduleInput>, string][] = [
    [
      'protected taint is an ordinary taint',
      { seeds: tainted({ key: 'seed.gardener.cloud/protected' }) },
      taintMsg,
    ],
    [
      'protected taint tolerated',
      {
        seeds: tainted({ key: 'seed.gardener.cloud/protected' }),
        shoot: tolerating({ key: 'seed.gardener.cloud/protected' }),
      },
      'seed-1',
    ],
    [
      'taint without value: any toleration of the key',
      { seeds: tainted({ key: 'foo' }), shoot: tolerating({ key: 'foo', value: 'x' }) },
      'seed-1',
    ],
    [
      'taint with value: same value',
      { seeds: tainted({ key: 'foo', value: 'bar' }), shoot: tolerating({ key: 'foo', value: 'bar' }) },
      'seed-1',
    ],
    [
      'taint with value: other value',
      { seeds: tainted({ key: 'foo', value: 'bar' }), shoot: tolerating({ key: 'foo', value: 'baz' }) },
      taintMsg,
    ],
    [
      'taint with value: toleration without value',
      { seeds: tainted({ key: 'foo', value: 'bar' }), shoot: tolerating({ key: 'foo' }) },
      taintMsg,
    ],
    [
      'one taint tolerated, one not',
      { seeds: tainted({ key: 'a' }, { key: 'b' }), shoot: tolerating({ key: 'a' }, { key: 'c' }) },
      taintMsg,
    ],
    ['no allocatable: no capacity check', { usage: { 'seed-1': 10000 } }, 'seed-1'],
    ['usage below allocatable', { seeds: [seed('seed-1', full('2'))], usage: { 'seed-1': 1 } }, 'seed-1'],
    [
      'usage above allocatable',
      { seeds: [seed('seed-1', full('2'))], usage: { 'seed-1': 5 } },
      'candidates: 0/1 seed cluster candidate(s) are eligible for scheduling: {seed-1 => seed does not have available capacity for shoots}',
    ],
    [
      'allocatable 0',
      { seeds: [seed('seed-1', full('0'))] },
      'candidates: 0/1 seed cluster candidate(s) are eligible for scheduling: {seed-1 => seed does not have available capacity for shoots}',
    ],
    [
      'allocatable garbage',
      { seeds: [seed('seed-1', full('x'))] },
      'candidates: 0/1 seed cluster candidate(s) are eligible for scheduling: {seed-1 => seed has an allocatable quantity for shoots that cannot be parsed}',
    ],
    [
      'domains: a seed with shootDNS disabled refuses a shoot with a DNS domain',
      {
        seeds: [
          seed('seed-1', (s) => (s.spec.settings = { ...s.spec.settings, shootDNS: { enabled: false } })),
        ],
        shoot: shoot((s) => (s.spec.dns = { domain: 'a.example.com', providers: [{ type: 'aws-route53' }] })),
      },
      'candidates: 0/1 seed cluster candidate(s) are eligible for scheduling: {seed-1 => seed does not support DNS}',
    ],
    [
      'domains: an unmanaged primary DNS provider is fine without shootDNS',
      {
        seeds: [
          seed('seed-1', (s) => (s.spec.settings = { ...s.spec.settings, shootDNS: { enabled: false } })),
        ],
        shoot: shoot(
          (s) =>
            (s.spec.dns = {
              domain: 'a.example.com',
              providers: [{ type: 'aws-route53' }, { type: 'unmanaged', primary: true }],
            }),
        ),
      },
      'seed-1',
    ],
    [
      'domains: a shoot without dns fits any seed; a seed without the setting supports DNS',
      {
        seeds: [
          seed('seed-1', (s) => (s.spec.settings = { ...s.spec.settings, shootDNS: { enabled: false } })),
          seed('seed-2', full('5')),
        ],
        usage: { 'seed-1': 3 },
      },
      'seed-2',
    ],
    [
      'domains: the DNS problem is recorded before taints',
      {
        seeds: [
          seed('seed-1', (s) => {
            s.spec.settings = { ...s.spec.settings, shootDNS: { enabled: false } };
            s.spec.taints = [{ key: 't' }];
          }),
        ],
        shoot: shoot((s) => (s.spec.dns = { domain: 'a.example.com' })),
      },
      'candidates: 0/1 seed cluster candidate(s) are eligible for scheduling: {seed-1 => seed does not support DNS}',
    ],
    [
      'first failure per seed, names sorted',
      {
        seeds: [seed('z', full('1')), seed('a', (s) => ((s.spec.taints = [{ key: 't' }]), full('0')(s)))],
        usage: { z: 1 },
      },
      "candidates: 0/2 seed cluster candidate(s) are eligible for scheduling: {a => shoot does not tolerate the seed's taints, z => seed does not have available capacity for shoots}",
    ],
    [
      'a mid-migration shoot counts on both seeds',
      {
        seeds: [seed('seed-1', full('1')), seed('seed-2', full('1'))],
        usage: seedUsage([shoot((s) => ((s.spec.seedName = 'seed-2'), (s.status = { seedName: 'seed-1' })))]),
      },
      'candidates: 0/2 seed cluster candidate(s) are eligible for scheduling: {seed-1 => seed does not have available capacity for shoots, seed-2 => seed does not have available capacity for shoots}',
    ],
    [
      'access restrictions offered',
      {
        shoot: shoot((s) => (s.spec.accessRestrictions = [{ name: 'eu-access-only' }])),
        seeds: [seed('a'), seed('b', (s) => (s.spec.accessRestrictions = [{ name: 'eu-access-only' }]))],
      },
      'b',
    ],
    [
      'access restrictions not offered',
      { shoot: shoot((s) => (s.spec.accessRestrictions = [{ name: 'eu-access-only' }])) },
      'access-restrictions: none of the 1 seeds supports the access restrictions configured in the shoot specification',
    ],
    [
      'emergency stop drops the seed',
      {
        seeds: [
          seed(
            'a',
            (s) =>
              (s.metadata!.annotations = { 'shoot.gardener.cloud/emergency-stop-reconciliations': 'true' }),
          ),
          seed('b'),
        ],
        usage: { b: 5 },
      },
      'b',
    ],
    [
      'emergency stop on every seed',
      {
        seeds: [
          seed(
            'a',
            (s) =>
              (s.metadata!.annotations = { 'shoot.gardener.cloud/emergency-stop-reconciliations': 'true' }),
          ),
        ],
      },
      'emergency-stop: none of the 1 seeds have enabled shoot reconciliations currently',
    ],
    [
      'emergency stop other than "true" is ignored',
      {
        seeds: [
          seed(
            'a',
            (s) =>
              (s.metadata!.annotations = { 'shoot.gardener.cloud/emergency-stop-reconciliations': 'false' }),
          ),
        ],
      },
      'a',
    ],
    [
      'purpose testing ignores region',
      { shoot: shoot((s) => ((s.spec.purpose = 'testing'), (s.spec.region = 'elsewhere'))) },
      'seed-1',
    ],
    [
      'purpose testing still needs the provider type',
      {
        shoot: shoot((s) => ((s.spec.purpose = 'testing'), (s.spec.provider.type = other))),
        cloudProfile: cloudProfile((c) => (c.spec.seedSelector = { providerTypes: ['*'] })),
      },
      "strategy: no matching seed candidate found for Configuration (Cloud Profile 'cloudprofile-1', Region 'europe', SeedDeterminationStrategy 'SameRegion')",
    ],
    [
      'invalid strategy',
      { config: { candidateDeterminationStrategy: 'Nearest' as 'SameRegion' } },
      "strategy: failed to determine seed candidates. shoot purpose: '', strategy: 'Nearest', valid strategies are: [SameRegion MinimalDistance]",
    ],
    [
      'invalid selector operator',
      {
        shoot: shoot(
          (s) =>
            (s.spec.seedSelector = {
              matchLabels: { a: 'b' },
              matchExpressions: [{ key: 'k', operator: 'Near', values: ['x'] }],
            }),
        ),
      },
      'shoot-seed-selector: label selector conversion failed: {map[a:b] [{k Near [x]}]} for seedSelector: "Near" is not a valid label selector operator',
    ],
    [
      'stages run in order: selector before provider',
      {
        shoot: shoot(
          (s) => ((s.spec.provider.type = other), (s.spec.seedSelector = { matchLabels: { x: 'y' } })),
        ),
      },
      "shoot-seed-selector: none out of the 1 seeds has the matching labels required by seed selector of 'Shoot' (selector: 'x=y')",
    ],
    [
      'each stage counts the seeds it was given',
      {
        seeds: [
          seed('a'),
          seed('b', (s) => (s.spec.provider.type = other)),
          seed('c', (s) => (s.spec.settings = { scheduling: { visible: false } })),
        ],
        shoot: shoot(zonal),
      },
      "zones: none of the 1 seeds has at least 3 zones for hosting a shoot control plane with failure tolerance type 'zone'",
    ],
  ];
  it.each(rows)('%s', (_name, patch, expected) => {
    expect(outcome(decideSchedule(input(patch)))).toBe(expected);
  });
});

describe('decideSchedule: region config, events', () => {
  const regionConfig = (name: string, data: Record<string, string>): RegionConfigMap => ({
    metadata: {
      name,
      namespace: 'garden',
      labels: { 'scheduling.gardener.cloud/purpose': 'region-config' },
      annotations: { 'scheduling.gardener.cloud/cloudprofiles': CLOUD_PROFILE },
    },
    data,
  });
  const seeds = [
    seed('near', (s) => (s.spec.provider.region = 'europe-west1')),
    seed('far', (s) => (s.spec.provider.region = 'asia-east1')),
  ];
  const shootIn = shoot((s) => (s.spec.region = 'europe-west3'));

  it('the region config overrides Levenshtein and duplicates are reported', () => {
    const decision = decideSchedule(
      input({
        shoot: shootIn,
        seeds,
        config: { candidateDeterminationStrategy: 'MinimalDistance' },
        regionConfigs: [
          regionConfig('first', { 'europe-west3': 'asia-east1: 1\neurope-west1: 9' }),
          regionConfig('second', {}),
        ],
      }),
    );
    expect(decision).toMatchObject({
      ok: true,
      seedName: 'far',
      candidates: ['far'],
      regionConfig: 'garden/first',
      duplicateRegionConfigs: ['garden/second'],
      event: { type: 'Normal', reason: 'SchedulingSuccessful', message: "Scheduled to seed 'far'" },
    });
  });

  it('a malformed region config fails the strategy stage with the event and description', () => {
    const decision = decideSchedule(
      input({
        shoot: shootIn,
        seeds,
        config: { candidateDeterminationStrategy: 'MinimalDistance' },
        regionConfigs: [regionConfig('bad', { 'europe-west3': '- 1' })],
      }),
    );
    const message =
      'failed to determine seed candidates. Wrong format in region ConfigMap garden/bad, Region "europe-west3": the entry is not a map of region to distance';
    expect(decision).toEqual({
      ok: false,
      stage: 'strategy',
      message,
      description: `Failed to schedule Shoot: ${message}`,
      event: { type: 'Warning', reason: 'SchedulingFailed', message: `Failed to schedule Shoot: ${message}` },
    });
  });

  it('SameRegion ignores the region config', () => {
    const decision = decideSchedule(input({ regionConfigs: [regionConfig('bad', { europe: '- 1' })] }));
    expect(outcome(decision)).toBe('seed-1');
  });

  it('the failed lastOperation uses the injected clock', () => {
    expect(
      schedulingFailedLastOperation('Failed to schedule Shoot: x', new Date('2024-05-01T10:00:00Z')),
    ).toEqual({
      type: 'Create',
      state: 'Pending',
      description: 'Failed to schedule Shoot: x',
      lastUpdateTime: '2024-05-01T10:00:00.000Z',
    });
  });

  it('stages are listed in order', () => {
    expect(SCHEDULE_STAGES[1]).toBe('usable-seeds');
    expect(SCHEDULE_STAGES.at(-1)).toBe('strategy');
    expect(isScheduleStage('candidates')).toBe(true);
    expect(isScheduleStage('nope')).toBe(false);
  });
});

describe('shouldSchedule', () => {
  const rows: [string, Shoot, string | undefined, boolean][] = [
    ['unscheduled, no scheduler name', shoot(), undefined, true],
    ['default-scheduler', shoot((s) => (s.spec.schedulerName = 'default-scheduler')), undefined, true],
    ['another scheduler', shoot((s) => (s.spec.schedulerName = 'custom')), undefined, false],
    ['our own name', shoot((s) => (s.spec.schedulerName = 'custom')), 'custom', true],
    ['unset name is not ours when we are custom', shoot(), 'custom', false],
    ['already scheduled', shoot((s) => (s.spec.seedName = 'seed-1')), undefined, false],
    ['empty seed name counts as unscheduled', shoot((s) => (s.spec.seedName = '')), undefined, true],
    [
      'being deleted',
      shoot((s) => (s.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z')),
      undefined,
      false,
    ],
  ];
  it.each(rows)('%s', (_name, s, schedulerName, expected) => {
    expect(shouldSchedule(s, schedulerName)).toBe(expected);
  });
});
