/**
 * schedule-shoot: gardener-scheduler's shoot controller (specs/seed-management.md "Shoot scheduler
 * decision") as a function. Shoot events of the garden cluster (`dev.knative.apiserver.ref.*` with
 * kind Shoot, from the seedmanagement ApiServerSource in Reference mode) and its own retries
 * (`dev.landscape.requeue` with target schedule-shoot) bind unscheduled shoots to a seed
 * (./schedule.ts), with the per-seed shoot counts kept incrementally in Redis (./usage.ts). The
 * resync (the ping of the seed-management resync PingSource) binds every unscheduled shoot it
 * lists (./resync.ts). The Seeds come from a cache in Redis (./seed-cache.ts).
 * Several replicas decide at once: capacity is reserved atomically before binding, and the binding
 * is optimistic. Config: CONFIG_FILE and REDIS_URL (./config.ts).
 */
import { randomUUID } from 'node:crypto';
import * as ff from '@google-cloud/functions-framework';
import type { RedisHandle } from '../../shared/redis/index.js';
import { EventTypes } from '../../shared/events/index.js';
import {
  eventObjectRef,
  eventType,
  hostKubeClient,
  type EventObjectRef,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { isResyncEvent } from '../../shared/function/event-attrs.js';
import { createRedisInstance } from '../../shared/function/redis.js';
import { podName } from '../../shared/function/pod.js';
import { FUNCTION_NAME, loadConfig, type ScheduleShootConfig } from './config.js';
import { reconcileShoot, type ScheduleDeps, type ScheduleOutcome } from './schedule.js';
import { cachedSeeds } from './inputs.js';
import { resyncShoots } from './resync.js';
import { createUsageStore } from './usage.js';
import { createSeedCache } from './seed-cache.js';
import type { Seed } from '../../shared/api/core.js';

export { FUNCTION_NAME } from './config.js';

type Deps = ScheduleDeps & { handle: RedisHandle };

/** The field manager of the binding and status writes. */
export const FIELD_MANAGER = 'gardener-scheduler';

export function createScheduleShootInstance(
  opts: InstanceOptions = {},
  overrides: Partial<ScheduleDeps> = {},
): FunctionInstance<ScheduleShootConfig, Deps> {
  return createRedisInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ config, env, log, handle }): ScheduleDeps => {
        const client = hostKubeClient(env, FIELD_MANAGER);
        const redis = (): ReturnType<RedisHandle['get']> => handle.get();
        const now = (): number => Date.now();
        const usage = createUsageStore(
          { client, redis, now, owner: `${podName(env) ?? FUNCTION_NAME}/${randomUUID()}`, log },
          { reservationTtlMs: config.reservationTimeout, rebuildTimeoutMs: config.rebuildTimeout },
        );
        // seedCacheTtl 0s: every decision lists the Seeds (no cache); else the Seed cache in Redis
        const seedCache =
          config.seedCacheTtl > 0
            ? createSeedCache(
                { client, redis, now, owner: `${podName(env) ?? FUNCTION_NAME}/${randomUUID()}`, log },
                { ttlMs: config.seedCacheTtl, listTimeoutMs: config.rebuildTimeout },
              )
            : undefined;
        const seeds = seedCache ? (): Promise<Seed[]> => seedCache.seeds() : cachedSeeds(client, 0, now);
        return {
          client,
          seeds,
          redis,
          usage,
          now,
          rand: Math.random,
          newId: randomUUID,
          log,
          ...overrides,
        };
      },
    },
    opts,
  );
}

const API_EVENT_PREFIX = 'dev.knative.apiserver.ref.';

function attribute(ce: Record<string, unknown>, key: string): string | undefined {
  const data = (typeof ce.data === 'object' && ce.data !== null ? ce.data : {}) as Record<string, unknown>;
  const v = ce[key] ?? data[key];
  return typeof v === 'string' ? v : undefined;
}

/** The shoot a Shoot event or a requeue for this function names; undefined for any other event. */
export function shootEventTarget(ce: unknown): { ref: EventObjectRef; viaRequeue: boolean } | undefined {
  const e = (typeof ce === 'object' && ce !== null ? ce : {}) as Record<string, unknown>;
  const type = eventType(ce);
  const viaRequeue = type === EventTypes.requeue;
  if (viaRequeue ? e.target !== FUNCTION_NAME : !type.startsWith(API_EVENT_PREFIX)) return undefined;
  if (attribute(e, 'kind') !== 'Shoot') return undefined;
  const ref = eventObjectRef(ce);
  return ref && ref.namespace !== '' ? { ref, viaRequeue } : undefined;
}

/** One event; the outcome (tests, logs), undefined when the config is bad or the event not a Shoot's. */
export async function runScheduleShootEvent(
  instance: FunctionInstance<ScheduleShootConfig, Deps>,
  ce: unknown,
): Promise<ScheduleOutcome | undefined> {
  const r = await instance.ready();
  if (isResyncEvent(ce)) {
    const pass = await resyncShoots(r.deps, r.config);
    r.log.info('resync: unscheduled shoots looked at', {
      listed: pass.listed,
      unscheduled: pass.outcomes.length,
    });
    return undefined;
  }
  const target = shootEventTarget(ce);
  if (!target) {
    r.log.warn('not a Shoot event for this function; ignored', { type: eventType(ce) });
    return undefined;
  }
  const outcome = await reconcileShoot(r.deps, r.config, target.ref, target.viaRequeue);
  r.log.debug('shoot handled', { namespace: target.ref.namespace, name: target.ref.name, ...outcome });
  return outcome;
}

export const instance = createScheduleShootInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const scheduleShoot = async (ce: unknown): Promise<void> => {
  await runScheduleShootEvent(instance, ce);
};

ff.cloudEvent(FUNCTION_NAME, scheduleShoot);
ff.cloudEvent('scheduleShoot', scheduleShoot);
