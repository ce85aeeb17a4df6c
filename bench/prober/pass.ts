/**
 * One measured tick of probe-tick over a fleet: a fresh function instance (PROBE_TICK_SPAN=0s: one
 * pass; initialDelay 0s: a prober started in this pass is due at once, so the pass probes every
 * shoot), its config loaded and its Redis connected before the clock starts; then
 * `runProbeTick` timed, with API traffic per cluster (countTraffic), Redis commands (INFO
 * commandstats), this process's CPU time and memory (process.memoryUsage every 50 ms, after a
 * full GC before the pass). Logs are formatted at info, as in a function, and dropped; only the
 * messages the bench checks are counted.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Redis } from 'ioredis';
import { trafficDelta, type TrafficSnapshot } from '@landscape/kube-apiserver/testing';
import { createProbeTickInstance, runProbeTick } from '../../functions/probe-tick/handler.js';
import { stateKey, type TickSummary } from '../../functions/probe-tick/tick.js';
import type { ProberState } from '../../functions/probe-tick/prober.js';
import { DEFAULT_PROBER_CONFIG_YAML } from '../../shared/watchdog/config.js';
import { createLogger } from '../../shared/log/index.js';
import { wayOverrides, type Way } from './ways.js';
import { dependentReplicas, type Fleet } from './fleet.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SAMPLE_MS = 50;
/** Kubelets renew their Lease every 10 s. */
const RENEW_MS = 10_000;

/** upstream's example config with initialDelay 0s (every shoot due in the first pass). */
export const BENCH_CONFIG = ((): string => {
  const text = DEFAULT_PROBER_CONFIG_YAML.replace(/^initialDelay: .*$/m, 'initialDelay: 0s');
  if (text === DEFAULT_PROBER_CONFIG_YAML || !text.includes('initialDelay: 0s'))
    throw new Error('the default prober config has no top-level initialDelay to set');
  return text;
})();

export interface Outcomes {
  healthy: number;
  unhealthy: number;
  failed: number;
  scaled: number;
  flowsDone: number;
  firstFailure?: string;
}

export interface Memory {
  rssBefore: number;
  heapBefore: number;
  rssPeak: number;
  heapPeak: number;
  /** After the tick and a full GC: what the tick left behind. */
  heapAfter: number;
  samples: number;
}

export type { Way } from './ways.js';

export interface PassResult {
  way: Way;
  shoots: number;
  leases: 'fresh' | 'expired';
  ms: number;
  cpuMs: number;
  summary: TickSummary | undefined;
  outcomes: Outcomes;
  seed: TrafficSnapshot;
  shoot: TrafficSnapshot;
  redisCalls: number;
  memory: Memory;
  /** Prober states after the tick: with a scaling flow pending, by `<direction> level <index>`; else `no flow`. */
  states: Record<string, number>;
  /** Dependents at 0 replicas after the pass, of all. */
  replicas: { zero: number; total: number };
  setupMs: number;
  /** Objects the fleet was set up with: seed, shoot clusters. */
  objects: { seed: number; shoots: number };
}

export interface PassOptions {
  way: Way;
  fleet: Fleet;
  leases: 'fresh' | 'expired';
  redisUrl: string;
  /** The bench's own client of the same Redis (FLUSHALL, INFO). */
  redis: Redis;
  kubeconfigFile: string;
  concurrency: number;
  /** Write a V8 CPU profile of the tick here. */
  cpuProfile?: string;
}

function outcomeCounter(): { outcomes: Outcomes; write: (line: string) => void } {
  const outcomes: Outcomes = { healthy: 0, unhealthy: 0, failed: 0, scaled: 0, flowsDone: 0 };
  return {
    outcomes,
    write: (line) => {
      const at = line.indexOf('"msg":"');
      if (at < 0) return;
      const msg = line.slice(at + 7, at + 47);
      if (msg.startsWith('Lease probe succeeded')) outcomes.healthy++;
      else if (msg.startsWith('Lease probe failed')) outcomes.unhealthy++;
      else if (msg.startsWith('Successfully scaled resource')) outcomes.scaled++;
      else if (msg.startsWith('Scaling flow completed')) outcomes.flowsDone++;
      else if (msg.startsWith('Code: ERR_') || msg.startsWith('probe failed unexpectedly')) {
        outcomes.failed++;
        outcomes.firstFailure ??= line.slice(at + 7, at + 400);
      }
    },
  };
}

async function redisCalls(redis: Redis): Promise<number> {
  const text = await redis.info('commandstats');
  let calls = 0;
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (m[1] !== 'info') calls += Number(m[2]);
  }
  return calls;
}

function trafficOf(fleet: Fleet): { seed: TrafficSnapshot; shoot: TrafficSnapshot } {
  const shoot: TrafficSnapshot = {};
  for (const c of fleet.shootClusters) {
    for (const [key, v] of Object.entries(c.traffic!.snapshot())) {
      const o = (shoot[key] ??= { requests: 0, requestBytes: 0, responseBytes: 0, errors: 0 });
      o.requests += v.requests;
      o.requestBytes += v.requestBytes;
      o.responseBytes += v.responseBytes;
      o.errors += v.errors;
    }
  }
  return { seed: fleet.seed.traffic!.snapshot(), shoot };
}

function memorySampler(): { stop(): Memory } {
  gc();
  gc();
  const m0 = process.memoryUsage();
  const mem: Memory = {
    rssBefore: m0.rss,
    heapBefore: m0.heapUsed,
    rssPeak: m0.rss,
    heapPeak: m0.heapUsed,
    heapAfter: NaN,
    samples: 0,
  };
  const sample = (): void => {
    const m = process.memoryUsage();
    mem.rssPeak = Math.max(mem.rssPeak, m.rss);
    mem.heapPeak = Math.max(mem.heapPeak, m.heapUsed);
    mem.samples++;
  };
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      gc();
      gc();
      mem.heapAfter = process.memoryUsage().heapUsed;
      return mem;
    },
  };
}

async function statesOf(redis: Redis, namespaces: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const raw = await redis.mget(namespaces.map(stateKey));
  for (const text of raw) {
    const state = text === null ? undefined : (JSON.parse(text) as ProberState);
    const key = !state
      ? 'none'
      : state.flow
        ? `${state.flow.direction} level ${state.flow.levelIndex}`
        : 'no flow';
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

async function profiled<T>(file: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (!file) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  }
}

export async function measurePass(o: PassOptions): Promise<PassResult> {
  await o.redis.flushall();
  const counter = outcomeCounter();
  const log = createLogger({ name: 'probe-tick', level: 'info', destination: { write: counter.write } });
  const instance = createProbeTickInstance(
    {
      env: () => ({
        KUBECONFIG: o.kubeconfigFile,
        REDIS_URL: o.redisUrl,
        CONFIG_FILE: '/probe-tick.yaml',
        PROBE_TICK_SPAN: '0s',
        PROBE_CONCURRENCY: String(o.concurrency),
      }),
      readFile: () => Promise.resolve(BENCH_CONFIG),
      log,
    },
    wayOverrides(o.way),
  );
  // fresh: renewed as kubelets do, so a shoot probed late in a long tick still finds them fresh
  const stopRenewing = o.leases === 'fresh' ? o.fleet.renewLeases(RENEW_MS) : (): void => undefined;
  try {
    const ready = await instance.ready();
    if (!ready.ok) throw new Error('probe-tick: the bench config was refused');
    await ready.deps.redis();
    const traffic0 = trafficOf(o.fleet);
    const redis0 = await redisCalls(o.redis);
    const sampler = memorySampler();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const summary = await profiled(o.cpuProfile, () => runProbeTick(instance));
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const memory = sampler.stop();
    const traffic1 = trafficOf(o.fleet);
    return {
      way: o.way,
      shoots: o.fleet.namespaces.length,
      leases: o.leases,
      ms,
      cpuMs: (cpu.user + cpu.system) / 1000,
      summary,
      outcomes: counter.outcomes,
      seed: trafficDelta(traffic1.seed, traffic0.seed),
      shoot: trafficDelta(traffic1.shoot, traffic0.shoot),
      redisCalls: (await redisCalls(o.redis)) - redis0,
      memory,
      states: await statesOf(o.redis, o.fleet.namespaces),
      replicas: dependentReplicas(o.fleet),
      setupMs: o.fleet.setupMs,
      objects: o.fleet.objects,
    };
  } finally {
    stopRenewing();
    await instance.close();
  }
}

export const profileFile = (dir: string, shoots: number, leases: string): string =>
  join(dir, `probe-tick-${shoots}-${leases}.cpuprofile`);
