/**
 * managedseedset: gardener-controller-manager's ManagedSeedSet controller as a function. Events of
 * ManagedSeedSets and of their replicas' Shoots, ManagedSeeds and Seeds (the seed-management
 * API-server source, Reference mode), `dev.landscape.requeue` for itself and the resync (the ping
 * of the seed-management resync PingSource; ./route.ts) each lead to one pass per set (./reconcile.ts): one step of
 * ./managedseedset.ts (create the next Shoot, its ManagedSeed once the Shoot is
 * reconciled, retry a failed Shoot, delete one deletable replica), the status, Events, a requeue.
 * Config: CONFIG_FILE (YAML) with LOG_LEVEL, REDIS_URL, SYNC_PERIOD and MAX_SHOOT_RETRIES
 * overrides (./config.ts).
 */
import { randomUUID } from 'node:crypto';
import * as ff from '@google-cloud/functions-framework';
import pLimit from 'p-limit';
import { GVK } from '../../shared/api/gvk.js';
import type { RedisHandle } from '../../shared/redis/index.js';
import {
  eventType,
  kubeFunctionDeps,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { createRedisInstance } from '../../shared/function/redis.js';
import { forEachPage } from '../../shared/kube/io.js';
import { podName } from '../../shared/function/pod.js';
import { FUNCTION_NAME, loadConfig, type ManagedSeedSetConfig } from './config.js';
import { reconcileSet, requeueSet, type PassResult, type SetDeps } from './reconcile.js';
import { routeEvent } from './route.js';

export { FUNCTION_NAME } from './config.js';

type Deps = SetDeps & { handle: RedisHandle };

export function createManagedSeedSetInstance(
  opts: InstanceOptions = {},
  overrides: Partial<SetDeps> = {},
): FunctionInstance<ManagedSeedSetConfig, Deps> {
  return createRedisInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ env, log, handle }): SetDeps => ({
        ...kubeFunctionDeps(FUNCTION_NAME, env, log),
        redis: () => handle.get(),
        newId: randomUUID,
        owner: podName(env) ?? `${FUNCTION_NAME}-${randomUUID().slice(0, 8)}`,
        ...overrides,
      }),
    },
    opts,
  );
}

/** Resync: every set is requeued now (each then runs in an invocation of its own). */
function requeueAll(deps: SetDeps): Promise<number> {
  const limit = pLimit(8);
  return forEachPage(
    (page) => deps.client.listMetadata(GVK.ManagedSeedSet, undefined, page),
    (items) =>
      Promise.all(
        items.map((m) =>
          limit(() =>
            requeueSet(deps, { namespace: m.metadata.namespace ?? '', name: m.metadata.name ?? '' }, 0),
          ),
        ),
      ),
  );
}

/** One event: the passes it led to (tests, logs); [] when there was nothing to do. */
export async function runManagedSeedSetEvent(
  instance: FunctionInstance<ManagedSeedSetConfig, Deps>,
  ce: unknown,
): Promise<PassResult[]> {
  const r = await instance.ready();
  const route = await routeEvent(r.deps.client, ce);
  if (route.kind === 'ignore') {
    r.log.debug('event ignored', { type: eventType(ce), why: route.why });
    return [];
  }
  if (route.kind === 'resync') {
    r.log.info('resync: every ManagedSeedSet requeued', { sets: await requeueAll(r.deps) });
    return [];
  }
  const results: PassResult[] = [];
  for (const { onlyOnChange, ...ref } of route.sets)
    results.push(await reconcileSet(r.deps, r.config, ref, { onlyOnChange }));
  return results;
}

export const instance = createManagedSeedSetInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const managedseedset = async (ce: unknown): Promise<void> => {
  await runManagedSeedSetEvent(instance, ce);
};

ff.cloudEvent(FUNCTION_NAME, managedseedset);
