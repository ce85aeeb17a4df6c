import type { CloudProfile, NamespacedCloudProfile } from '../../shared/api/core.js';
import { cloudProfile, input, outcome, seed, shoot } from './scheduler.fixtures.js';
import { decideSchedule } from './scheduler.js';
import {
  cloudProfileReference,
  effectiveCloudProfile,
  mergeCloudProfiles,
} from './scheduler-cloudprofile.js';

const EXPIRY = '2030-01-01T00:00:00Z';
const parent = (patch: (c: CloudProfile) => void = () => undefined): CloudProfile => cloudProfile(patch);
const ncp = (spec: Partial<NamespacedCloudProfile['spec']> = {}): NamespacedCloudProfile => ({
  metadata: { name: 'ncp', namespace: 'my-namespace' },
  spec: { parent: { kind: 'CloudProfile', name: 'cloudprofile-1' }, ...spec },
});

describe('cloudProfileReference (upstream BuildV1beta1CloudProfileReference)', () => {
  const rows: [string, Parameters<typeof shoot>[0], ReturnType<typeof cloudProfileReference>][] = [
    ['cloudProfileName', undefined, { kind: 'CloudProfile', name: 'cloudprofile-1' }],
    [
      'cloudProfile wins, kind kept',
      (s) => (s.spec.cloudProfile = { kind: 'NamespacedCloudProfile', name: 'ncp' }),
      { kind: 'NamespacedCloudProfile', name: 'ncp' },
    ],
    [
      'empty kind is CloudProfile',
      (s) => (s.spec.cloudProfile = { kind: '', name: 'cp' }),
      { kind: 'CloudProfile', name: 'cp' },
    ],
    ['none', (s) => delete s.spec.cloudProfileName, undefined],
  ];
  it.each(rows)('%s', (_n, patch, want) => {
    expect(cloudProfileReference(shoot(patch))).toEqual(want);
  });
});

describe('mergeCloudProfiles (upstream namespacedcloudprofile reconciler_test.go)', () => {
  it('matches the parent for no overrides, seed selector and regions included', () => {
    const p = parent((c) => {
      c.spec.seedSelector = { matchLabels: { a: 'b' }, providerTypes: ['*'] };
      c.spec.regions = [{ name: 'europe' }];
    });
    expect(mergeCloudProfiles(ncp(), p)).toEqual(p.spec);
  });

  it('ignores Kubernetes versions only in the namespaced profile and merges expiration dates', () => {
    const p = parent((c) => (c.spec.kubernetes = { versions: [{ version: '1.0.0' }] }));
    expect(
      mergeCloudProfiles(ncp({ kubernetes: { versions: [{ version: '1.2.3' }] } }), p).kubernetes,
    ).toEqual({
      versions: [{ version: '1.0.0' }],
    });
    const merged = mergeCloudProfiles(
      ncp({ kubernetes: { versions: [{ version: '1.0.0', expirationDate: EXPIRY }] } }),
      p,
    );
    expect(merged.kubernetes).toEqual({ versions: [{ version: '1.0.0', expirationDate: EXPIRY }] });
  });

  it('merges machine images (versions by version, added ones appended, updateStrategy overridden)', () => {
    const p = parent((c) => {
      c.spec['machineImages'] = [
        { name: 'test-image', versions: [{ version: '1.0.0', cri: [{ name: 'containerd' }] }] },
      ];
    });
    const merged = mergeCloudProfiles(
      ncp({
        machineImages: [
          {
            name: 'test-image',
            updateStrategy: 'minor',
            versions: [{ version: '1.0.0', expirationDate: EXPIRY }, { version: '1.1.2' }],
          },
          { name: 'other' },
        ],
      }),
      p,
    );
    expect(merged['machineImages']).toEqual([
      {
        name: 'test-image',
        updateStrategy: 'minor',
        versions: [
          { version: '1.0.0', cri: [{ name: 'containerd' }], expirationDate: EXPIRY },
          { version: '1.1.2' },
        ],
      },
      { name: 'other' },
    ]);
  });

  it('replaces and adds machine and volume types keeping the parent order; caBundle appended; maxNodesTotal', () => {
    const p = parent((c) => {
      c.spec['machineTypes'] = [
        { name: 'a', cpu: '1' },
        { name: 'b', cpu: '2' },
      ];
      c.spec['caBundle'] = 'P';
    });
    const merged = mergeCloudProfiles(
      ncp({
        machineTypes: [
          { name: 'c', cpu: '4' },
          { name: 'a', cpu: '8' },
        ],
        volumeTypes: [{ name: 'v' }],
        caBundle: 'N',
        limits: { maxNodesTotal: 5 },
      }),
      p,
    );
    expect(merged['machineTypes']).toEqual([
      { name: 'a', cpu: '8' },
      { name: 'b', cpu: '2' },
      { name: 'c', cpu: '4' },
    ]);
    expect(merged['volumeTypes']).toEqual([{ name: 'v' }]);
    expect(merged['caBundle']).toBe('PN');
    expect(merged['limits']).toEqual({ maxNodesTotal: 5 });
    expect(mergeCloudProfiles(ncp({ limits: {} }), parent())['limits']).toEqual({});
  });

  it('effectiveCloudProfile: named as the namespaced profile; the status when the parent is gone', () => {
    expect(effectiveCloudProfile(ncp(), parent())?.metadata).toEqual({
      name: 'ncp',
      namespace: 'my-namespace',
    });
    expect(effectiveCloudProfile(ncp(), undefined)).toBeUndefined();
    const withStatus = { ...ncp(), status: { cloudProfileSpec: { type: 'bar' } } };
    expect(effectiveCloudProfile(withStatus, undefined)?.spec.type).toBe('bar');
  });
});

describe('decideSchedule with a NamespacedCloudProfile (the parent seed selector applies)', () => {
  it('uses the merged seed selector', () => {
    const p = parent((c) => (c.spec.seedSelector = { matchLabels: { tier: 'gold' } }));
    const profile = effectiveCloudProfile(ncp(), p)!;
    const sh = shoot((s) => {
      delete s.spec.cloudProfileName;
      s.spec.cloudProfile = { kind: 'NamespacedCloudProfile', name: 'ncp' };
    });
    const gold = seed('seed-gold', (s) => (s.metadata!.labels = { tier: 'gold' }));
    expect(outcome(decideSchedule(input({ shoot: sh, cloudProfile: profile, seeds: [seed(), gold] })))).toBe(
      'seed-gold',
    );
    expect(outcome(decideSchedule(input({ shoot: sh, cloudProfile: profile, seeds: [seed()] })))).toBe(
      "cloud-profile-seed-selector: none out of the 1 seeds has the matching labels required by seed selector of 'CloudProfile' (selector: 'tier=gold')",
    );
  });
});
