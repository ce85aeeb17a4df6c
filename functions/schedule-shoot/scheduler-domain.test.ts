import type { Seed, Shoot } from '../../shared/api/core.js';
import { cloudProfile, input, outcome, seed, shoot } from './scheduler.fixtures.js';
import { decideSchedule } from './scheduler.js';
import { seedsMatchingDomain } from './scheduler-filters.js';

/** Upstream reconciler_test.go "filterSeedsMatchingDomain": its seeds, shoot and project. */
const PROJECT = 'my-project';
const withDefaults = (name: string, ...domains: string[]): Seed =>
  seed(name, (s) => {
    s.spec.dns = { defaults: domains.map((domain) => ({ type: 'local', domain })) };
  });
const seedWithDefaultDomain = withDefaults('seed-with-default-domain', 'example.com');
const seedWithoutDefaultDomain = seed('seed-without-default-domain', (s) => {
  s.spec.dns = {};
});
const seedWithMultipleDefaultDomains = withDefaults(
  'seed-with-multiple-default-domains',
  'example.com',
  'test.org',
);
const seedWithSameDomain = withDefaults('seed-with-same-domain', 'example.com');
const withDomain = (domain: string | undefined, dns = true): Shoot =>
  shoot((s) => {
    if (dns) s.spec.dns = domain === undefined ? {} : { domain };
  });
const names = (seeds: Seed[]): string[] => seeds.map((s) => s.metadata?.name ?? '');

describe('seedsMatchingDomain (upstream filterSeedsMatchingDomain table)', () => {
  const both = [seedWithDefaultDomain, seedWithoutDefaultDomain];
  const rows: [string, Shoot, Seed[], string[] | string][] = [
    ['no DNS configuration: all seeds', withDomain(undefined, false), both, names(both)],
    ['DNS without domain: all seeds', withDomain(undefined), both, names(both)],
    ['custom domain: all seeds', withDomain('custom.domain.com'), both, names(both)],
    [
      'Gardener-managed domain: the seed with it',
      withDomain(`shoot.${PROJECT}.example.com`),
      both,
      ['seed-with-default-domain'],
    ],
    [
      'one of several default domains',
      withDomain(`shoot.${PROJECT}.test.org`),
      [...both, seedWithMultipleDefaultDomains],
      ['seed-with-multiple-default-domains'],
    ],
    [
      'managed domain in the wrong format',
      withDomain('wrong-format.example.com'),
      both,
      'none of the 2 seeds support the domain "wrong-format.example.com" configured in the shoot specification',
    ],
    [
      'wrong shoot name',
      withDomain(`wrong-name.${PROJECT}.example.com`),
      both,
      `none of the 2 seeds support the domain "wrong-name.${PROJECT}.example.com" configured in the shoot specification`,
    ],
    [
      'wrong project name',
      withDomain('shoot.wrong-project.example.com'),
      both,
      'none of the 2 seeds support the domain "shoot.wrong-project.example.com" configured in the shoot specification',
    ],
    [
      'several seeds with the same domain',
      withDomain(`shoot.${PROJECT}.example.com`),
      [seedWithDefaultDomain, seedWithSameDomain, seedWithoutDefaultDomain],
      ['seed-with-default-domain', 'seed-with-same-domain'],
    ],
    ['the default domain itself is no subdomain', withDomain('example.com'), both, names(both)],
  ];
  it.each(rows)('%s', (_name, sh, seeds, want) => {
    const got = seedsMatchingDomain(seeds, {
      shoot: sh,
      cloudProfile: cloudProfile(),
      usage: {},
      projectName: PROJECT,
    });
    expect(got.ok ? names(got.seeds) : got.message).toEqual(want);
  });

  it('without a project name a managed domain matches no seed', () => {
    const got = seedsMatchingDomain([seedWithDefaultDomain], {
      shoot: withDomain(`shoot.${PROJECT}.example.com`),
      cloudProfile: cloudProfile(),
      usage: {},
    });
    expect(got.ok).toBe(false);
  });
});

describe('decideSchedule: the domain stage (upstream reconciler_test.go)', () => {
  it('finds the seed that matches the domain of the shoot', () => {
    const decision = decideSchedule(
      input({
        shoot: withDomain(`shoot.${PROJECT}.example.com`),
        seeds: [
          withDefaults('seed-with-different-domain', 'other.com'),
          withDefaults('seed-with-matching-domain', 'example.com'),
        ],
        projectName: PROJECT,
      }),
    );
    expect(outcome(decision)).toBe('seed-with-matching-domain');
  });

  it('fails the domain stage before emergency stop and the candidate checks', () => {
    const s = withDefaults('seed-1', 'example.com');
    s.spec.taints = [{ key: 'foo' }];
    const decision = decideSchedule(
      input({ shoot: withDomain('x.other.example.com'), seeds: [s], projectName: PROJECT }),
    );
    expect(outcome(decision)).toBe(
      'domain: none of the 1 seeds support the domain "x.other.example.com" configured in the shoot specification',
    );
  });
});
