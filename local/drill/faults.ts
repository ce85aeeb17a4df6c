/**
 * The drill's faults: each is switched on when the work starts and off at the end of the fault
 * window (`begin` returns the `end`). They use the landscape's test-only switches: the API server's
 * FaultInjector and restartCluster (@landscape/kube-apiserver), the activator's ReplicaChaos, the broker's
 * BrokerFaults (also `refuseIngress`: the sink down), the runtime's restartSources (the
 * ApiServerSource adapters rolled, as Knative does on a namespace change), and a Redis server the
 * drill owns (restart = the cache's data is gone).
 *
 * The source's own faults lose events for good, as on a real cluster: Knative's adapter sends
 * nothing for what it lists when it starts (pkg/adapter/apiserver/delegate.go) and drops an event
 * its sends could not deliver after the retries. What was lost is made good by the families'
 * resync PingSources alone, so their recovery is measured against the resync interval.
 */
import type { FaultKind, FaultSpec } from '@landscape/kube-apiserver/testing';
import type { Landscape } from '../landscape.js';
import type { TestRedis } from '../redis.js';

export const FAULT_NAMES = [
  'none',
  'api-409',
  'api-429',
  'api-500',
  'api-drop',
  'watch-close',
  'api-restart',
  'redis-restart',
  'replica-kill',
  'broker-duplicate',
  'broker-delay',
  'broker-reorder',
  'source-restart',
  'sink-down',
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

export function isFaultName(v: string): v is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(v);
}

export interface FaultTarget {
  landscape: Landscape;
  redis: TestRedis;
  random: () => number;
  /** The fault window (restarts are spread over it). */
  windowMs: number;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

export interface Fault {
  name: FaultName;
  /** What it does, for the table's legend. */
  description: string;
  /** Switches the fault on; resolves with its switch-off, which reports what was injected. */
  begin(t: FaultTarget): Promise<() => Promise<string>>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How often clusters the work adds while the fault is on (a target, shoots) get it too. */
const NEW_CLUSTER_CHECK_MS = 200;

function apiFault(name: FaultName, description: string, spec: Omit<FaultSpec, 'random'>): Fault {
  return {
    name,
    description,
    begin(t) {
      const faulted = new Set<string>();
      const apply = (): void => {
        for (const c of t.landscape.api?.clusters() ?? []) {
          if (faulted.has(c.name)) continue;
          c.faults.set({ ...spec, random: t.random });
          faulted.add(c.name);
        }
      };
      apply();
      const timer = setInterval(apply, NEW_CLUSTER_CHECK_MS);
      return Promise.resolve(() => {
        clearInterval(timer);
        const counts: Record<string, number> = {};
        for (const c of t.landscape.api?.clusters() ?? []) {
          c.faults.set(undefined);
          for (const [k, v] of Object.entries(c.faults.counts())) counts[k] = (counts[k] ?? 0) + v;
        }
        const injected = Object.entries(counts).filter(([, v]) => v > 0);
        return Promise.resolve(injected.map(([k, v]) => `${v} ${k}`).join(', ') || 'nothing injected');
      });
    },
  };
}

const statusFault = (name: FaultName, kind: FaultKind, share: number, what: string): Fault =>
  apiFault(name, `${share * 100}% of API requests answered ${what}`, { share, kinds: [kind] });

/**
 * Runs `step` `times` times, spread over the window; the switch-off waits for the last one.
 * Restarts are what a rollout or a crash does: a few per window, not a storm.
 */
function repeated(
  name: FaultName,
  description: string,
  times: number,
  step: (t: FaultTarget) => Promise<void>,
): Fault {
  return {
    name,
    description,
    begin(t) {
      let stopped = false;
      let done = 0;
      const run = (async (): Promise<void> => {
        for (let i = 0; i < times && !stopped; i++) {
          await sleep((t.windowMs / (times + 1)) * (0.5 + t.random()));
          if (stopped) break;
          const began = Date.now();
          await step(t);
          t.log(`${name}: ${i + 1}/${times} took ${Date.now() - began} ms`);
          done++;
        }
      })();
      return Promise.resolve(async () => {
        stopped = true;
        await run;
        return `${done} done`;
      });
    },
  };
}

function brokerFault(
  name: FaultName,
  description: string,
  spec: Parameters<NonNullable<Landscape['runtime']>['brokerFaults']['set']>[0],
): Fault {
  return {
    name,
    description,
    begin(t) {
      const faults = t.landscape.runtime!.brokerFaults;
      faults.set(spec && { ...spec, random: t.random });
      return Promise.resolve(() => {
        faults.set(undefined);
        const c = faults.counts();
        return Promise.resolve(`${c.duplicated} duplicated, ${c.delayed} delayed, ${c.reordered} reordered`);
      });
    },
  };
}

/** How long no adapter runs at each source restart (a new adapter Pod starting). */
const SOURCE_DOWN_MS = 2_000;
const SOURCE_RESTARTS = 3;

/**
 * How long the sink is down: longer than the sources' send retries (Knative's adapter: 1 + 5
 * tries over ~3 s), so every event they send meanwhile is dropped; shorter than the brokers'
 * delivery retries (knative/runtime/broker.yaml: 5 retries, 0.5-8 s, ~15 s), so a function whose
 * emits were refused is retried after the sink is back. A longer outage dead-letters such events,
 * as Knative does (then `npm run dlq -- replay`), and the drill counts every dead letter as lost.
 */
const SINK_DOWN_MS = 10_000;

/**
 * The broker ingress refuses every event (503) for SINK_DOWN_MS (at most the window), then takes
 * them again; it switches itself back, so the work's later steps (which wait for results) go on.
 */
const sinkDown: Fault = {
  name: 'sink-down',
  description: `the broker ingress answered 503 to every event for ${SINK_DOWN_MS / 1000} s (the sources' sends dropped)`,
  begin(t) {
    const faults = t.landscape.runtime!.brokerFaults;
    const before = faults.counts().refused;
    let on = true;
    const off = (): void => {
      if (on) faults.set(undefined);
      on = false;
    };
    faults.set({ refuseIngress: true });
    const timer = setTimeout(off, Math.min(SINK_DOWN_MS, t.windowMs));
    return Promise.resolve(() => {
      clearTimeout(timer);
      off();
      return Promise.resolve(`${faults.counts().refused - before} events refused`);
    });
  },
};

export const FAULTS: Record<FaultName, Fault> = {
  none: {
    name: 'none',
    description: 'no fault (baseline)',
    begin: () => Promise.resolve(() => Promise.resolve('')),
  },
  // a real API server answers 409 to writes only (a stale resourceVersion, a lost race)
  'api-409': apiFault('api-409', '10% of API writes answered 409 Conflict', {
    share: 0.1,
    kinds: ['conflict'],
    writesOnly: true,
  }),
  'api-429': statusFault('api-429', 'throttle', 0.1, '429 TooManyRequests (Retry-After 1)'),
  'api-500': statusFault('api-500', 'error', 0.1, '500 InternalError'),
  'api-drop': apiFault('api-drop', '5% of API requests dropped (half of the writes applied first)', {
    share: 0.05,
    kinds: ['drop'],
  }),
  'watch-close': apiFault('watch-close', 'every watch closed after 0-3 s', {
    share: 0,
    kinds: [],
    watchCloseMs: 3000,
  }),
  'api-restart': repeated('api-restart', 'the main API server restarted twice (--data-dir)', 2, async (t) => {
    await t.landscape.api!.restartCluster('main');
  }),
  'redis-restart': repeated(
    'redis-restart',
    'Redis stopped and started twice (its data gone)',
    2,
    async (t) => {
      await t.redis.stop();
      await sleep(1000);
      await t.redis.restart();
    },
  ),
  'replica-kill': {
    name: 'replica-kill',
    description: 'a random function replica SIGKILLed every ~1 s',
    begin(t) {
      const chaos = t.landscape.runtime!.activator.chaos;
      const before = chaos.kills;
      chaos.set({ killEveryMs: 1000, random: t.random });
      return Promise.resolve(() => {
        chaos.set(undefined);
        return Promise.resolve(`${chaos.kills - before} replicas killed`);
      });
    },
  },
  'broker-duplicate': brokerFault('broker-duplicate', '30% of deliveries sent twice', {
    duplicateShare: 0.3,
  }),
  'broker-delay': brokerFault('broker-delay', 'half of the deliveries held 0-2 s', {
    delayShare: 0.5,
    delayMs: 2000,
  }),
  'broker-reorder': brokerFault('broker-reorder', 'every delivery held 0-1 s (later ones overtake)', {
    reorderWindowMs: 1000,
  }),
  'source-restart': repeated(
    'source-restart',
    `the ApiServerSource adapters restarted ${SOURCE_RESTARTS} times, ${SOURCE_DOWN_MS / 1000} s down each (events of that time lost)`,
    SOURCE_RESTARTS,
    async (t) => {
      await t.landscape.runtime!.restartSources(SOURCE_DOWN_MS);
    },
  ),
  'sink-down': sinkDown,
};
