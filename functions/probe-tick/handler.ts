/**
 * probe-tick: the dependency watchdog's prober (seed 003) as a function. An invocation runs probe
 * passes over every probe-able shoot of the seed for PROBE_TICK_SPAN (./tick.ts): API-server and
 * node-lease probes, and the level-ordered scaling of the dependents, with each shoot's schedule
 * and scaling progress kept in Redis. What starts one: its own queued next invocation
 * (`dev.landscape.requeue` for probe-tick from requeue-tick, queued while a prober runs, when the
 * ticker lease was held, or after a failed Cluster list: ./tick.ts nextInvocationAt), a Cluster
 * added, changed or deleted (its API-server source, as upstream starts and stops a prober on the
 * Cluster's events), and its resync ping every five minutes (a lost queue entry); a seed without
 * a running prober starts no replica between resyncs (issue 16: a PingSource woke it every minute).
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
import { EventTypes } from '../../shared/events/index.js';
import { eventTarget } from '../../shared/function/event-attrs.js';
import { eventType } from '../../shared/function/index.js';
import { passScheduler } from '../../shared/function/redis.js';
import type { ObjectRef } from '../../shared/requeue/index.js';
import { GVK } from '../../shared/api/gvk.js';
import { FUNCTION_NAME, loadConfig, type ProbeTickConfig } from './config.js';
import { podName } from '../../shared/function/pod.js';
import { createDiscoveryMapper } from './discovery.js';
import { runTick, type TickDeps, type TickSummary } from './tick.js';
import { shootClientFactory } from './shootclient.js';

export { FUNCTION_NAME } from './config.js';
/** The Redis key of a shoot's prober state (the drill reads it to see which shoots were probed). */
export { stateKey } from './tick.js';

type Deps = TickDeps & { handle: RedisHandle; unlisten: () => void };

/** The queue entry of the next invocation (no object of that kind exists). */
export const PASS_REF: ObjectRef = { kind: 'ProbeTickPass', namespace: '', name: 'all' };

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
        const onTerm = (): void => stopping.abort();
        process.once('SIGTERM', onTerm);
        const seed = createKubeClient(hostKubeConfig(env), {
          fieldManager: 'dependency-watchdog-prober',
          keepAlive: true,
          retryTransient: true,
        });
        const schedule = passScheduler(handle, FUNCTION_NAME, PASS_REF);
        return {
          seed,
          mapper: createDiscoveryMapper(overrides.seed ?? seed, { now: () => Date.now() }),
          shootClient: shootClientFactory(),
          redis: () => handle.get(),
          handle,
          unlisten: () => void process.off('SIGTERM', onTerm),
          now: () => Date.now(),
          rand: Math.random,
          sleep: (ms) => delay(ms, undefined, { signal: stopping.signal }).catch(() => undefined),
          signal: stopping.signal,
          owner: `${podName(env) ?? 'probe-tick'}/${randomUUID()}`,
          queuePass: (atMs) => schedule(new Date(atMs)),
          log,
          ...overrides,
        };
      },
      close: async (deps) => {
        deps.unlisten();
        await deps.handle.close();
      },
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

/**
 * Whether an event starts an invocation: a ping (the Trigger lets the resync's through), the
 * requeue of its own next invocation, an API-server event of a Cluster.
 */
export function startsTick(ce: unknown): boolean {
  const type = eventType(ce);
  if (type === EventTypes.ping) return true;
  if (type === EventTypes.requeue) return eventTarget(ce) === FUNCTION_NAME;
  const kind = (ce as { kind?: unknown } | null)?.kind;
  return type.startsWith('dev.knative.apiserver.') && kind === GVK.Cluster.kind;
}

/** One event: an invocation when it starts one (undefined: ignored, logged at debug). */
export async function runProbeTickEvent(
  instance: FunctionInstance<ProbeTickConfig, Deps>,
  ce: unknown,
): Promise<TickSummary | undefined> {
  if (startsTick(ce)) return runProbeTick(instance);
  const r = await instance.ready();
  r.log.debug('event ignored', { type: eventType(ce) });
  return undefined;
}

export const instance = createProbeTickInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const probeTick = async (ce: unknown): Promise<void> => {
  await runProbeTickEvent(instance, ce);
};

ff.cloudEvent(FUNCTION_NAME, probeTick);
ff.cloudEvent('probeTick', probeTick);
