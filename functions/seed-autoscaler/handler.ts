/**
 * seed-autoscaler: the SeedAutoscaler controller (GEP-13, shaped as the Kubernetes HPA) as a
 * function. A PingSource tick (every 15 s in the embedded landscape, every minute on Knative)
 * runs one pass over every SeedAutoscaler; an API-server event of a SeedAutoscaler (Reference mode)
 * runs one over it when its generation is not handled yet (its own status writes come back as
 * updates). A pass (./autoscale.ts) reads the target ManagedSeedSet's scale and its seeds'
 * allocatable and usage, decides (./autoscaler.ts), writes the set's scale,
 * the autoscaler's status (with the recommendation history: no Redis) and an Event.
 * Config: CONFIG_FILE (YAML) with LOG_LEVEL, AUTOSCALER_TOLERANCE and DOWNSCALE_STABILIZATION
 * overrides (./config.ts).
 */
import { randomUUID } from 'node:crypto';
import * as ff from '@google-cloud/functions-framework';
import pLimit from 'p-limit';
import { GVK } from '../../shared/api/gvk.js';
import type { SeedAutoscaler } from '../../shared/api/seedautoscaler.js';
import { EventTypes } from '../../shared/events/index.js';
import {
  createKubeInstance,
  eventObjectRef,
  eventType,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { getOptional, listAll } from '../../shared/kube/io.js';
import { autoscale, type AutoscaleDeps, type AutoscaleResult } from './autoscale.js';
import { FUNCTION_NAME, loadConfig, type SeedAutoscalerConfig } from './config.js';
import { snapshot } from './observe.js';

export { FUNCTION_NAME } from './config.js';

export function createSeedAutoscalerInstance(
  opts: InstanceOptions = {},
  overrides: Partial<AutoscaleDeps> = {},
): FunctionInstance<SeedAutoscalerConfig, AutoscaleDeps> {
  return createKubeInstance(FUNCTION_NAME, loadConfig, () => ({ newId: randomUUID, ...overrides }), opts);
}

type Ready = Extract<
  Awaited<ReturnType<FunctionInstance<SeedAutoscalerConfig, AutoscaleDeps>['ready']>>,
  { ok: true }
>;

/** A tick: one pass over every autoscaler; one that fails is logged and left to the next tick. */
async function tick(r: Ready): Promise<AutoscaleResult[]> {
  const autoscalers = await listAll<SeedAutoscaler>(r.deps.client, GVK.SeedAutoscaler);
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
  if (!a || a.status?.observedGeneration === a.metadata?.generation) return [];
  return [await autoscale(r.deps, r.config, snapshot(r.deps.client), a)];
}

function kindOf(ce: unknown): string {
  const e = (typeof ce === 'object' && ce !== null ? ce : {}) as Record<string, unknown>;
  return typeof e.kind === 'string' ? e.kind : '';
}

/** One event: the passes it led to (tests, logs). */
export async function runSeedAutoscalerEvent(
  instance: FunctionInstance<SeedAutoscalerConfig, AutoscaleDeps>,
  ce: unknown,
): Promise<AutoscaleResult[]> {
  const r = await instance.ready();
  const type = eventType(ce);
  if (type === EventTypes.ping) return tick(r);
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
