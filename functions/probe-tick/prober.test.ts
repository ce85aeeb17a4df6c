import type { Cluster } from '../../shared/api/extensions.js';
import type { Shoot } from '../../shared/api/core.js';
import {
  DEFAULT_PROBER_CONFIG_YAML,
  loadProberConfig,
  type ProberConfig,
} from '../../shared/watchdog/config.js';
import { startFlow } from './flow.js';
import { THROTTLED_BACKOFF_MS } from './lease.js';
import { afterProbe, decideShoot, withFlow, type ProberState } from './prober.js';

function defaults(): ProberConfig {
  const r = loadProberConfig(DEFAULT_PROBER_CONFIG_YAML, {});
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.config;
}

function cluster(patch: (s: Shoot) => void = () => undefined): Cluster {
  const s: Shoot = {
    metadata: { name: 'dev', namespace: 'garden-p' },
    spec: { region: 'r', provider: { type: 'local', workers: [{ name: 'pool' }] } },
    status: { lastOperation: { type: 'Reconcile', state: 'Succeeded' } },
  };
  patch(s);
  return { metadata: { name: 'shoot--p--dev' }, spec: { cloudProfile: {}, shoot: s } } as Cluster;
}

const wakingUp = (s: Shoot): void => {
  s.status!.isHibernated = true;
};
const hibernated = (s: Shoot): void => {
  s.spec.hibernation = { enabled: true };
};
const running: ProberState = { startedAt: 0, nextAt: 50_000 };

describe('decideShoot', () => {
  it.each([
    [
      'new probe-able shoot: started, first probe after initialDelay (30 s)',
      cluster(),
      undefined,
      1_000,
      { kind: 'run', started: true, due: 'none', state: { startedAt: 1_000, nextAt: 31_000 } },
    ],
    ['running, not due', cluster(), running, 49_999, { kind: 'run', started: false, due: 'none' }],
    ['running, due', cluster(), running, 50_000, { kind: 'run', started: false, due: 'probe' }],
    [
      'running with a flow, due: the flow goes on',
      cluster(),
      withFlow(running, startFlow('down', 0), 10),
      10,
      { kind: 'run', due: 'scale' },
    ],
    [
      'waking up, no prober: not started',
      cluster(wakingUp),
      undefined,
      0,
      { kind: 'skip', reason: 'waking-up' },
    ],
    [
      'waking up, prober running: it goes on',
      cluster(wakingUp),
      running,
      60_000,
      { kind: 'run', due: 'probe' },
    ],
    [
      'hibernated, prober running: removed',
      cluster(hibernated),
      running,
      0,
      { kind: 'remove', reason: 'hibernation-enabled' },
    ],
    [
      'hibernated, no prober: skipped',
      cluster(hibernated),
      undefined,
      0,
      { kind: 'skip', reason: 'hibernation-enabled' },
    ],
  ] as const)('%s', (_n, c, state, now, expected) => {
    expect(decideShoot(c, defaults(), state, now)).toMatchObject(expected);
  });

  it("the shoot's nodeMonitorGracePeriod replaces the config's", () => {
    const c = cluster(
      (s) => (s.spec.kubernetes = { kubeControllerManager: { nodeMonitorGracePeriod: '2m' } }),
    );
    const t = decideShoot(c, defaults(), undefined, 0);
    expect(t.kind === 'run' && t.probe.config.kcmNodeMonitorGraceDuration).toBe(120_000);
  });
});

describe('afterProbe', () => {
  const cfg = { probeInterval: 10_000, backoffJitterFactor: 0.2 };
  it('next probe after the jittered interval, measured from the end of the probe; the flow is dropped', () => {
    const s = withFlow(
      { ...running, last: { at: 1, result: 'healthy', message: 'm' } },
      startFlow('up', 0),
      5,
    );
    expect(afterProbe(s, cfg, false, 100_000, 0.5)).toEqual({
      startedAt: 0,
      nextAt: 100_000 + 11_000,
      last: { at: 1, result: 'healthy', message: 'm' },
    });
  });
  it('after a 429: no probe for 10 s, even when the interval is shorter', () => {
    const s = afterProbe(running, { probeInterval: 1_000, backoffJitterFactor: 0 }, true, 100_000, 0);
    expect(s).toEqual({
      startedAt: 0,
      nextAt: 100_000 + THROTTLED_BACKOFF_MS,
      backoffUntil: 100_000 + THROTTLED_BACKOFF_MS,
    });
    // the back-off still holds for the next probe, then it is forgotten
    expect(afterProbe(s, { probeInterval: 1_000, backoffJitterFactor: 0 }, false, 105_000, 0).nextAt).toBe(
      110_000,
    );
    expect(afterProbe(s, { probeInterval: 1_000, backoffJitterFactor: 0 }, false, 111_000, 0)).toEqual({
      startedAt: 0,
      nextAt: 112_000,
    });
  });
});
