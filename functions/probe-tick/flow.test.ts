import { DEFAULT_PROBER_CONFIG_YAML, loadProberConfig } from '../../shared/watchdog/config.js';
import {
  dependents,
  flowFailureMessage,
  flowLevels,
  needs,
  nextLevel,
  recordOperations,
  startFlow,
  stepLevel,
  type Observation,
  type ScaleFlow,
} from './flow.js';
import {
  MAX_SCALE_ATTEMPTS,
  planResource,
  READY_CHECK_TIMEOUT_MS,
  resourceKey,
  SCALE_RETRY_BACKOFF_MS,
  type ScalableResource,
  type ScaleDirection,
} from './scaler.js';
import { IGNORE, MELTDOWN, REPLICAS, res } from './scaler.fixtures.js';

interface Thing {
  replicas: number;
  ready: number;
  annotations: Record<string, string>;
}

interface SimOptions {
  /** Operations of these resources fail this many times before they work. */
  failOps?: Record<string, number>;
  /** readyReplicas never follows replicas for these. */
  stuck?: string[];
  /** readyReplicas follows replicas this long after a scale (ms). */
  lagMs?: number;
}

interface Sim {
  outcome: 'done' | 'failed';
  message?: string;
  /** `t=<ms> <op> <name>` in order. */
  trace: string[];
  world: Record<string, Thing | undefined>;
  passes: number;
}

/**
 * Plays the adapter (functions/probe-tick/scale.ts) against an in-memory world: observe what
 * needs() asks for, stepLevel, run operations, record them, and jump the clock to the next due time.
 */
function simulate(
  direction: ScaleDirection,
  resources: ScalableResource[],
  world: Record<string, Thing | undefined>,
  opts: SimOptions = {},
): Sim {
  const levels = flowLevels(
    {
      dependentResourceInfos: resources.map((r) => ({
        ref: { apiVersion: r.apiVersion!, kind: r.kind, name: r.name },
        optional: r.optional,
        [direction === 'up' ? 'scaleUp' : 'scaleDown']: {
          level: r.level,
          initialDelay: r.initialDelayMs,
          timeout: r.timeoutMs,
        },
      })),
    },
    direction,
  );
  const trace: string[] = [];
  const fails = { ...opts.failOps };
  const settleAt: Record<string, number> = {};
  let now = 0;
  let flow: ScaleFlow = startFlow(direction, now);
  for (let passes = 1; passes < 500; passes++) {
    const level = levels[flow.levelIndex];
    if (!level) return { outcome: 'done', trace, world, passes };
    const need = needs(flow, level.resources, now);
    const obs: Record<string, Observation> = {};
    const plans: Record<string, ReturnType<typeof planResource>> = {};
    for (const r of level.resources) {
      const key = resourceKey(r);
      const t = world[r.name];
      if (t && settleAt[r.name] !== undefined && now >= settleAt[r.name] && !opts.stuck?.includes(r.name))
        t.ready = t.replicas;
      if (need[key] === 'plan') {
        plans[key] = planResource(
          direction,
          r,
          t ? { found: true, replicas: t.replicas, annotations: { ...t.annotations } } : { found: false },
        );
        obs[key] = t ? { plan: plans[key], readyReplicas: t.ready } : { plan: plans[key] };
      }
      if (need[key] === 'ready') obs[key] = { readyReplicas: t?.ready ?? 0 };
    }
    const step = stepLevel(flow, level.resources, obs, 'shoot--p--s', now);
    flow = step.flow;
    const o = step.outcome;
    if (o.kind === 'failed')
      return { outcome: 'failed', message: flowFailureMessage(direction, o.errors), trace, world, passes };
    if (o.kind === 'done') {
      trace.push(`t=${now} level ${level.level} done`);
      flow = nextLevel(flow, now);
      continue;
    }
    for (const item of o.operate) {
      const r = level.resources.find((x) => resourceKey(x) === item.key)!;
      const name = r.name;
      if ((fails[name] ?? 0) > 0) {
        fails[name]--;
        trace.push(`t=${now} fail ${name}`);
        flow = recordOperations(flow, r, plans[item.key], { ok: false, error: `boom ${item.attempt}` }, now);
        continue;
      }
      const t = world[name]!;
      for (const op of item.operations) {
        if (op.op === 'scale') {
          t.replicas = op.replicas;
          settleAt[name] = now + (opts.lagMs ?? 0);
          trace.push(`t=${now} scale ${name} ${op.replicas}`);
        } else {
          for (const [k, v] of Object.entries(op.annotations)) {
            if (v === null) delete t.annotations[k];
            else t.annotations[k] = v;
          }
          trace.push(`t=${now} annotate ${name}`);
        }
      }
      flow = recordOperations(flow, r, plans[item.key], { ok: true }, now);
    }
    if (o.operate.length === 0) now = Math.max(now, o.due);
  }
  throw new Error('flow did not end');
}

const thing = (replicas: number, annotations: Record<string, string> = {}): Thing => ({
  replicas,
  ready: replicas,
  annotations,
});

// The spec's example dependents.
const DOWN = [res('kcm', 1), res('mcm', 0), res('ca', 0, { optional: true })];
const UP = [res('kcm', 0), res('mcm', 1, { initialDelayMs: 30_000 }), res('ca', 2, { optional: true })];

describe('scaling flow across passes (upstream order and waits)', () => {
  it('scale-down: level 0 (mcm, ca together) before level 1 (kcm), replicas recorded, waits for readyReplicas 0', () => {
    const world = { kcm: thing(2), mcm: thing(1), ca: thing(3) };
    const sim = simulate('down', DOWN, world, { lagMs: 2_500 });
    expect(sim.outcome).toBe('done');
    expect(sim.trace).toEqual([
      't=0 annotate mcm',
      't=0 scale mcm 0',
      't=0 annotate ca',
      't=0 scale ca 0',
      't=3000 level 0 done',
      't=3000 annotate kcm',
      't=3000 scale kcm 0',
      't=6000 level 1 done',
    ]);
    expect(world.kcm.annotations).toEqual({ [REPLICAS]: '2', [MELTDOWN]: '' });
    expect(world.ca.annotations).toEqual({ [REPLICAS]: '3', [MELTDOWN]: '' });
  });

  it('scale-up: kcm, then mcm after its initialDelay, then ca; former replicas restored, annotations removed', () => {
    const down = { [REPLICAS]: '2', [MELTDOWN]: '' };
    const world = {
      kcm: thing(0, { ...down }),
      mcm: thing(0, { [REPLICAS]: '1', [MELTDOWN]: '' }),
      ca: thing(0),
    };
    const sim = simulate('up', UP, world);
    expect(sim.outcome).toBe('done');
    expect(sim.trace).toEqual([
      't=0 scale kcm 2',
      't=0 annotate kcm',
      't=1000 level 0 done',
      't=31000 scale mcm 1',
      't=31000 annotate mcm',
      't=32000 level 1 done',
      't=32000 scale ca 1',
      't=32000 annotate ca',
      't=33000 level 2 done',
    ]);
    expect(world.kcm).toMatchObject({ replicas: 2, annotations: {} });
    expect(world.mcm).toMatchObject({ replicas: 1, annotations: {} });
  });

  it('a failed attempt is retried after initialDelay + 100 ms; success on a retry counts', () => {
    const world = { kcm: thing(0), mcm: thing(0), ca: thing(0) };
    const sim = simulate('up', UP, world, { failOps: { mcm: 2 } });
    expect(sim.outcome).toBe('done');
    const mcm = sim.trace.filter((l) => l.includes('mcm'));
    const retry = 30_000 + SCALE_RETRY_BACKOFF_MS;
    expect(mcm).toEqual([
      't=31000 fail mcm',
      `t=${31_000 + retry} fail mcm`,
      `t=${31_000 + 2 * retry} scale mcm 1`,
      `t=${31_000 + 2 * retry} annotate mcm`,
    ]);
  });

  it('3 failed attempts fail the level and later levels do not run (ERR_SCALE_DOWN)', () => {
    expect(MAX_SCALE_ATTEMPTS).toBe(3);
    const world = { kcm: thing(1), mcm: thing(1), ca: thing(1) };
    const sim = simulate('down', DOWN, world, { failOps: { mcm: 5 } });
    expect(sim.outcome).toBe('failed');
    expect(sim.message).toBe(
      'Code: ERR_SCALE_DOWN, Message: Failed to scale down resources, Cause: Deployment/mcm: boom 3',
    );
    expect(sim.trace.filter((l) => l.includes('fail'))).toHaveLength(3);
    // the sibling at the same level still ran; kcm (level 1) was never touched
    expect(world.ca.replicas).toBe(0);
    expect(world.kcm).toEqual(thing(1));
  });

  it('readyReplicas that never follow: the wait times out with upstream message, retried, then fails', () => {
    const world = { kcm: thing(0), mcm: thing(0), ca: thing(0) };
    const sim = simulate('up', [res('kcm', 0), res('mcm', 1)], world, { stuck: ['kcm'] });
    expect(sim.outcome).toBe('failed');
    expect(sim.message).toBe(
      'Code: ERR_SCALE_UP, Message: Failed to scale up resources, Cause: Deployment/kcm: ' +
        'timed out waiting for {namespace: shoot--p--s, resource: kcm} to reach minTargetReplicas 1',
    );
    // each attempt waits the 5 s ready timeout
    expect(READY_CHECK_TIMEOUT_MS).toBe(5_000);
    expect(world.mcm.replicas).toBe(0);
  });

  it('mandatory resource missing: its level fails after its siblings ran; optional missing is skipped', () => {
    const world = { kcm: thing(1), mcm: undefined, ca: undefined };
    const sim = simulate('down', DOWN, world);
    expect(sim.outcome).toBe('failed');
    expect(sim.message).toBe(
      'Code: ERR_SCALE_DOWN, Message: Failed to scale down resources, Cause: Deployment/mcm: deployments.apps "mcm" not found',
    );
    expect(world.kcm.replicas).toBe(1);
    const optionalOnly = simulate('down', [res('ca', 0, { optional: true }), res('kcm', 1)], {
      kcm: thing(1),
      ca: undefined,
    });
    expect(optionalOnly.outcome).toBe('done');
  });

  it('ignore-scaling: never scaled (a leftover meltdown annotation is removed), the flow goes on', () => {
    const world = { kcm: thing(1), mcm: thing(1, { [IGNORE]: 'True', [MELTDOWN]: '' }), ca: thing(1) };
    const sim = simulate('down', DOWN, world);
    expect(sim.outcome).toBe('done');
    expect(world.mcm).toEqual(thing(1, { [IGNORE]: 'True' }));
    expect(world.kcm.replicas).toBe(0);
  });

  it('invalid replicas annotation on scale-up: that level fails with the Atoi error', () => {
    const world = { kcm: thing(0, { [REPLICAS]: 'two' }), mcm: thing(0), ca: thing(0) };
    const sim = simulate('up', UP, world);
    expect(sim.outcome).toBe('failed');
    expect(sim.message).toContain('strconv.Atoi: parsing "two": invalid syntax');
    expect(world.mcm.replicas).toBe(0);
  });

  it('already at target: no operations, only the wait', () => {
    const world = { kcm: thing(0), mcm: thing(0), ca: thing(0) };
    const sim = simulate('down', DOWN, world);
    expect(sim.outcome).toBe('done');
    expect(sim.trace.every((l) => l.includes('done'))).toBe(true);
  });

  it('nothing to scale: no initialDelay is waited, the flow ends in the same pass', () => {
    const world = { kcm: thing(2), mcm: thing(1), ca: thing(1) };
    const sim = simulate('up', UP, world);
    expect(sim.outcome).toBe('done');
    expect(sim.trace).toEqual(['t=0 level 0 done', 't=0 level 1 done', 't=0 level 2 done']);
  });

  it('a started delay is re-observed when it is over: scaled by someone else meanwhile → nothing done', () => {
    const mcm = res('mcm', 0, { initialDelayMs: 5_000 });
    let flow = startFlow('up', 0);
    const plan0 = planResource('up', mcm, { found: true, replicas: 0 });
    flow = stepLevel(flow, [mcm], { 'Deployment/mcm': { plan: plan0 } }, 'ns', 0).flow;
    expect(needs(flow, [mcm], 4_999)).toEqual({ 'Deployment/mcm': 'none' });
    expect(needs(flow, [mcm], 5_000)).toEqual({ 'Deployment/mcm': 'plan' });
    const plan1 = planResource('up', mcm, { found: true, replicas: 3 });
    const step = stepLevel(flow, [mcm], { 'Deployment/mcm': { plan: plan1 } }, 'ns', 5_000);
    expect(step.outcome).toMatchObject({ kind: 'pending', operate: [] });
  });

  it('no dependents in a direction: done at once', () => {
    expect(simulate('up', [], {}).outcome).toBe('done');
  });
});

describe('needs', () => {
  const flow = startFlow('up', 1_000);
  it.each([
    ['not started, no delay → plan', res('a', 0), 1_000, 'plan'],
    [
      'not started, initialDelay not over → plan (observed first)',
      res('a', 0, { initialDelayMs: 5_000 }),
      5_999,
      'plan',
    ],
    ['not started, initialDelay over → plan', res('a', 0, { initialDelayMs: 5_000 }), 6_000, 'plan'],
  ] as const)('%s', (_n, r, now, need) => {
    expect(needs(flow, [r], now)).toEqual({ [resourceKey(r)]: need });
  });

  it('a waiting resource asks for readiness when its check is due; a finished one asks for nothing', () => {
    const a = res('a', 0);
    const b = res('b', 0);
    const f: ScaleFlow = {
      ...flow,
      runs: {
        'Deployment/a': { attempts: [], phase: 'wait', at: 2_000, deadline: 6_000 },
        'Deployment/b': { attempts: [{ ok: true }], phase: 'wait', at: 0 },
      },
    };
    expect(needs(f, [a, b], 1_999)).toEqual({ 'Deployment/a': 'none', 'Deployment/b': 'none' });
    expect(needs(f, [a, b], 2_000)).toEqual({ 'Deployment/a': 'ready', 'Deployment/b': 'none' });
  });
});

describe('dependents', () => {
  it('upstream example: scaleUp and scaleDown levels, MCM initialDelay, CA optional', () => {
    const r = loadProberConfig(DEFAULT_PROBER_CONFIG_YAML, {});
    if (!r.ok) throw new Error(r.problems.join());
    expect(dependents(r.config, 'up').map((d) => [d.name, d.level, d.initialDelayMs, d.optional])).toEqual([
      ['kube-controller-manager', 0, 0, false],
      ['machine-controller-manager', 1, 30_000, false],
      ['cluster-autoscaler', 2, 0, true],
    ]);
    expect(flowLevels(r.config, 'down').map((l) => [l.level, l.resources.map((x) => x.name)])).toEqual([
      [0, ['machine-controller-manager', 'cluster-autoscaler']],
      [1, ['kube-controller-manager']],
    ]);
  });

  it('a resource without scaleUp is never scaled up (the seed table)', () => {
    const cfg = {
      dependentResourceInfos: [
        {
          ref: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' },
          optional: false,
          scaleDown: { level: 0, initialDelay: 0, timeout: 1 },
        },
      ],
    };
    expect(dependents(cfg, 'up')).toEqual([]);
    expect(dependents(cfg, 'down')).toHaveLength(1);
  });
});
