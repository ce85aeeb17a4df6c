/**
 * managedseed: the ManagedSeed controller (specs/seed-management.md "ManagedSeed") as a function.
 * Takes the seed-management source's events (Reference mode): a ManagedSeed event is a pass over
 * it; a Seed event a pass over the ManagedSeed of the same name; a Shoot event a pass over the
 * ManagedSeeds naming it (and every one being deleted, which may wait for that Shoot to leave its
 * Seed); `dev.landscape.requeue` for this function a pass over the one it names;
 * a resync (the ping of the seed-management resync PingSource) a pass over all of them, listed
 * metadata-only (./reconcile.ts).
 * Config: CONFIG_FILE (YAML) with REDIS_URL, LOG_LEVEL and MANAGED_SEED_* overrides (./config.ts).
 */
import * as ff from '@google-cloud/functions-framework';
import { GVK } from '../../shared/api/gvk.js';
import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import type { RedisHandle } from '../../shared/redis/index.js';
import {
  kubeFunctionDeps,
  type EventObjectRef,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { createRedisInstance, requeueFor } from '../../shared/function/redis.js';
import { routeObjectEvent } from '../../shared/function/route.js';
import { listAll, listAllMetadata } from '../../shared/kube/io.js';
import { FUNCTION_NAME, loadConfig, type ManagedSeedConfig } from './config.js';
import { managedSeedsForShoot } from './pass.js';
import { reconcileManagedSeed, reconcileMany, type ManagedSeedDeps, type PassOutcome } from './reconcile.js';

export { FUNCTION_NAME } from './config.js';

export type Deps = ManagedSeedDeps & { handle: RedisHandle };

export function createManagedSeedInstance(
  opts: InstanceOptions = {},
  overrides: Partial<ManagedSeedDeps> = {},
): FunctionInstance<ManagedSeedConfig, Deps> {
  return createRedisInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ env, log, handle }): ManagedSeedDeps => {
        const base = kubeFunctionDeps(FUNCTION_NAME, env, log);
        const requeue = requeueFor(handle, FUNCTION_NAME, base.now);
        return {
          ...base,
          requeue: (ref, afterMs) => requeue({ kind: 'ManagedSeed', ...ref }, afterMs),
          ...overrides,
        };
      },
    },
    opts,
  );
}

type Ok = { deps: Deps; config: ManagedSeedConfig };

/** A resync: a pass over every ManagedSeed (the names from a metadata-only list; each pass reads its own). */
async function allManagedSeeds(r: Ok): Promise<PassOutcome[]> {
  const list = await listAllMetadata(r.deps.client, GVK.ManagedSeed, r.config.namespace);
  return reconcileMany(
    r.deps,
    r.config,
    list.map((ms) => ms.metadata.name ?? '').filter((n) => n !== ''),
  );
}

async function onShoot(r: Ok, ref: EventObjectRef): Promise<PassOutcome[]> {
  const list = await listAll<ManagedSeed>(r.deps.client, GVK.ManagedSeed, r.config.namespace);
  return reconcileMany(r.deps, r.config, managedSeedsForShoot(ref, list));
}

/** An API-server event: which ManagedSeeds it concerns, each looked at once. */
async function onApiServerEvent(
  r: Ok,
  kind: string,
  type: string,
  ref: EventObjectRef,
): Promise<PassOutcome[]> {
  switch (kind) {
    case 'ManagedSeed':
      return type.endsWith('.delete') ? [] : [await reconcileManagedSeed(r.deps, r.config, ref)];
    case 'Seed':
      return [
        await reconcileManagedSeed(r.deps, r.config, { namespace: r.config.namespace, name: ref.name }),
      ];
    case 'Shoot':
      return onShoot(r, ref);
    default:
      return [];
  }
}

/** One event; the outcome of every pass it caused (tests, logs). */
export async function runManagedSeedEvent(
  instance: FunctionInstance<ManagedSeedConfig, Deps>,
  ce: unknown,
): Promise<PassOutcome[]> {
  const r = await instance.ready();
  return routeObjectEvent(ce, FUNCTION_NAME, r.log, {
    resync: () => allManagedSeeds(r),
    requeue: async (kind, ref) =>
      kind === 'ManagedSeed' ? [await reconcileManagedSeed(r.deps, r.config, ref)] : [],
    apiServer: (kind, type, ref) => onApiServerEvent(r, kind, type, ref),
  });
}

export const instance = createManagedSeedInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const managedseed = async (ce: unknown): Promise<void> => {
  await runManagedSeedEvent(instance, ce);
};

ff.cloudEvent(FUNCTION_NAME, managedseed);
ff.cloudEvent('managedseed', managedseed);
