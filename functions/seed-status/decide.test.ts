import type { Seed } from '../../shared/api/core.js';
import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import { loadConfig, type SeedStatusConfig } from './config.js';
import { decideSeedStatus, resourcesFor, type SeedStatusDecision } from './decide.js';

const CONFIG: Pick<SeedStatusConfig, 'seeds' | 'default'> = {
  default: { capacity: { shoots: 100 } },
  seeds: {
    big: { capacity: { shoots: '1000' }, reserved: { shoots: 10 } },
    bad: { capacity: { shoots: 1 }, reserved: { shoots: 2 } },
  },
};

function ms(config?: Record<string, unknown>): ManagedSeed {
  return {
    metadata: { name: 'm', namespace: 'garden' },
    spec: { shoot: { name: 's' }, gardenlet: { config } },
  };
}

function decide(name: string, managed?: ManagedSeed, status?: Seed['status']): SeedStatusDecision {
  return decideSeedStatus({ status }, resourcesFor(name, managed, CONFIG));
}

describe('seed-status decision', () => {
  it('a managed seed: its gardenlet config with the default shoots 250', () => {
    expect(decide('m', ms({}))).toEqual({
      op: 'write',
      patch: { status: { capacity: { shoots: '250' }, allocatable: { shoots: '250' } } },
    });
    expect(decide('m', ms({ resources: { capacity: { cpu: 4 }, reserved: { cpu: 1 } } }))).toEqual({
      op: 'write',
      patch: { status: { capacity: { cpu: '4', shoots: '250' }, allocatable: { cpu: '3', shoots: '250' } } },
    });
  });

  it('a plain seed: its own entry, else the default', () => {
    expect(decide('big')).toEqual({
      op: 'write',
      patch: { status: { capacity: { shoots: '1k' }, allocatable: { shoots: '990' } } },
    });
    expect(decide('other')).toMatchObject({
      op: 'write',
      patch: { status: { capacity: { shoots: '100' } } },
    });
    expect(decideSeedStatus({}, resourcesFor('other', undefined, { seeds: {} }))).toEqual({
      op: 'unconfigured',
    });
  });

  it('only when changed; a resource no longer configured is dropped', () => {
    expect(decide('other', undefined, { capacity: { shoots: '100' }, allocatable: { shoots: 100 } })).toEqual(
      {
        op: 'unchanged',
      },
    );
    expect(
      decide('other', undefined, {
        capacity: { shoots: '100', cpu: '1' },
        allocatable: { shoots: '100', cpu: '1' },
      }),
    ).toEqual({
      op: 'write',
      patch: {
        status: { capacity: { cpu: null, shoots: '100' }, allocatable: { cpu: null, shoots: '100' } },
      },
    });
  });

  it("an invalid config: upstream's message, with where it comes from", () => {
    expect(decide('bad')).toEqual({
      op: 'invalid',
      message:
        'invalid resources in seed-status config seeds.bad: resources.reserved.shoots: Invalid value: "2": reserved must be lower or equal to capacity',
    });
    expect(decide('m', ms({ resources: { reserved: { shoots: 1 } } }))).toEqual({
      op: 'write',
      patch: expect.anything(),
    });
    expect(
      decide('m', ms({ resources: { capacity: { shoots: 5 }, reserved: { shoots: 6 } } })),
    ).toMatchObject({
      op: 'invalid',
      message: expect.stringContaining(
        'ManagedSeed garden/m spec.gardenlet.config: resources.reserved.shoots',
      ),
    });
    expect(decide('m', ms({ resources: 'lots' }))).toMatchObject({ op: 'invalid' });
  });

  it('a ManagedSeed without a gardenlet (seedTemplate) counts as a plain seed', () => {
    const template: ManagedSeed = { metadata: { name: 'other' }, spec: { shoot: { name: 's' } } };
    expect(decide('other', template)).toMatchObject({
      op: 'write',
      patch: { status: { capacity: { shoots: '100' } } },
    });
  });
});

describe('seed-status config', () => {
  it('defaults and shape problems', () => {
    expect(loadConfig(undefined, {})).toEqual({
      ok: true,
      config: { managedSeedNamespace: 'garden', seeds: {}, concurrency: 4, logLevel: 'info' },
    });
    const r = loadConfig('seeds: {a: {capacity: [1]}}\ndefault: {limits: {}}\n', {});
    expect(r.ok ? [] : r.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^seeds\.a\.capacity: /),
        expect.stringMatching(/^default: Unrecognized key/),
      ]),
    );
  });
});
