import {
  DEFAULT_UNHEALTHY_NODE_CONDITIONS,
  THROTTLED_BACKOFF_MS,
  decideBackoff,
  decideLeaseProbe,
  formatProbeError,
  isLeaseExpired,
  isProbeErrorCode,
  jitteredIntervalMs,
  leaseCandidates,
  unhealthyConditionsByPool,
  type ProbeLease,
  type ProbeMachine,
  type ProbeNode,
  type ProbeNodeCondition,
} from './lease.js';

const NOW = new Date('2024-05-01T12:00:00.000Z');
const GRACE_MS = 40_000; // expiry buffer 30 s

function node(
  name: string,
  opts: { pool?: string; unmanaged?: boolean; conditions?: ProbeNodeCondition[] } = {},
): ProbeNode {
  return {
    metadata: {
      name,
      labels: opts.pool ? { 'worker.gardener.cloud/pool': opts.pool } : {},
      annotations: opts.unmanaged ? { 'node.machine.sapcloud.io/not-managed-by-mcm': '' } : {},
    },
    status: { conditions: [{ type: 'Ready', status: 'True' }, ...(opts.conditions ?? [])] },
  };
}
function machine(nodeName: string, phase = 'Running'): ProbeMachine {
  return {
    metadata: { name: `m-${nodeName}`, labels: { node: nodeName } },
    status: { currentStatus: { phase } },
  };
}
function lease(name: string, ageMs = 0, namespace = 'kube-node-lease'): ProbeLease {
  return {
    metadata: { name, namespace },
    spec: { renewTime: new Date(NOW.getTime() - ageMs).toISOString() },
  };
}

describe('unhealthyConditionsByPool', () => {
  it('gives entries only to pools with MCM settings; empty nodeConditions fall back to the default', () => {
    expect(
      unhealthyConditionsByPool([
        { name: 'a' },
        { name: 'b', machineControllerManagerSettings: {} },
        { name: 'c', machineControllerManagerSettings: { nodeConditions: [] } },
        { name: 'd', machineControllerManagerSettings: { nodeConditions: ['Custom'] } },
      ]),
    ).toEqual({
      b: [...DEFAULT_UNHEALTHY_NODE_CONDITIONS],
      c: [...DEFAULT_UNHEALTHY_NODE_CONDITIONS],
      d: ['Custom'],
    });
  });
});

describe('leaseCandidates', () => {
  const byPool = { custom: ['Custom'] };
  const cases: {
    name: string;
    nodes: ProbeNode[];
    machines: ProbeMachine[];
    leases: ProbeLease[];
    candidates: string[];
    excluded: [string, string][];
    ignored?: string[];
  }[] = [
    {
      name: 'managed, healthy nodes with running machines are candidates',
      nodes: [node('n1'), node('n2')],
      machines: [machine('n1'), machine('n2')],
      leases: [lease('n1'), lease('n2')],
      candidates: ['n1', 'n2'],
      excluded: [],
    },
    {
      name: 'unmanaged node (annotation present, any value) is excluded',
      nodes: [node('n1', { unmanaged: true }), node('n2')],
      machines: [machine('n1'), machine('n2')],
      leases: [lease('n1'), lease('n2')],
      candidates: ['n2'],
      excluded: [['n1', 'not-managed-by-mcm']],
      ignored: ['n1'],
    },
    {
      name: 'failed machine excludes its node',
      nodes: [node('n1'), node('n2')],
      machines: [machine('n1', 'Failed'), machine('n2')],
      leases: [lease('n1'), lease('n2')],
      candidates: ['n2'],
      excluded: [['n1', 'no-active-machine']],
      ignored: ['n1'],
    },
    {
      name: 'terminating machine excludes its node',
      nodes: [node('n1'), node('n2')],
      machines: [machine('n1', 'Terminating'), machine('n2')],
      leases: [lease('n1'), lease('n2')],
      candidates: ['n2'],
      excluded: [['n1', 'no-active-machine']],
      ignored: ['n1'],
    },
    {
      name: 'node without a machine is excluded; Pending/Unknown/no phase machines keep the node',
      nodes: [node('n0'), node('n1'), node('n2'), node('n3')],
      machines: [
        machine('n1', 'Pending'),
        machine('n2', 'Unknown'),
        { metadata: { labels: { node: 'n3' } } },
      ],
      leases: [lease('n0'), lease('n1'), lease('n2'), lease('n3')],
      candidates: ['n1', 'n2', 'n3'],
      excluded: [['n0', 'no-active-machine']],
      ignored: ['n0'],
    },
    {
      name: 'a failed machine and a running machine for the same node: the running one counts',
      nodes: [node('n1')],
      machines: [machine('n1', 'Failed'), machine('n1', 'Running')],
      leases: [lease('n1')],
      candidates: ['n1'],
      excluded: [],
    },
    {
      name: 'default unhealthy conditions apply to nodes without pool label or of pools without settings',
      nodes: [
        node('n1', { conditions: [{ type: 'DiskPressure', status: 'True' }] }),
        node('n2', { pool: 'other', conditions: [{ type: 'KernelDeadlock', status: 'True' }] }),
        node('n3', { conditions: [{ type: 'DiskPressure', status: 'False' }] }),
        node('n4', { conditions: [{ type: 'Custom', status: 'True' }] }),
      ],
      machines: ['n1', 'n2', 'n3', 'n4'].map((n) => machine(n)),
      leases: ['n1', 'n2', 'n3', 'n4'].map((n) => lease(n)),
      candidates: ['n3', 'n4'],
      excluded: [
        ['n1', 'unhealthy-condition'],
        ['n2', 'unhealthy-condition'],
      ],
      ignored: ['n1', 'n2'],
    },
    {
      name: "a pool's own condition types replace the default for its nodes",
      nodes: [
        node('n1', { pool: 'custom', conditions: [{ type: 'DiskPressure', status: 'True' }] }),
        node('n2', { pool: 'custom', conditions: [{ type: 'Custom', status: 'True' }] }),
        node('n3', { pool: 'custom', conditions: [{ type: 'Custom', status: 'Unknown' }] }),
      ],
      machines: ['n1', 'n2', 'n3'].map((n) => machine(n)),
      leases: ['n1', 'n2', 'n3'].map((n) => lease(n)),
      candidates: ['n1', 'n3'],
      excluded: [['n2', 'unhealthy-condition']],
      ignored: ['n2'],
    },
    {
      name: 'in-place update ReadyForUpdate / UpdateFailed exclude; other reasons do not',
      nodes: [
        node('n1', { conditions: [{ type: 'InPlaceUpdate', status: 'True', reason: 'ReadyForUpdate' }] }),
        node('n2', { conditions: [{ type: 'InPlaceUpdate', status: 'False', reason: 'UpdateFailed' }] }),
        node('n3', { conditions: [{ type: 'InPlaceUpdate', status: 'True', reason: 'UpdateSuccessful' }] }),
      ],
      machines: ['n1', 'n2', 'n3'].map((n) => machine(n)),
      leases: ['n1', 'n2', 'n3'].map((n) => lease(n)),
      candidates: ['n3'],
      excluded: [
        ['n1', 'in-place-update'],
        ['n2', 'in-place-update'],
      ],
      ignored: ['n1', 'n2'],
    },
    {
      name: 'orphan leases (no node) and leases outside kube-node-lease are ignored',
      nodes: [node('n1'), node('n2')],
      machines: [machine('n1'), machine('n2')],
      leases: [lease('n1'), lease('n2'), lease('gone'), lease('n1', 0, 'default')],
      candidates: ['n1', 'n2'],
      excluded: [],
      ignored: ['gone', 'n1'],
    },
    {
      name: 'no nodes: zero candidates',
      nodes: [],
      machines: [],
      leases: [lease('gone')],
      candidates: [],
      excluded: [],
      ignored: ['gone'],
    },
  ];
  it.each(cases)('$name', (c) => {
    const got = leaseCandidates({
      nodes: c.nodes,
      machines: c.machines,
      leases: c.leases,
      conditionsByPool: byPool,
    });
    expect(got.candidates.map((l) => l.metadata?.name)).toEqual(c.candidates);
    expect(got.excludedNodes.map((e) => [e.node, e.reason])).toEqual(c.excluded);
    expect(got.ignoredLeases).toEqual(c.ignored ?? []);
  });
});

describe('isLeaseExpired', () => {
  it.each([
    ['renewed just now', 0, false],
    ['one ms before 0.75 × grace', 29_999, false],
    ['exactly 0.75 × grace (equal counts as expired)', 30_000, true],
    ['past 0.75 × grace', 35_000, true],
  ])('%s', (_name, age, expired) => {
    expect(isLeaseExpired(lease('n', age), NOW, GRACE_MS)).toBe(expired);
  });
  it('takes Date renewTimes (client-node models) and counts a missing renewTime as expired', () => {
    expect(isLeaseExpired({ spec: { renewTime: new Date(NOW.getTime() - 10_000) } }, NOW, GRACE_MS)).toBe(
      false,
    );
    expect(isLeaseExpired({ spec: {} }, NOW, GRACE_MS)).toBe(true);
    expect(isLeaseExpired({ spec: { renewTime: null } }, NOW, GRACE_MS)).toBe(true);
  });
  it('keeps sub-ms precision of 0.75 × grace', () => {
    // grace 1 ms → buffer 0.75 ms: renewed at NOW is not expired at NOW, is at NOW + 1 ms
    expect(isLeaseExpired(lease('n', 0), NOW, 1)).toBe(false);
    expect(isLeaseExpired(lease('n', 0), new Date(NOW.getTime() + 1), 1)).toBe(true);
  });
});

describe('decideLeaseProbe', () => {
  const ages = (...a: number[]): ProbeLease[] => a.map((age, i) => lease(`n${i}`, age));
  const cases: [string, ProbeLease[], number, string, string, number][] = [
    ['single-node cluster: ignored whatever its lease says', ages(60_000), 0.6, 'ignored', 'none', 1],
    ['zero candidates: scale up', [], 0.6, 'healthy', 'up', 0],
    ['no expired leases: healthy', ages(0, 0, 0), 0.6, 'healthy', 'up', 0],
    ['1 of 2 expired, 0.5 < 0.6: healthy', ages(0, 31_000), 0.6, 'healthy', 'up', 0.5],
    [
      '3 of 5 expired, 0.6 is not < 0.6: unhealthy',
      ages(0, 0, 30_000, 31_000, 99_000),
      0.6,
      'unhealthy',
      'down',
      0.6,
    ],
    ['2 of 3 expired: unhealthy', ages(0, 30_000, 30_000), 0.6, 'unhealthy', 'down', 2 / 3],
    ['all expired: unhealthy', ages(30_000, 30_000), 0.6, 'unhealthy', 'down', 1],
    [
      'fraction 1: even all expired is unhealthy (1 < 1 false)',
      ages(30_000, 30_000),
      1,
      'unhealthy',
      'down',
      1,
    ],
  ];
  it.each(cases)('%s', (_name, candidates, threshold, outcome, scale, fraction) => {
    const got = decideLeaseProbe({
      candidates,
      now: NOW,
      nodeMonitorGracePeriodMs: GRACE_MS,
      nodeLeaseFailureFraction: threshold,
    });
    expect(got).toMatchObject({
      outcome,
      scale,
      expiredLeasesFraction: fraction,
      expirationThreshold: threshold,
      total: candidates.length,
    });
  });
  it('prints upstream log lines', () => {
    const probe = (c: ProbeLease[]): string =>
      decideLeaseProbe({
        candidates: c,
        now: NOW,
        nodeMonitorGracePeriodMs: GRACE_MS,
        nodeLeaseFailureFraction: 0.6,
      }).message;
    expect(probe(ages(30_000, 30_000))).toBe(
      'Lease probe failed, performing scale down operation if required',
    );
    expect(probe(ages(0, 0))).toBe('Lease probe succeeded, performing scale up operation if required');
    expect(probe([])).toBe(
      'No owned node leases are present in the cluster, performing scale up operation if required',
    );
  });
});

describe('decideBackoff', () => {
  const at = (ms: number): Date => new Date(NOW.getTime() + ms);
  it.each([
    ['no jitter', 0, 0, 10_000],
    ['max jitter (rand → 1)', 0.2, 0.999, 10_000 * (1 + 0.999 * 0.2)],
    ['half jitter', 0.2, 0.5, 11_000],
    ['negative jitter factor counts as 0', -1, 0.5, 10_000],
  ])('jittered interval: %s', (_n, factor, rand, expected) => {
    expect(jitteredIntervalMs(10_000, factor, rand)).toBeCloseTo(expected, 6);
    expect(
      decideBackoff({
        now: NOW,
        throttled: false,
        probeIntervalMs: 10_000,
        backoffJitterFactor: factor,
        rand,
      }),
    ).toEqual({
      nextProbeAt: at(expected),
    });
  });
  it('429: backs off 10 s from now; the later of back-off and interval wins', () => {
    expect(
      decideBackoff({ now: NOW, throttled: true, probeIntervalMs: 2_000, backoffJitterFactor: 0.2, rand: 0 }),
    ).toEqual({ nextProbeAt: at(THROTTLED_BACKOFF_MS), backoffUntil: at(THROTTLED_BACKOFF_MS) });
    expect(
      decideBackoff({ now: NOW, throttled: true, probeIntervalMs: 30_000, backoffJitterFactor: 0, rand: 0 }),
    ).toEqual({ nextProbeAt: at(30_000), backoffUntil: at(THROTTLED_BACKOFF_MS) });
  });
  it('a pending back-off from an earlier probe holds; an elapsed one is dropped; a new 429 resets it', () => {
    const base = { now: NOW, probeIntervalMs: 1_000, backoffJitterFactor: 0, rand: 0 };
    expect(decideBackoff({ ...base, throttled: false, backoffUntil: at(5_000) })).toEqual({
      nextProbeAt: at(5_000),
      backoffUntil: at(5_000),
    });
    expect(decideBackoff({ ...base, throttled: false, backoffUntil: at(0) })).toEqual({
      nextProbeAt: at(1_000),
    });
    expect(decideBackoff({ ...base, throttled: true, backoffUntil: at(3_000) })).toEqual({
      nextProbeAt: at(10_000),
      backoffUntil: at(10_000),
    });
  });
});

describe('probe errors', () => {
  it('formats as upstream ProbeError and guards codes', () => {
    expect(formatProbeError('ERR_PROBE_NODE_LEASE', 'Failed to probe node leases', 'boom')).toBe(
      'Code: ERR_PROBE_NODE_LEASE, Message: Failed to probe node leases, Cause: boom',
    );
    expect(formatProbeError('ERR_PROBE_API_SERVER', 'Failed to probe API server')).toBe(
      'Code: ERR_PROBE_API_SERVER, Message: Failed to probe API server',
    );
    expect(isProbeErrorCode('ERR_SCALE_UP')).toBe(true);
    expect(isProbeErrorCode('ERR_OTHER')).toBe(false);
  });
});
