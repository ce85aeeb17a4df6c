import {
  minTargetReplicasReached,
  notFoundMessage,
  planResource,
  planScaling,
  resourceKey,
  scaleUpReplicas,
  waitTimeoutMessage,
  type ObservedResource,
  type ScalableResource,
  type ScaleDirection,
} from './scaler.js';
import { IGNORE, MELTDOWN, REPLICAS, res } from './scaler.fixtures.js';

const KCM = res('kube-controller-manager', 0);

describe('planResource', () => {
  const removeBoth = { [MELTDOWN]: null, [REPLICAS]: null };
  const cases: {
    name: string;
    direction: ScaleDirection;
    resource?: ScalableResource;
    observed: ObservedResource | undefined;
    expected: Record<string, unknown>;
    noWait?: boolean;
  }[] = [
    {
      name: 'scale-down records replicas and meltdown, then scales to 0, then waits for 0 ready',
      direction: 'down',
      observed: { found: true, replicas: 3, annotations: {} },
      expected: {
        action: 'scale',
        operations: [
          { op: 'patch-annotations', annotations: { [REPLICAS]: '3', [MELTDOWN]: '' } },
          { op: 'scale', replicas: 0, timeoutMs: 30_000 },
        ],
        wait: { minTargetReplicas: 0, timeoutMs: 5_000, intervalMs: 1_000 },
      },
    },
    {
      name: 'scale-down of a resource already at 0: skipped, still waits for 0 ready',
      direction: 'down',
      observed: { found: true, replicas: 0, annotations: {} },
      expected: {
        action: 'skip',
        skipReason: 'already-scaled',
        operations: [],
        wait: { minTargetReplicas: 0 },
      },
    },
    {
      name: 'scale-up restores the replicas annotation, then removes both annotations',
      direction: 'up',
      observed: { found: true, replicas: 0, annotations: { [REPLICAS]: '2', [MELTDOWN]: '' } },
      expected: {
        action: 'scale',
        operations: [
          { op: 'scale', replicas: 2, timeoutMs: 30_000 },
          { op: 'patch-annotations', annotations: removeBoth },
        ],
        wait: { minTargetReplicas: 1 },
      },
    },
    {
      name: 'scale-up without replicas annotation falls back to 1',
      direction: 'up',
      observed: { found: true, replicas: 0 },
      expected: {
        action: 'scale',
        operations: [{ op: 'scale', replicas: 1, timeoutMs: 30_000 }, expect.anything()],
      },
    },
    {
      name: 'scale-up of a running resource: skipped, waits for 1 ready',
      direction: 'up',
      observed: { found: true, replicas: 2, annotations: {} },
      expected: {
        action: 'skip',
        skipReason: 'already-scaled',
        operations: [],
        wait: { minTargetReplicas: 1 },
      },
    },
    {
      name: 'scale-up of a running resource with a leftover meltdown annotation removes it',
      direction: 'up',
      observed: { found: true, replicas: 2, annotations: { [MELTDOWN]: '' } },
      expected: {
        action: 'skip',
        skipReason: 'already-scaled',
        operations: [{ op: 'patch-annotations', annotations: removeBoth }],
        message: 'Removing leftover meltdown protection annotation from last scale up operation',
      },
    },
    {
      name: 'invalid replicas annotation: error with upstream message, nothing runs',
      direction: 'up',
      observed: { found: true, replicas: 0, annotations: { [REPLICAS]: 'three' } },
      expected: {
        action: 'error',
        operations: [],
        error:
          'unexpected and invalid replicasStr set as value for annotation: dependency-watchdog.gardener.cloud/replicas for resource, Err: strconv.Atoi: parsing "three": invalid syntax',
      },
    },
    {
      name: 'invalid replicas annotation does not matter on scale-down (overwritten)',
      direction: 'down',
      observed: { found: true, replicas: 1, annotations: { [REPLICAS]: 'three' } },
      expected: {
        action: 'scale',
        operations: [
          { op: 'patch-annotations', annotations: { [REPLICAS]: '1', [MELTDOWN]: '' } },
          expect.anything(),
        ],
      },
    },
    {
      name: 'mandatory resource missing: NotFound error',
      direction: 'down',
      observed: { found: false },
      expected: { action: 'error', error: 'deployments.apps "kube-controller-manager" not found' },
    },
    {
      name: 'mandatory resource not observed at all: NotFound error',
      direction: 'up',
      observed: undefined,
      expected: { action: 'error', error: 'deployments.apps "kube-controller-manager" not found' },
    },
    {
      name: 'optional resource missing: skipped, no wait',
      direction: 'up',
      resource: res('cluster-autoscaler', 2, { optional: true }),
      observed: { found: false },
      expected: { action: 'skip', skipReason: 'optional-not-found', operations: [] },
      noWait: true,
    },
    {
      name: 'optional resource present is scaled like any other',
      direction: 'down',
      resource: res('cluster-autoscaler', 0, { optional: true }),
      observed: { found: true, replicas: 1 },
      expected: { action: 'scale' },
    },
  ];
  it.each(cases)('$name', (c) => {
    const plan = planResource(c.direction, c.resource ?? KCM, c.observed);
    expect(plan).toMatchObject(c.expected);
    expect(plan.wait === undefined).toBe(c.noWait === true || plan.action === 'error');
  });

  describe('ignore-scaling annotation (Go ParseBool true values skip)', () => {
    it.each([
      ['1', true],
      ['t', true],
      ['T', true],
      ['TRUE', true],
      ['true', true],
      ['True', true],
      ['0', false],
      ['false', false],
      ['yes', false],
      ['TrUe', false],
      ['', false],
      [' true', false],
    ])('%j → skipped: %s', (value, skipped) => {
      for (const direction of ['up', 'down'] as const) {
        const plan = planResource(direction, KCM, {
          found: true,
          replicas: direction === 'up' ? 0 : 2,
          annotations: { [IGNORE]: value },
        });
        expect(plan.action).toBe(skipped ? 'skip' : 'scale');
        if (skipped) expect(plan).toMatchObject({ skipReason: 'ignore-scaling', operations: [] });
        expect(plan.wait === undefined).toBe(skipped);
      }
    });
    it('removes a leftover meltdown annotation from an ignored resource', () => {
      const plan = planResource('down', KCM, {
        found: true,
        replicas: 0,
        annotations: { [IGNORE]: 'true', [MELTDOWN]: '' },
      });
      expect(plan).toMatchObject({
        action: 'skip',
        skipReason: 'ignore-scaling',
        operations: [{ op: 'patch-annotations', annotations: { [MELTDOWN]: null, [REPLICAS]: null } }],
      });
    });
  });
});

describe('scaleUpReplicas (Go strconv.Atoi)', () => {
  const prefix =
    'unexpected and invalid replicasStr set as value for annotation: dependency-watchdog.gardener.cloud/replicas for resource, Err: ';
  it.each([
    ['absent', undefined, { replicas: 1 }],
    ['"3"', '3', { replicas: 3 }],
    ['"+4"', '+4', { replicas: 4 }],
    ['"007"', '007', { replicas: 7 }],
    ['empty', '', { error: `${prefix}strconv.Atoi: parsing "": invalid syntax` }],
    ['"2.5"', '2.5', { error: `${prefix}strconv.Atoi: parsing "2.5": invalid syntax` }],
    ['" 2"', ' 2', { error: `${prefix}strconv.Atoi: parsing " 2": invalid syntax` }],
    ['"0x10"', '0x10', { error: `${prefix}strconv.Atoi: parsing "0x10": invalid syntax` }],
    [
      'beyond int64',
      '99999999999999999999',
      { error: `${prefix}strconv.Atoi: parsing "99999999999999999999": value out of range` },
    ],
    ['"0"', '0', { error: `${prefix}replicas 0 out of range, must be between 1 and 2147483647` }],
    ['"-1"', '-1', { error: `${prefix}replicas -1 out of range, must be between 1 and 2147483647` }],
    [
      'beyond int32',
      '2147483648',
      { error: `${prefix}replicas 2147483648 out of range, must be between 1 and 2147483647` },
    ],
  ])('%s', (_n, value, expected) => {
    expect(scaleUpReplicas(value === undefined ? {} : { [REPLICAS]: value })).toEqual(expected);
  });
});

describe('planScaling: levels', () => {
  // The spec's example dependents.
  const up = [
    res('kube-controller-manager', 0),
    res('machine-controller-manager', 1, { initialDelayMs: 30_000 }),
    res('cluster-autoscaler', 2, { optional: true }),
  ];
  const down = [
    res('kube-controller-manager', 1),
    res('machine-controller-manager', 0),
    res('cluster-autoscaler', 0, { optional: true }),
  ];
  const all = (o: ObservedResource): Record<string, ObservedResource> =>
    Object.fromEntries(up.map((r) => [resourceKey(r), o]));

  it('orders levels ascending; same level keeps config order', () => {
    const plan = planScaling({
      direction: 'down',
      namespace: 'shoot--p--s',
      resources: down,
      observed: all({ found: true, replicas: 1 }),
    });
    expect(plan.levels.map((l) => [l.level, l.resources.map((r) => r.resource.name)])).toEqual([
      [0, ['machine-controller-manager', 'cluster-autoscaler']],
      [1, ['kube-controller-manager']],
    ]);
    const sparse = planScaling({
      direction: 'up',
      namespace: 'ns',
      resources: [res('a', 7), res('b', -1), res('c', 3), res('d', 7)],
      observed: {},
    });
    expect(sparse.levels.map((l) => l.level)).toEqual([-1, 3, 7]);
    expect(sparse.levels[2].resources.map((r) => r.key)).toEqual(['Deployment/a', 'Deployment/d']);
  });

  it('mandatory and optional resources missing: optional skipped, mandatory errors', () => {
    const plan = planScaling({ direction: 'up', namespace: 'ns', resources: up, observed: {} });
    expect(plan.levels.map((l) => l.resources.map((r) => [r.action, r.skipReason ?? r.error]))).toEqual([
      [['error', 'deployments.apps "kube-controller-manager" not found']],
      [['error', 'deployments.apps "machine-controller-manager" not found']],
      [['skip', 'optional-not-found']],
    ]);
  });

  it('empty resources: no levels, done at once', () => {
    const plan = planScaling({ direction: 'up', namespace: 'ns', resources: [], observed: {} });
    expect(plan.levels).toEqual([]);
  });
});

describe('waiting for readyReplicas', () => {
  it.each([
    ['up', 0, false],
    ['up', undefined, false],
    ['up', 1, true],
    ['up', 3, true],
    ['down', 0, true],
    ['down', undefined, true],
    ['down', 1, false],
  ] as const)('%s with readyReplicas %s → reached %s', (direction, ready, reached) => {
    expect(minTargetReplicasReached(direction, ready)).toBe(reached);
  });
  it('times out with upstream message', () => {
    expect(waitTimeoutMessage('shoot--p--s', 'kube-controller-manager', 1)).toBe(
      'timed out waiting for {namespace: shoot--p--s, resource: kube-controller-manager} to reach minTargetReplicas 1',
    );
  });
});

describe('notFoundMessage', () => {
  it.each([
    [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'x' }, 'statefulsets.apps "x" not found'],
    [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'y' }, 'replicationcontrollers "y" not found'],
    [{ kind: 'Deployment', name: 'z' }, 'deployments "z" not found'],
  ])('%j', (ref, msg) => {
    expect(notFoundMessage(ref)).toBe(msg);
  });
});
