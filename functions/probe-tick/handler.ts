/**
 * probe-tick: the dependency watchdog's prober (seed 003) as a cron function. A PingSource tick
 * (`dev.knative.sources.ping`) runs probe passes over every probe-able shoot of the seed for
 * PROBE_TICK_SPAN (./tick.ts): API-server and node-lease probes, and the level-ordered scaling of
 * the dependents, with each shoot's schedule and scaling progress kept in Redis.
 * Config: CONFIG_FILE (the seed's prober YAML), REDIS_URL, PROBE_TICK_SPAN, PROBE_CONCURRENCY.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import * as ff from '@google-cloud/functions-framework';
import { lazyRedis, type RedisHandle } from '../../shared/redis/index.js';
import {
  createInstance,
  hostKubeConfig,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { createKubeClient } from '../../shared/kube/index.js';
import { FUNCTION_NAME, loadConfig, type ProbeTickConfig } from './config.js';
import { podName } from '../../shared/function/pod.js';
import { createDiscoveryMapper } from './discovery.js';
import { runTick, type TickDeps, type TickSummary } from './tick.js';
import { shootClientFactory } from './shootclient.js';

export { FUNCTION_NAME } from './config.js';
/** The Redis key of a shoot's prober state (the drill reads it to see which shoots were probed). */
export { stateKey } from './tick.js';

type Deps = TickDeps & { handle: RedisHandle };

export function createProbeTickInstance(
  opts: InstanceOptions = {},
  overrides: Partial<TickDeps> = {},
): FunctionInstance<ProbeTickConfig, Deps> {
  return createInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ env, log }) => {
        const url = env['REDIS_URL'];
        if (!url) throw new Error("REDIS_URL is not set: the prober keeps every shoot's schedule in Redis");
        const handle = lazyRedis({ url, connectionName: FUNCTION_NAME });
        // SIGTERM (Knative, the activator): a probing loop ends after its current pass, so the
        // replica stops within its grace period instead of being killed mid-write.
        const stopping = new AbortController();
        process.once('SIGTERM', () => stopping.abort());
        const seed = createKubeClient(hostKubeConfig(env), {
          fieldManager: 'dependency-watchdog-prober',
          keepAlive: true,
          retryTransient: true,
        });
        return {
          seed,
          mapper: createDiscoveryMapper(overrides.seed ?? seed, { now: () => Date.now() }),
          shootClient: shootClientFactory(),
          redis: () => handle.get(),
          handle,
          now: () => Date.now(),
          rand: Math.random,
          sleep: (ms) => delay(ms, undefined, { signal: stopping.signal }).catch(() => undefined),
          signal: stopping.signal,
          owner: `${podName(env) ?? 'probe-tick'}/${randomUUID()}`,
          log,
          ...overrides,
        };
      },
      close: (deps) => deps.handle.close(),
    },
    opts,
  );
}

/** One tick; rejects (500, retried) while the config is bad. */
export async function runProbeTick(
  instance: FunctionInstance<ProbeTickConfig, Deps>,
): Promise<TickSummary | undefined> {
  const r = await instance.ready();
  const summary = await runTick(r.deps, r.config);
  if (summary.ran) r.log.debug('tick done', { ...summary });
  return summary;
}

export const instance = createProbeTickInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const probeTick = async (): Promise<void> => {
  await runProbeTick(instance);
};

ff.cloudEvent(FUNCTION_NAME, probeTick);
ff.cloudEvent('probeTick', probeTick);
