import { QUANTITY_FORMAT_MESSAGE } from '@landscape/apimachinery';
import {
  MANAGED_SEED_DEFAULT_SHOOTS_CAPACITY,
  decideSeedCapacity,
  defaultManagedSeedResources,
  readResources,
  validateResources,
  type ResourcesConfiguration,
} from './capacity.js';

describe('validateResources', () => {
  const rows: [string, ResourcesConfiguration | undefined, string[]][] = [
    ['absent', undefined, []],
    ['capacity only', { capacity: { shoots: '100' } }, []],
    ['reserved equal to capacity', { capacity: { shoots: 100 }, reserved: { shoots: '100' } }, []],
    [
      'reserved above capacity',
      { capacity: { shoots: '100' }, reserved: { shoots: '101' } },
      ['resources.reserved.shoots: Invalid value: "101": reserved must be lower or equal to capacity'],
    ],
    [
      'reserved without capacity',
      { capacity: { shoots: '100' }, reserved: { 'persistent-volumes': 3 } },
      ['resources.reserved.persistent-volumes: Invalid value: "3": reserved without capacity'],
    ],
    [
      'reserved without any capacity',
      { reserved: { shoots: '1' } },
      ['resources.reserved.shoots: Invalid value: "1": reserved without capacity'],
    ],
    [
      'garbage quantity',
      { capacity: { shoots: 'lots' } },
      [`resources.capacity.shoots: Invalid value: "lots": ${QUANTITY_FORMAT_MESSAGE}`],
    ],
    [
      'fraction',
      { capacity: { shoots: '0.5' } },
      ['resources.capacity.shoots: Invalid value: "0.5": must be a whole number'],
    ],
    [
      'negative',
      { capacity: { shoots: -1 } },
      ['resources.capacity.shoots: Invalid value: "-1": must not be negative'],
    ],
    [
      'problems sorted by resource name, both rules',
      { capacity: { shoots: '10', b: '1', a: '1' }, reserved: { shoots: '20', z: '1', a: '2' } },
      [
        'resources.reserved.a: Invalid value: "2": reserved must be lower or equal to capacity',
        'resources.reserved.shoots: Invalid value: "20": reserved must be lower or equal to capacity',
        'resources.reserved.z: Invalid value: "1": reserved without capacity',
      ],
    ],
  ];
  it.each(rows)('%s', (_name, resources, problems) => {
    expect(validateResources(resources)).toEqual(problems);
  });
});

describe('decideSeedCapacity', () => {
  const rows: [string, ResourcesConfiguration | undefined, ReturnType<typeof decideSeedCapacity>][] = [
    ['no resources: status left alone', undefined, { ok: true }],
    ['empty capacity: status left alone', { capacity: {}, reserved: {} }, { ok: true }],
    [
      'capacity without reserved',
      { capacity: { shoots: '100' } },
      { ok: true, status: { capacity: { shoots: '100' }, allocatable: { shoots: '100' } } },
    ],
    [
      "GEP-13's example",
      { capacity: { shoots: 100, 'persistent-volumes': 200 }, reserved: { 'persistent-volumes': 3 } },
      {
        ok: true,
        status: {
          capacity: { 'persistent-volumes': '200', shoots: '100' },
          allocatable: { 'persistent-volumes': '197', shoots: '100' },
        },
      },
    ],
    [
      'fully reserved',
      { capacity: { shoots: '5' }, reserved: { shoots: '5' } },
      { ok: true, status: { capacity: { shoots: '5' }, allocatable: { shoots: '0' } } },
    ],
    [
      'canonical form',
      { capacity: { shoots: '1000' }, reserved: { shoots: '1k' } },
      { ok: true, status: { capacity: { shoots: '1k' }, allocatable: { shoots: '0' } } },
    ],
    [
      'invalid config is refused',
      { capacity: { shoots: '1' }, reserved: { shoots: '2' } },
      {
        ok: false,
        problems: [
          'resources.reserved.shoots: Invalid value: "2": reserved must be lower or equal to capacity',
        ],
      },
    ],
  ];
  it.each(rows)('%s', (_name, resources, decision) => {
    expect(decideSeedCapacity(resources)).toEqual(decision);
  });
});

describe('defaultManagedSeedResources', () => {
  const rows: [string, ResourcesConfiguration | undefined, ResourcesConfiguration][] = [
    ['absent', undefined, { capacity: { shoots: '250' } }],
    ['other resources kept', { capacity: { pvs: '3' } }, { capacity: { pvs: '3', shoots: '250' } }],
    ['shoots set', { capacity: { shoots: 10 } }, { capacity: { shoots: 10 } }],
    [
      'reserved kept',
      { reserved: { shoots: '5' } },
      { capacity: { shoots: '250' }, reserved: { shoots: '5' } },
    ],
  ];
  it.each(rows)('%s', (_name, resources, defaulted) => {
    expect(defaultManagedSeedResources(resources)).toEqual(defaulted);
  });

  it('does not mutate its input and the default is 250', () => {
    const input: ResourcesConfiguration = { capacity: {} };
    defaultManagedSeedResources(input);
    expect(input).toEqual({ capacity: {} });
    expect(MANAGED_SEED_DEFAULT_SHOOTS_CAPACITY).toBe(250);
  });
});

describe('readResources', () => {
  const rows: [string, unknown, ReturnType<typeof readResources>][] = [
    ['no config', undefined, { ok: true }],
    ['no resources', { seedConfig: {} }, { ok: true }],
    [
      'capacity and reserved',
      { resources: { capacity: { shoots: 10 }, reserved: { shoots: '1' } } },
      { ok: true, resources: { capacity: { shoots: 10 }, reserved: { shoots: '1' } } },
    ],
    [
      'resources not an object',
      { resources: 'many' },
      { ok: false, problems: ['resources: Invalid value: must be an object with capacity and reserved'] },
    ],
    [
      'capacity not a map of quantities',
      { resources: { capacity: { shoots: { value: 1 } }, reserved: [] } },
      {
        ok: false,
        problems: [
          'resources.capacity: Invalid value: must map resource names to quantities',
          'resources.reserved: Invalid value: must map resource names to quantities',
        ],
      },
    ],
  ];
  it.each(rows)('%s', (_name, config, result) => {
    expect(readResources(config)).toEqual(result);
  });
});
