import type { Seed, Shoot } from '../../shared/api/core.js';
import {
  keepMinimal,
  levenshtein,
  minimalDistanceCandidates,
  regionConfigDistances,
  regionDistance,
  seedDistance,
  selectRegionConfig,
  splitOrientation,
  type RegionConfigMap,
} from './distance.js';

describe('splitOrientation', () => {
  const rows: [string, string, string][] = [
    ['europe', 'europe', ''],
    ['west_europe', 'europe', 'west'],
    ['europe-west', 'europe', 'west'],
    ['middle-west-europe', 'middle-europe', 'west'],
    ['asia-southeast1', 'asiaeast1', 'south'],
    ['northeurope', 'europe', 'north'],
    ['eastus-west', 'us-west', 'east'], // list order, not position
    ['europe-central2', 'europe2', 'central'],
  ];
  it.each(rows)('%s → %p %p', (region, base, orientation) => {
    expect(splitOrientation(region)).toEqual({ base, orientation });
  });
});

describe('levenshtein', () => {
  const rows: [string, string, number][] = [
    ['', '', 0],
    ['a', '', 1],
    ['', 'abc', 3],
    ['europe', 'asia', 6],
    ['kitten', 'sitting', 3],
    ['europe-:', 'europe', 2],
    ['eu-de-200', 'eu-de-2xzxzzx', 6],
    ['ä😀', 'a😀', 1],
  ];
  it.each(rows)('%p vs %p = %p', (a, b, d) => {
    expect(levenshtein(a, b)).toBe(d);
    expect(levenshtein(b, a)).toBe(d);
  });
});

describe('regionDistance', () => {
  const rows: [string, string, number][] = [
    ['europe-west', 'europe-east', 2],
    ['europe-west', 'europe-west', 0],
    // The figure (upstream keeps the separator and gets 5 here).
    ['europe-west', 'europe', 1],
    ['europe-west', 'europe-:', 5],
    ['europe', 'asia', 12],
    ['europe-west', 'asia-west', 12],
    ['europe-west', 'asia-east', 14],
    ['europe-west', 'asia-:', 13],
    ['europe-west1', 'europe-west3', 2],
    ['europe-north1', 'europe-west3', 4],
    ['asia-south1', 'europe-west3', 16],
  ];
  it.each(rows)('%s vs %s = %p', (seed, shoot, d) => {
    expect(regionDistance(seed, shoot)).toBe(d);
  });
});

const seed = (name: string, region: string, type = 'aws'): Seed => ({
  metadata: { name },
  spec: { provider: { type, region } },
});
const shoot = (region: string, type = 'aws'): Shoot => ({
  metadata: { name: 'shoot', namespace: 'garden-p' },
  spec: { region, provider: { type } },
});
const names = (seeds: readonly Seed[]): string[] => seeds.map((s) => s.metadata?.name ?? '');

describe('seedDistance', () => {
  it('adds 2 when the provider differs', () => {
    expect(seedDistance(seed('a', 'europe-west'), shoot('europe-east'))).toBe(2);
    expect(seedDistance(seed('a', 'europe-west', 'gcp'), shoot('europe-east'))).toBe(4);
  });
});

const regionConfig = (
  name: string,
  profiles: string,
  data: Record<string, string>,
  purpose = 'region-config',
): RegionConfigMap => ({
  metadata: {
    name,
    namespace: 'garden',
    labels: { 'scheduling.gardener.cloud/purpose': purpose },
    annotations: { 'scheduling.gardener.cloud/cloudprofiles': profiles },
  },
  data,
});

describe('selectRegionConfig', () => {
  const a = regionConfig('a', 'aws,gcp', {});
  const b = regionConfig('b', 'gcp', {});
  const c = regionConfig('c', 'aws', {});
  const unlabelled = regionConfig('u', 'aws', {}, 'other');
  const spaced = regionConfig('s', 'azure, aws', {});
  const rows: [string, RegionConfigMap[], string, string | undefined, string[]][] = [
    ['none', [], 'aws', undefined, []],
    ['listed among others', [b, a], 'aws', 'a', []],
    ['first wins, later are duplicates', [unlabelled, a, b, c], 'gcp', 'a', ['b']],
    ['needs the label', [unlabelled], 'aws', undefined, []],
    ['names are not trimmed', [spaced], 'aws', undefined, []],
    ['duplicates for aws', [c, a], 'aws', 'c', ['a']],
  ];
  it.each(rows)('%s', (_name, configMaps, profile, chosen, duplicates) => {
    const result = selectRegionConfig(configMaps, profile);
    expect(result.configMap?.metadata?.name).toBe(chosen);
    expect(result.duplicates.map((d) => d.metadata?.name)).toEqual(duplicates);
  });
});

describe('regionConfigDistances', () => {
  const cm = regionConfig('regions', 'aws', {
    'eu-1': 'eu-2: 10\nus-1: 100\n',
    'eu-2': 'eu-2: 5\n',
    broken: 'eu-1: [1, 2]\n',
    scalar: 'just text',
    yaml: 'a: b: c',
    empty: '{}',
  });
  it('no ConfigMap or no entry: no distances', () => {
    expect(regionConfigDistances(undefined, 'eu-1')).toEqual({ ok: true });
    expect(regionConfigDistances(cm, 'ap-1')).toEqual({ ok: true });
  });
  it('own region is 0 unless listed', () => {
    const one = regionConfigDistances(cm, 'eu-1');
    const two = regionConfigDistances(cm, 'eu-2');
    expect(one.ok && [...(one.distances ?? [])]).toEqual([
      ['eu-2', 10],
      ['us-1', 100],
      ['eu-1', 0],
    ]);
    expect(two.ok && [...(two.distances ?? [])]).toEqual([['eu-2', 5]]);
    const empty = regionConfigDistances(cm, 'empty');
    expect(empty.ok && [...(empty.distances ?? [])]).toEqual([['empty', 0]]);
  });
  it.each([
    ['broken', 'the distance of region "eu-1" is not an integer'],
    ['scalar', 'the entry is not a map of region to distance'],
  ])('malformed entry %s', (region, detail) => {
    expect(regionConfigDistances(cm, region)).toEqual({
      ok: false,
      message: `failed to determine seed candidates. Wrong format in region ConfigMap garden/regions, Region "${region}": ${detail}`,
    });
  });
  it('YAML syntax error', () => {
    const result = regionConfigDistances(cm, 'yaml');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(
      /^failed to determine seed candidates\. Wrong format in region ConfigMap garden\/regions, Region "yaml": /,
    );
  });
});

describe('keepMinimal', () => {
  it('keeps every item at the minimum, in order, and honours the start value', () => {
    expect(keepMinimal([3, 1, 2, 1], (x) => x, 1000)).toEqual([1, 1]);
    expect(keepMinimal([1000, 1001], (x) => x, 1000)).toEqual([1000]);
    expect(keepMinimal([1001], (x) => x, 1000)).toEqual([]);
    expect(keepMinimal([1, 2], (x) => (x === 1 ? undefined : x), 1000)).toEqual([2]);
  });
});

describe('minimalDistanceCandidates', () => {
  const seeds = [
    seed('seed-1', 'europe-north1'),
    seed('seed-2', 'europe-west1'),
    seed('seed-3', 'asia-south1'),
  ];
  const cm = regionConfig('regions', 'aws', { 'europe-west3': 'asia-south1: 1\neurope-north1: 1\n' });
  const rows: [string, Seed[], Shoot, RegionConfigMap | undefined, string[], string][] = [
    ['Levenshtein: nearest region', seeds, shoot('europe-west3'), undefined, ['seed-2'], 'levenshtein'],
    [
      'region config: all at the minimum',
      seeds,
      shoot('europe-west3'),
      cm,
      ['seed-1', 'seed-3'],
      'region-config',
    ],
    [
      'region config lists no seed region: Levenshtein',
      [seed('seed-2', 'europe-west1')],
      shoot('europe-west3'),
      cm,
      ['seed-2'],
      'levenshtein',
    ],
    [
      'own region is 0 in the region config',
      [...seeds, seed('seed-4', 'europe-west3')],
      shoot('europe-west3'),
      cm,
      ['seed-4'],
      'region-config',
    ],
    [
      'upstream: two seeds with the same number of matching characters',
      [seed('seed2', 'eu-de-2111'), seed('seed1', 'eu-de-200'), seed('xyz', 'eu-nl-1')],
      shoot('eu-de-2xzxzzx'),
      undefined,
      ['seed2', 'seed1'],
      'levenshtein',
    ],
    [
      'upstream: single candidate',
      [seed('seed2', 'eu-de-2111'), seed('seed1', 'eu-de-200'), seed('xyz', 'eu-nl-1')],
      shoot('eu-de-20'),
      undefined,
      ['seed1'],
      'levenshtein',
    ],
    [
      'provider difference weighs 2',
      [seed('gcp', 'europe-west1', 'gcp'), seed('aws', 'europe-east1')],
      shoot('europe-west1'),
      undefined,
      ['gcp', 'aws'],
      'levenshtein',
    ],
  ];
  it.each(rows)('%s', (_name, list, s, config, expected, source) => {
    const result = minimalDistanceCandidates(list, s, config);
    expect(result.ok && names(result.candidates)).toEqual(expected);
    expect(result.ok && result.source).toBe(source);
  });

  it('a malformed region config fails', () => {
    const bad = regionConfig('bad', 'aws', { 'europe-west3': '[1]' });
    expect(minimalDistanceCandidates(seeds, shoot('europe-west3'), bad)).toEqual({
      ok: false,
      message:
        'failed to determine seed candidates. Wrong format in region ConfigMap garden/bad, Region "europe-west3": the entry is not a map of region to distance',
    });
  });
});
