import type { GardenerCondition, Seed, Shoot } from '../api/core.js';
import type { ManagedSeed } from '../api/seedmanagement.js';
import {
  GARDENER_FINALIZER,
  MANAGED_SEED_OUTCOMES,
  decideManagedSeed,
  desiredSeed,
  isManagedSeedOutcome,
  seedTemplateOf,
  shootReconciled,
  type ManagedSeedDecision,
  type ManagedSeedInput,
  type ManagedSeedOutcome,
} from './managedseed.js';

const NOW = new Date('2024-05-01T10:00:00.123Z');
const NOW_TIME = '2024-05-01T10:00:00Z';
const EARLIER = '2024-04-01T00:00:00Z';

const seedSpec = {
  provider: { type: 'local', region: 'local' },
  ingress: { domain: 'ingress.ms-1.example' },
};

function managedSeed(patch: (ms: ManagedSeed) => void = () => undefined): ManagedSeed {
  const ms: ManagedSeed = {
    metadata: { name: 'ms-1', namespace: 'garden', uid: 'uid-ms', generation: 2, finalizers: ['gardener'] },
    spec: {
      shoot: { name: 'shoot-1' },
      gardenlet: {
        config: { seedConfig: { metadata: { labels: { a: 'b' } }, spec: structuredClone(seedSpec) } },
      },
    },
  };
  patch(ms);
  return ms;
}

function shoot(patch: (s: Shoot) => void = () => undefined): Shoot {
  const s: Shoot = {
    metadata: { name: 'shoot-1', namespace: 'garden', generation: 3 },
    spec: { region: 'r', provider: { type: 'local' } },
    status: { observedGeneration: 3, lastOperation: { type: 'Reconcile', state: 'Succeeded' } },
  };
  patch(s);
  return s;
}

function input(patch: Partial<ManagedSeedInput> = {}): ManagedSeedInput {
  return { managedSeed: managedSeed(), shoot: shoot(), now: NOW, ...patch };
}

const deleting = (ms: ManagedSeed): void => {
  ms.metadata!.deletionTimestamp = EARLIER;
};

function condition(d: ManagedSeedDecision, type: string): GardenerCondition | undefined {
  return d.status?.conditions?.find((c) => c.type === type);
}

describe('shootReconciled', () => {
  it.each<[string, Shoot, boolean]>([
    ['current generation succeeded', shoot(), true],
    ['generation ahead', shoot((s) => (s.metadata!.generation = 4)), false],
    ['processing', shoot((s) => (s.status!.lastOperation!.state = 'Processing')), false],
    ['failed', shoot((s) => (s.status!.lastOperation!.state = 'Failed')), false],
    ['no lastOperation', shoot((s) => delete s.status!.lastOperation), false],
    [
      'no generations at all, succeeded',
      shoot((s) => (delete s.metadata!.generation, delete s.status!.observedGeneration)),
      true,
    ],
  ])('%s → %s', (_n, s, want) => {
    expect(shootReconciled(s)).toBe(want);
  });
});

describe('decideManagedSeed: outcomes', () => {
  const seed = desiredSeed(managedSeed(), {
    spec: structuredClone(seedSpec),
    metadata: { labels: { a: 'b' } },
  });
  const rows: [string, ManagedSeedInput, ManagedSeedOutcome, string[], number | undefined][] = [
    ['reconciled shoot, no seed yet', input(), 'registered', ['apply-seed'], 3_600_000],
    ['reconciled shoot, seed up to date', input({ seed }), 'registered', [], 3_600_000],
    [
      'no finalizer yet',
      input({ managedSeed: managedSeed((ms) => (ms.metadata!.finalizers = [])) }),
      'registered',
      ['add-finalizer', 'apply-seed'],
      3_600_000,
    ],
    [
      'shoot still reconciling',
      input({ shoot: shoot((s) => (s.status!.lastOperation!.state = 'Processing')) }),
      'waiting-for-shoot',
      [],
      15_000,
    ],
    [
      'shoot not reconciled and no finalizer',
      input({
        managedSeed: managedSeed((ms) => delete ms.metadata!.finalizers),
        shoot: shoot((s) => (s.metadata!.generation = 9)),
      }),
      'waiting-for-shoot',
      ['add-finalizer'],
      15_000,
    ],
    ['shoot missing', input({ shoot: undefined }), 'error', [], undefined],
    [
      'no shoot name',
      input({ managedSeed: managedSeed((ms) => delete ms.spec.shoot) }),
      'error',
      [],
      undefined,
    ],
    [
      'no seed config',
      input({ managedSeed: managedSeed((ms) => delete ms.spec.gardenlet!.config!.seedConfig) }),
      'error',
      [],
      undefined,
    ],
    [
      'deleting, seed exists and unused',
      input({ managedSeed: managedSeed(deleting), seed }),
      'deleting-seed',
      ['delete-seed'],
      15_000,
    ],
    [
      'deleting, seed already terminating',
      input({
        managedSeed: managedSeed(deleting),
        seed: { ...seed, metadata: { ...seed.metadata, deletionTimestamp: EARLIER } },
      }),
      'waiting-for-seed-deletion',
      [],
      15_000,
    ],
    [
      'deleting, seed still used',
      input({ managedSeed: managedSeed(deleting), seed, shootsUsingSeed: [{ spec: { seedName: 'ms-1' } }] }),
      'error',
      [],
      undefined,
    ],
    [
      'deleting, seed gone',
      input({ managedSeed: managedSeed(deleting) }),
      'deleted',
      ['remove-finalizer'],
      undefined,
    ],
    [
      'deleting, seed and shoot gone',
      input({ managedSeed: managedSeed(deleting), shoot: undefined }),
      'deleted',
      ['remove-finalizer'],
      undefined,
    ],
    [
      'deleting without our finalizer',
      input({
        managedSeed: managedSeed((ms) => (deleting(ms), (ms.metadata!.finalizers = ['other']))),
        seed,
      }),
      'skip',
      [],
      undefined,
    ],
  ];

  it.each(rows)('%s → %s', (_n, i, outcome, ops, requeue) => {
    const d = decideManagedSeed(i);
    expect(d.outcome).toBe(outcome);
    expect(d.actions.map((a) => a.op)).toEqual(ops);
    expect(d.requeueAfterMs).toBe(requeue);
    expect(d.error !== undefined).toBe(outcome === 'error');
  });

  it('covers every outcome', () => {
    expect(new Set(rows.map((r) => r[2]))).toEqual(new Set(MANAGED_SEED_OUTCOMES));
  });

  it.each([
    ['registered', true],
    ['nope', false],
    [1, false],
  ])('isManagedSeedOutcome(%j) → %s', (v, want) => {
    expect(isManagedSeedOutcome(v)).toBe(want);
  });
});

describe('decideManagedSeed: conditions, events and messages', () => {
  it('waiting: ShootReconciled=False, Reconciling, upstream message, observedGeneration', () => {
    const d = decideManagedSeed(input({ shoot: shoot((s) => (s.metadata!.generation = 4)) }));
    expect(condition(d, 'ShootReconciled')).toEqual({
      type: 'ShootReconciled',
      status: 'False',
      reason: 'Reconciling',
      message: 'Waiting for shoot "garden/shoot-1" to be reconciled',
      lastTransitionTime: NOW_TIME,
      lastUpdateTime: NOW_TIME,
    });
    expect(condition(d, 'SeedRegistered')).toBeUndefined();
    expect(d.status?.observedGeneration).toBe(2);
    expect(d.events).toEqual([
      {
        type: 'Normal',
        reason: 'Reconciling',
        message: 'Waiting for shoot "garden/shoot-1" to be reconciled',
      },
    ]);
  });

  it('registered: both conditions True, seed from the gardenlet seedConfig', () => {
    const d = decideManagedSeed(input());
    expect(condition(d, 'ShootReconciled')).toMatchObject({
      status: 'True',
      reason: 'Reconciled',
      message: 'Shoot "garden/shoot-1" has been reconciled',
    });
    expect(condition(d, 'SeedRegistered')).toMatchObject({
      status: 'True',
      reason: 'Reconciled',
      message: 'Seed ms-1 has been registered',
    });
    expect(d.actions[0]).toEqual({
      op: 'apply-seed',
      seed: {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Seed',
        metadata: {
          name: 'ms-1',
          labels: { a: 'b', 'gardener.cloud/role': 'seed' },
          ownerReferences: [
            {
              apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
              kind: 'ManagedSeed',
              name: 'ms-1',
              uid: 'uid-ms',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: seedSpec,
      },
    });
  });

  it('keeps the transition time of an unchanged condition', () => {
    const ms = managedSeed((m) => {
      m.status = {
        conditions: [
          {
            type: 'SeedRegistered',
            status: 'True',
            reason: 'Reconciled',
            message: 'Seed ms-1 has been registered',
            lastTransitionTime: EARLIER,
            lastUpdateTime: EARLIER,
          },
        ],
      };
    });
    const d = decideManagedSeed(input({ managedSeed: ms }));
    expect(condition(d, 'SeedRegistered')).toMatchObject({
      lastTransitionTime: EARLIER,
      lastUpdateTime: EARLIER,
    });
  });

  it('missing shoot: SeedRegistered=False ReconcileError and a Warning Event', () => {
    const d = decideManagedSeed(input({ shoot: undefined }));
    const message = 'could not get shoot garden/shoot-1: shoots.core.gardener.cloud "shoot-1" not found';
    expect(d.error).toBe(message);
    expect(condition(d, 'SeedRegistered')).toMatchObject({
      status: 'False',
      reason: 'ReconcileError',
      message,
    });
    expect(d.events).toEqual([{ type: 'Warning', reason: 'ReconcileError', message }]);
  });

  it('seed in use: upstream admission message, no delete', () => {
    const d = decideManagedSeed(
      input({
        managedSeed: managedSeed(deleting),
        seed: { metadata: { name: 'ms-1' }, spec: seedSpec },
        shootsUsingSeed: [{ spec: {}, status: { seedName: 'ms-1' } }],
      }),
    );
    expect(d.error).toBe(
      'could not delete seed ms-1: cannot delete seed ms-1 since it is still used by shoot(s)',
    );
    expect(condition(d, 'SeedRegistered')).toMatchObject({ status: 'False', reason: 'DeleteError' });
  });

  it('deleting: Unregistering, Deleting Event', () => {
    const d = decideManagedSeed(
      input({ managedSeed: managedSeed(deleting), seed: { metadata: { name: 'ms-1' }, spec: seedSpec } }),
    );
    expect(condition(d, 'SeedRegistered')).toMatchObject({
      status: 'False',
      reason: 'Deleting',
      message: 'Unregistering seed ms-1',
    });
    expect(d.events).toEqual([{ type: 'Normal', reason: 'Deleting', message: 'Deleting seed ms-1' }]);
    expect(d.actions).toEqual([{ op: 'delete-seed', name: 'ms-1' }]);
  });

  it('deleted: no status to write, the finalizer goes', () => {
    const d = decideManagedSeed(input({ managedSeed: managedSeed(deleting) }));
    expect(d.status).toBeUndefined();
    expect(d.actions).toEqual([{ op: 'remove-finalizer', finalizer: GARDENER_FINALIZER }]);
  });

  it('does not mutate its input', () => {
    const i = input();
    const before = structuredClone(i.managedSeed);
    decideManagedSeed(i);
    expect(i.managedSeed).toEqual(before);
  });
});

describe('seed template', () => {
  it.each<[string, ManagedSeed, string | undefined]>([
    ['gardenlet seedConfig', managedSeed(), undefined],
    [
      'seedTemplate wins',
      managedSeed((ms) => (ms.spec.seedTemplate = { spec: { provider: { type: 't', region: 'r' } } })),
      undefined,
    ],
    [
      'no gardenlet config',
      managedSeed((ms) => delete ms.spec.gardenlet),
      'no gardenlet config provided in object: "ms-1"',
    ],
    [
      'no seedConfig',
      managedSeed((ms) => delete ms.spec.gardenlet!.config!.seedConfig),
      'no seed config found for managedseed ms-1',
    ],
  ])('%s', (_n, ms, error) => {
    const r = seedTemplateOf(ms);
    if (error) expect(r).toEqual({ error });
    else expect('template' in r).toBe(true);
  });

  it('a seed without uid has no owner reference; template annotations are copied', () => {
    const ms = managedSeed((m) => delete m.metadata!.uid);
    const s: Seed = desiredSeed(ms, { metadata: { annotations: { x: 'y' } }, spec: seedSpec });
    expect(s.metadata).toEqual({
      name: 'ms-1',
      labels: { 'gardener.cloud/role': 'seed' },
      annotations: { x: 'y' },
    });
  });
});
