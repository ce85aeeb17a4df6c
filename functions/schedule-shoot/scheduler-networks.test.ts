import type { Seed, Shoot } from '../../shared/api/core.js';
import { input, outcome, seed, shoot } from './scheduler.fixtures.js';
import { decideSchedule } from './scheduler.js';
import { networksIntersect, networksProblem, parseCidr } from './scheduler-networks.js';

describe('parseCidr / networksIntersect (Go net.ParseCIDR, cidr.NetworksIntersect)', () => {
  const rows: [string, string, boolean][] = [
    ['10.0.0.0/8', '10.1.0.0/16', true],
    ['10.1.0.0/16', '10.0.0.0/8', true],
    ['10.0.0.0/16', '10.1.0.0/16', false],
    ['10.0.0.5/16', '10.0.200.0/24', true],
    ['2001:0db8:65a3::/113', '2001:db8:65a3::1/128', true],
    ['2001:0db8:65a3::/113', '2001:0db8:75a3::/113', false],
    ['fd8f:6d53:b97a:1::/96', 'fd8f:6d53:b97a:1::/120', true],
    ['::ffff:10.0.0.0/120', '::ffff:10.0.0.7/128', true],
    ['10.0.0.0/8', '::/0', false],
    ['not-a-cidr', '10.0.0.0/8', true],
    ['10.0.0.0/33', '10.0.0.0/8', true],
  ];
  it.each(rows)('%s ∩ %s = %s', (a, b, want) => {
    expect(networksIntersect(a, b)).toBe(want);
  });

  it('parses IPv4 and IPv6 and refuses what Go refuses', () => {
    expect(parseCidr('10.1.2.3/16')).toEqual({ family: 4, base: 0x0a010000n, prefix: 16 });
    expect(parseCidr('2001:db8::/32')?.family).toBe(6);
    for (const bad of [
      '10.0.0.0',
      '10.0.0.256/8',
      '1:2:3:4:5:6:7:8:9/64',
      '1::2::3/64',
      'zz::/64',
      '010.0.0.0/8',
    ])
      expect(parseCidr(bad)).toBeUndefined();
  });
});

/** Upstream disjoint_test.go's seeds, and a shoot with the given networks. */
const v4Seed = (): Seed =>
  seed('seed-1', (s) => {
    s.spec.networks = { nodes: '10.240.0.0/16', pods: '10.241.128.0/17', services: '10.241.0.0/17' };
  });
const v6Seed = (): Seed =>
  seed('seed-1', (s) => {
    s.spec.networks = {
      nodes: '2001:0db8:85a3::/112',
      pods: '2001:0db8:65a3::/113',
      services: '2001:0db8:75a3::/113',
    };
  });
const withNets = (nodes?: string, pods?: string, services?: string): Shoot =>
  shoot((s) => {
    s.spec.networking = { nodes, pods, services };
  });

describe('networksProblem (upstream disjoint_test.go ValidateNetworkDisjointedness cases)', () => {
  const inv = (net: string, detail: string): string => `Invalid value: "${net}": ${detail}`;
  const rows: [string, Seed, Shoot, string[] | undefined][] = [
    ['IPv4: disjoint', v4Seed(), withNets('10.243.0.0/16', '10.242.128.0/17', '10.242.0.0/17'), undefined],
    [
      'IPv4: equal to the seed (overlap allowed)',
      v4Seed(),
      withNets('10.240.0.0/16', '10.241.128.0/17', '10.241.0.0/17'),
      undefined,
    ],
    ['IPv4: no fields', v4Seed(), withNets(), undefined],
    [
      'IPv4: pods in 240/8',
      v4Seed(),
      withNets('10.243.0.0/16', '240.100.0.0/16', '10.242.0.0/17'),
      [
        inv(
          '240.100.0.0/16',
          'pod network intersects with reserved kube-apiserver mapping range (240.0.0.0/8)',
        ),
      ],
    ],
    [
      'IPv4: 241/8, 242/8, 243/8 (nodes, services, pods order)',
      v4Seed(),
      withNets('243.243.0.0/16', '241.100.0.0/16', '242.242.0.0/17'),
      [
        inv(
          '243.243.0.0/16',
          'node network intersects with reserved shoot service network mapping range (243.0.0.0/8)',
        ),
        inv(
          '242.242.0.0/17',
          'service network intersects with reserved shoot node network mapping range (242.0.0.0/8)',
        ),
        inv(
          '241.100.0.0/16',
          'pod network intersects with reserved seed pod network mapping range (241.0.0.0/8)',
        ),
      ],
    ],
    [
      'IPv4: pods in 244/8',
      v4Seed(),
      withNets('10.100.0.0/16', '244.242.128.0/17', '10.242.0.0/17'),
      [
        inv(
          '244.242.128.0/17',
          'pod network intersects with reserved shoot pod network mapping range (244.0.0.0/8)',
        ),
      ],
    ],
    [
      'IPv6: disjoint',
      v6Seed(),
      withNets('2001:0db8:55a3::/112', '2001:0db8:35a3::/113', '2001:0db8:45a3::/113'),
      undefined,
    ],
    [
      'IPv6: equal to the seed',
      v6Seed(),
      withNets('2001:0db8:85a3::/112', '2001:0db8:65a3::/113', '2001:0db8:75a3::/113'),
      [
        inv('2001:0db8:85a3::/112', 'shoot node network intersects with seed node network'),
        inv('2001:0db8:75a3::/113', 'shoot service network intersects with seed service network'),
        inv('2001:0db8:65a3::/113', 'shoot pod network intersects with seed pod network'),
      ],
    ],
    [
      'IPv6: pods in the default vpn range',
      v6Seed(),
      withNets('2001:0db8:55a3::/112', 'fd8f:6d53:b97a:1::/120', '2001:0db8:45a3::/113'),
      [
        inv(
          'fd8f:6d53:b97a:1::/120',
          'pod network intersects with default vpn network (fd8f:6d53:b97a:1::/96)',
        ),
      ],
    ],
    [
      'IPv6: pods and services equal to the seed nodes',
      v6Seed(),
      withNets('2001:0db8:55a3::/112', '2001:0db8:85a3::/112', '2001:0db8:85a3::/112'),
      [
        inv('2001:0db8:85a3::/112', 'shoot service network intersects with seed node network'),
        inv('2001:0db8:85a3::/112', 'shoot pod network intersects with seed node network'),
      ],
    ],
  ];
  it.each(rows)('%s', (_name, s, sh, want) => {
    const got = networksProblem(s, sh);
    expect(got).toBe(want && `invalid networks: [${want.join(' ')}]`);
  });

  it('takes the seed shoot defaults when the shoot has none and the family fits (pods only with workers)', () => {
    const s = v6Seed();
    s.spec.networks!.shootDefaults = { pods: '2001:0db8:65a3::/120', services: '2001:0db8:75a3::/120' };
    const v6 = withNets('2001:0db8:55a3::/112');
    v6.spec.networking!.ipFamilies = ['IPv6'];
    expect(networksProblem(s, v6)).toBe(
      'invalid networks: [Invalid value: "2001:0db8:75a3::/120": shoot service network intersects with seed service network ' +
        'Invalid value: "2001:0db8:65a3::/120": shoot pod network intersects with seed pod network]',
    );
    const v4 = withNets('2001:0db8:55a3::/112'); // ipFamilies default [IPv4]: IPv6 defaults do not apply
    expect(networksProblem(s, v4)).toBeUndefined();
    v6.spec.provider.workers = [];
    expect(networksProblem(s, v6)).toContain('shoot service network');
    expect(networksProblem(s, v6)).not.toContain('shoot pod network');
  });

  it('checks status.networking too: services required, pods required unless workerless', () => {
    const sh = withNets();
    sh.status = { networking: { nodes: ['10.1.0.0/16'] } };
    expect(networksProblem(v4Seed(), sh)).toBe(
      'invalid networks: [Required value: services is required Required value: pods is required]',
    );
    sh.spec.provider.workers = [];
    expect(networksProblem(v4Seed(), sh)).toBe('invalid networks: [Required value: services is required]');
    sh.status = { networking: { services: ['2001:0db8:75a3::/120'] } };
    expect(networksProblem(v6Seed(), sh)).toContain(
      'shoot service network intersects with seed service network',
    );
  });

  it('skips a shoot without spec.networking (upstream checks only when it is set)', () => {
    expect(networksProblem(v6Seed(), shoot())).toBeUndefined();
  });
});

describe('decideSchedule: the network check among the candidate checks (upstream reconciler_test.go)', () => {
  it('finds the seed even when IPv4 networks equal the seed (non-HA control plane)', () => {
    const sh = withNets('10.240.0.0/16', '10.241.128.0/17', '10.241.0.0/17');
    expect(outcome(decideSchedule(input({ shoot: sh, seeds: [v4Seed()] })))).toBe('seed-1');
  });

  it('finds the seed using the seed shoot default networks', () => {
    const s = v4Seed();
    s.spec.networks!.shootDefaults = { pods: '10.50.0.0/16', services: '10.60.0.0/16' };
    expect(outcome(decideSchedule(input({ shoot: withNets('10.40.0.0/16'), seeds: [s] })))).toBe('seed-1');
  });

  it('refuses a seed whose IPv6 networks the shoot overlaps, before the taints check', () => {
    const tainted = v6Seed();
    tainted.spec.taints = [{ key: 'foo' }];
    const sh = withNets('2001:0db8:55a3::/112', '2001:0db8:65a3::/113', '2001:0db8:45a3::/113');
    const other = seed('seed-2', (s) => {
      s.spec.networks = { pods: '10.0.0.0/16', services: '10.1.0.0/16' };
      s.spec.taints = [{ key: 'foo' }];
    });
    expect(outcome(decideSchedule(input({ shoot: sh, seeds: [tainted, other] })))).toBe(
      'candidates: 0/2 seed cluster candidate(s) are eligible for scheduling: {seed-1 => invalid networks: [Invalid value: "2001:0db8:65a3::/113": shoot pod network intersects with seed pod network], seed-2 => shoot does not tolerate the seed\'s taints}',
    );
  });
});
