import { StatusError } from '../api/errors.js';
import {
  checkShootUpdate,
  isShootBinding,
  prepareShootBinding,
  shootsOnSeed,
  type SeedLookup,
} from './shoot-binding.js';
import type { KubeObject, ResourceDef } from '../api/types.js';

const SHOOT = { group: 'core.gardener.cloud', kind: 'Shoot', plural: 'shoots' } as ResourceDef;
const OTHER = { group: 'example.com', kind: 'Shoot', plural: 'shoots' } as ResourceDef;

interface ShootOpts {
  seedName?: string;
  statusSeed?: string;
  deleting?: boolean;
  tolerations?: { key: string; value?: string }[];
  lastOperation?: { type: string; state: string };
  spec?: Record<string, unknown>;
}

function shoot(name: string, o: ShootOpts = {}): KubeObject {
  const status: Record<string, unknown> = {};
  if (o.statusSeed) status.seedName = o.statusSeed;
  if (o.lastOperation) status.lastOperation = o.lastOperation;
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: {
      name,
      namespace: 'garden-p',
      resourceVersion: '7',
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      region: 'r',
      ...(o.seedName !== undefined ? { seedName: o.seedName } : {}),
      ...(o.tolerations ? { tolerations: o.tolerations } : {}),
      ...o.spec,
    },
    status,
  };
}

function seed(
  name: string,
  o: {
    deleting?: boolean;
    allocatable?: string;
    taints?: { key: string; value?: string }[];
  } = {},
): KubeObject {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Seed',
    metadata: { name, ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: o.taints ? { taints: o.taints } : {},
    status: o.allocatable ? { allocatable: { shoots: o.allocatable } } : {},
  };
}

function lookup(seeds: KubeObject[], shoots: KubeObject[] = []): SeedLookup {
  return { seed: (n) => seeds.find((s) => s.metadata.name === n), shoots: () => shoots };
}

function failure(fn: () => unknown): { code: number; reason: string; message: string } | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return { code: e.code, reason: e.reason, message: e.message };
    throw e;
  }
  return undefined;
}

const FORBIDDEN = (name: string, why: string): { code: number; reason: string; message: string } => ({
  code: 403,
  reason: 'Forbidden',
  message: `shoots.core.gardener.cloud "${name}" is forbidden: ${why}`,
});

describe('isShootBinding', () => {
  it('is the binding subresource of core.gardener.cloud Shoots only', () => {
    expect(isShootBinding(SHOOT, 'binding')).toBe(true);
    expect(isShootBinding(SHOOT, 'status')).toBe(false);
    expect(isShootBinding(SHOOT, undefined)).toBe(false);
    expect(isShootBinding(OTHER, 'binding')).toBe(false);
  });
});

describe('checkShootUpdate (ShootValidator on the main resource)', () => {
  it.each([
    [
      'a first seed',
      undefined,
      'b',
      "spec.seedName 'nil' cannot be changed to 'b' by patching the shoot, please use the shoots/binding subresource",
    ],
    [
      'another seed',
      'a',
      'b',
      "spec.seedName 'a' cannot be changed to 'b' by patching the shoot, please use the shoots/binding subresource",
    ],
    [
      'no seed any more',
      'a',
      undefined,
      "spec.seedName is already set to 'a' and cannot be changed to 'nil'",
    ],
  ])('refuses %s', (_what, before, after, why) => {
    const err = failure(() =>
      checkShootUpdate(SHOOT, shoot('s', { seedName: before }), shoot('s', { seedName: after })),
    );
    expect(err).toEqual(FORBIDDEN('s', why));
  });

  it('lets other changes through, and other kinds alone', () => {
    const prev = shoot('s', { seedName: 'a' });
    expect(
      failure(() => checkShootUpdate(SHOOT, prev, shoot('s', { seedName: 'a', spec: { x: 1 } }))),
    ).toBeUndefined();
    expect(
      failure(() => checkShootUpdate(SHOOT, shoot('s'), shoot('s', { spec: { x: 1 } }))),
    ).toBeUndefined();
    expect(failure(() => checkShootUpdate(OTHER, shoot('s'), shoot('s', { seedName: 'b' })))).toBeUndefined();
  });

  it('refuses a spec change of a shoot being deleted (ValidateShootSpecUpdate)', () => {
    const err = failure(() =>
      checkShootUpdate(SHOOT, shoot('s', { deleting: true }), shoot('s', { deleting: true, spec: { x: 1 } })),
    );
    expect(err).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'Shoot.core.gardener.cloud "s" is invalid: spec: Forbidden: cannot update shoot spec if deletion timestamp is set. Requested changes: x: 1',
    });
  });
});

describe('prepareShootBinding (binding strategy and ShootValidator)', () => {
  const seeds = [seed('a'), seed('full', { allocatable: '1' }), seed('gone', { deleting: true })];

  it('binds: keeps the stored status, drops a Create Pending last operation', () => {
    const prev = shoot('s', { lastOperation: { type: 'Create', state: 'Pending' }, statusSeed: undefined });
    const incoming = { ...shoot('s', { seedName: 'a' }), status: { seedName: 'forged' } };
    const out = prepareShootBinding(prev, incoming, lookup(seeds));
    expect(out.spec).toEqual({ region: 'r', seedName: 'a' });
    expect(out.status).toEqual({});
  });

  it('keeps another last operation', () => {
    const prev = shoot('s', { lastOperation: { type: 'Create', state: 'Processing' } });
    const out = prepareShootBinding(prev, shoot('s', { seedName: 'a' }), lookup(seeds));
    expect(out.status).toEqual({ lastOperation: { type: 'Create', state: 'Processing' } });
  });

  it.each([
    [
      'the same seed again',
      shoot('s', { seedName: 'a' }),
      shoot('s', { seedName: 'a' }),
      {
        code: 500,
        reason: '',
        message: 'update of binding rejected, shoot is already assigned to the same seed',
      },
    ],
    [
      'an empty seed name',
      shoot('s'),
      shoot('s', { seedName: '' }),
      {
        code: 422,
        reason: 'Invalid',
        message:
          'Shoot.core.gardener.cloud "s" is invalid: spec.seedName: Invalid value: "": seed name must not be empty when providing the key',
      },
    ],
    [
      'no seed any more',
      shoot('s', { seedName: 'a' }),
      shoot('s'),
      FORBIDDEN('s', "spec.seedName is already set to 'a' and cannot be changed to 'nil'"),
    ],
    [
      'a seed marked for deletion',
      shoot('s'),
      shoot('s', { seedName: 'gone' }),
      FORBIDDEN('s', "cannot schedule shoot 's' on seed 'gone' that is already marked for deletion"),
    ],
    [
      'a full seed',
      shoot('s'),
      shoot('s', { seedName: 'full' }),
      FORBIDDEN(
        's',
        "cannot schedule shoot 's' on seed 'full' that already has the maximum number of shoots scheduled on it (1)",
      ),
    ],
    [
      'a seed that does not exist',
      shoot('s'),
      shoot('s', { seedName: 'nope' }),
      {
        code: 500,
        reason: 'InternalError',
        message:
          'Internal error occurred: could not find referenced seed "nope": seeds.core.gardener.cloud "nope" not found',
      },
    ],
  ])('refuses %s', (_what, prev, next, want) => {
    expect(
      failure(() => prepareShootBinding(prev, next, lookup(seeds, [shoot('other', { seedName: 'full' })]))),
    ).toEqual(want);
  });

  it('checks the taints of the seed against the tolerations of the shoot', () => {
    const tainted = [seed('t', { taints: [{ key: 'k', value: 'v' }] })];
    const err = failure(() =>
      prepareShootBinding(shoot('s'), shoot('s', { seedName: 't' }), lookup(tainted)),
    );
    expect(err).toEqual(
      FORBIDDEN('s', 'forbidden to use a seed whose taints are not tolerated by the shoot'),
    );
    const tolerating = shoot('s', { seedName: 't', tolerations: [{ key: 'k', value: 'v' }] });
    expect(
      prepareShootBinding(
        shoot('s', { tolerations: [{ key: 'k', value: 'v' }] }),
        tolerating,
        lookup(tainted),
      ).spec,
    ).toMatchObject({ seedName: 't' });
  });

  it('a move to another seed changes nothing else', () => {
    const backed = [seed('a'), seed('b')];
    const prev = shoot('s', { seedName: 'a' });
    expect(prepareShootBinding(prev, shoot('s', { seedName: 'b' }), lookup(backed)).spec).toMatchObject({
      seedName: 'b',
    });
    expect(
      failure(() => prepareShootBinding(prev, shoot('s', { seedName: 'b', spec: { x: 1 } }), lookup(backed))),
    ).toEqual(
      FORBIDDEN(
        's',
        'only spec.seedName can be changed using the binding subresource when the shoot is being rescheduled to a new seed',
      ),
    );
  });
});

describe('shootsOnSeed (CalculateSeedUsage)', () => {
  it('counts a shoot on its spec seed, and on a different status seed', () => {
    const shoots = [
      shoot('1', { seedName: 'a' }),
      shoot('2', { seedName: 'b', statusSeed: 'a' }),
      shoot('3', { seedName: 'a', statusSeed: 'a' }),
      shoot('4'),
    ];
    expect(shootsOnSeed(shoots, 'a')).toBe(3);
    expect(shootsOnSeed(shoots, 'b')).toBe(1);
  });
});
