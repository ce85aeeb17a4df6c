/**
 * seed-autoscaler: the SeedAutoscaler controller (GEP-13, shaped as the Kubernetes HPA) as a
 * function. A pass over every SeedAutoscaler runs on its own queued pass (`dev.landscape.requeue`
 * from requeue-tick) and on the seed-management resync ping; while any autoscaler exists it queues
 * the next one `syncPeriod` later (./config.ts), so a garden without autoscalers starts no replica
 * between resyncs (issue 16; a PingSource woke it every minute). An API-server event of a
 * SeedAutoscaler (Reference mode) runs one pass over it when its generation is not handled yet
 * (its own status writes come back as updates) and queues the pass over all, which starts the
 * chain for a first autoscaler. A pass (./autoscale.ts) reads the target ManagedSeedSet's scale and its seeds'
 * allocatable and usage, decides (./autoscaler.ts), writes the set's scale,
 * the autoscaler's status (with the recommendation history: no Redis) and an Event.
 * Config: CONFIG_FILE (YAML) with LOG_LEVEL, AUTOSCALER_TOLERANCE, DOWNSCALE_STABILIZATION,
 * SYNC_PERIOD and REDIS_URL overrides (./config.ts).
 */
import { randomUUID } from 'node:crypto';
import * as ff from '@google-cloud/functions-framework';
import pLimit from 'p-limit';
import { GVK } from '../../shared/api/gvk.js';
import type { SeedAutoscaler } from '../../shared/api/seedautoscaler.js';
import { EventTypes } from '../../shared/events/index.js';
import { eventTarget } from '../../shared/function/event-attrs.js';
import {
  createInstance,
  eventObjectRef,
  kubeFunctionDeps,
  eventType,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { getOptional, listAll } from '../../shared/kube/io.js';
import { passQueue, type PassQueue } from '../../shared/function/redis.js';
import { autoscale, type AutoscaleDeps, type AutoscaleResult } from './autoscale.js';
import { FUNCTION_NAME, loadConfig, type SeedAutoscalerConfig } from './config.js';
import { snapshot } from './observe.js';
import { nextPassAt, PASS_REF } from './schedule.js';

export { FUNCTION_NAME } from './config.js';
export { PASS_REF } from './schedule.js';

/** The dependencies, with the queue of its own passes (absent without `redisUrl`). */
export interface SeedAutoscalerDeps extends AutoscaleDeps, PassQueue {}

export function createSeedAutoscalerInstance(
  opts: InstanceOptions = {},
  overrides: Partial<SeedAutoscalerDeps> = {},
): FunctionInstance<SeedAutoscalerConfig, SeedAutoscalerDeps> {
  return createInstance<SeedAutoscalerConfig, SeedAutoscalerDeps>(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ config, env, log }) => ({
        ...kubeFunctionDeps(FUNCTION_NAME, env, log),
        newId: randomUUID,
        ...passQueue(config.redisUrl, FUNCTION_NAME, PASS_REF, log),
        ...overrides,
      }),
      close: async (deps) => deps.handle?.close(),
    },
    opts,
  );
}

type Ready = Extract<
  Awaited<ReturnType<FunctionInstance<SeedAutoscalerConfig, SeedAutoscalerDeps>['ready']>>,
  { ok: true }
>;

/** The `dueAt` of a `dev.landscape.requeue` event's data (ms), if it has one. */
function dueAtOf(ce: unknown): number | undefined {
  const data = (ce as { data?: { dueAt?: unknown } } | undefined)?.data;
  return typeof data?.dueAt === 'string' ? Date.parse(data.dueAt) : undefined;
}

/** Queues the pass over all (nothing without Redis). */
async function queueNext(r: Ready, dueAtMs?: number): Promise<void> {
  await r.deps.schedule?.(new Date(nextPassAt(r.deps.now().getTime(), r.config.syncPeriod, dueAtMs)));
}

/**
 * A pass over every autoscaler, then the next one queued while any exists (after the work: a Redis
 * that is away fails the event, which is retried, but scales nothing less); one autoscaler that
 * fails is logged and left to the next pass.
 */
async function passAll(r: Ready, dueAtMs?: number): Promise<AutoscaleResult[]> {
  const autoscalers = await listAll<SeedAutoscaler>(r.deps.client, GVK.SeedAutoscaler);
  const results = await passOver(r, autoscalers);
  if (autoscalers.length > 0) await queueNext(r, dueAtMs);
  return results;
}

async function passOver(r: Ready, autoscalers: SeedAutoscaler[]): Promise<AutoscaleResult[]> {
  const snap = snapshot(r.deps.client);
  const limit = pLimit(r.config.concurrency);
  const results = await Promise.all(
    autoscalers.map((a) =>
      limit(() =>
        autoscale(r.deps, r.config, snap, a).catch((err: unknown) => {
          r.log.error('autoscaler pass failed', {
            autoscaler: `${a.metadata?.namespace}/${a.metadata?.name}`,
            error: String(err),
          });
          return undefined;
        }),
      ),
    ),
  );
  return results.filter((x): x is AutoscaleResult => x !== undefined);
}

/** An event of one autoscaler: a pass when its generation is new. */
async function one(r: Ready, ce: unknown): Promise<AutoscaleResult[]> {
  const ref = eventObjectRef(ce);
  if (!ref || eventType(ce).endsWith('.delete')) return [];
  const a = await getOptional<SeedAutoscaler>(r.deps.client, GVK.SeedAutoscaler, ref.namespace, ref.name);
  if (!a) return [];
  const results =
    a.status?.observedGeneration === a.metadata?.generation
      ? []
      : [await autoscale(r.deps, r.config, snapshot(r.deps.client), a)];
  await queueNext(r);
  return results;
}

function kindOf(ce: unknown): string {
  const e = (typeof ce === 'object' && ce !== null ? ce : {}) as Record<string, unknown>;
  return typeof e.kind === 'string' ? e.kind : '';
}

/** One event: the passes it led to (tests, logs). */
export async function runSeedAutoscalerEvent(
  instance: FunctionInstance<SeedAutoscalerConfig, SeedAutoscalerDeps>,
  ce: unknown,
): Promise<AutoscaleResult[]> {
  const r = await instance.ready();
  const type = eventType(ce);
  if (type === EventTypes.ping) return passAll(r);
  if (type === EventTypes.requeue && eventTarget(ce) === FUNCTION_NAME) return passAll(r, dueAtOf(ce));
  if (type.startsWith('dev.knative.apiserver.') && kindOf(ce) === GVK.SeedAutoscaler.kind) return one(r, ce);
  r.log.debug('event ignored', { type });
  return [];
}

export const instance = createSeedAutoscalerInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const seedAutoscaler = async (ce: unknown): Promise<void> => {
  await runSeedAutoscalerEvent(instance, ce);
};

ff.cloudEvent(FUNCTION_NAME, seedAutoscaler);
ff.cloudEvent('seedAutoscaler', seedAutoscaler);
