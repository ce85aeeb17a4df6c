/**
 * deletion-protection: upstream's admission refusals for seed management (a Seed still used by
 * shoots, a Shoot still referenced by a ManagedSeed) as a finalizer-keeping function (./decide.ts,
 * ./protect.ts). Takes the seed-management source's events (Reference mode): a Seed event looks at
 * the Seed; a Shoot event at the Shoot and at every deleting Seed (the Shoot may have freed it); a
 * ManagedSeed event at the Shoot it names and every protected Shoot of its namespace;
 * `dev.landscape.requeue` for this function at the Seed or Shoot it names; a resync (the ping of
 * the seed-management resync PingSource) at every Seed and every Shoot (metadata-only lists).
 * Config: CONFIG_FILE (YAML) with REDIS_URL, LOG_LEVEL and PROTECT_* overrides (./config.ts).
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
import { getOptional } from '../../shared/kube/io.js';
import { FUNCTION_NAME, loadConfig, type ProtectionConfig } from './config.js';
import {
  protectSeed,
  protectShoot,
  recheckDeletingSeeds,
  recheckShoots,
  sweepSeeds,
  sweepShoots,
  type ProtectionDeps,
  type ProtectionResult,
} from './protect.js';

export { FUNCTION_NAME } from './config.js';

export type Deps = ProtectionDeps & { handle: RedisHandle };

export function createProtectionInstance(
  opts: InstanceOptions = {},
  overrides: Partial<ProtectionDeps> = {},
): FunctionInstance<ProtectionConfig, Deps> {
  return createRedisInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ env, log, handle }): ProtectionDeps => {
        const base = kubeFunctionDeps(FUNCTION_NAME, env, log);
        return { ...base, requeue: requeueFor(handle, FUNCTION_NAME, base.now), ...overrides };
      },
    },
    opts,
  );
}

type Ok = { deps: Deps; config: ProtectionConfig };

/** A resync (the seed-management resync PingSource): every Seed and every Shoot it protects. */
async function resync(r: Ok): Promise<ProtectionResult[]> {
  const seeds = r.config.seeds ? await sweepSeeds(r.deps, r.config) : [];
  const shoots = r.config.shoots ? await sweepShoots(r.deps, r.config) : [];
  return [...seeds, ...shoots];
}

async function onRequeue(r: Ok, kind: string, ref: EventObjectRef): Promise<ProtectionResult[]> {
  if (kind === 'Seed' && r.config.seeds) return [await protectSeed(r.deps, r.config, ref.name)];
  if (kind === 'Shoot' && r.config.shoots) return [await protectShoot(r.deps, r.config, ref)];
  return [];
}

async function onShoot(r: Ok, deleted: boolean, ref: EventObjectRef): Promise<ProtectionResult[]> {
  const own = r.config.shoots && !deleted ? [await protectShoot(r.deps, r.config, ref)] : [];
  const seeds = r.config.seeds ? await recheckDeletingSeeds(r.deps, r.config) : [];
  return [...own, ...seeds];
}

async function onManagedSeed(r: Ok, deleted: boolean, ref: EventObjectRef): Promise<ProtectionResult[]> {
  if (!r.config.shoots) return [];
  const ms = deleted
    ? undefined
    : await getOptional<ManagedSeed>(r.deps.client, GVK.ManagedSeed, ref.namespace, ref.name);
  const named = ms?.spec?.shoot?.name;
  return recheckShoots(r.deps, r.config, ref.namespace, named ? [named] : []);
}

async function onApiServerEvent(
  r: Ok,
  kind: string,
  type: string,
  ref: EventObjectRef,
): Promise<ProtectionResult[]> {
  const deleted = type.endsWith('.delete');
  switch (kind) {
    case 'Seed':
      return r.config.seeds && !deleted ? [await protectSeed(r.deps, r.config, ref.name)] : [];
    case 'Shoot':
      return onShoot(r, deleted, ref);
    case 'ManagedSeed':
      return onManagedSeed(r, deleted, ref);
    default:
      return [];
  }
}

/** One event; what was decided for every object it caused a look at (tests, logs). */
export async function runProtectionEvent(
  instance: FunctionInstance<ProtectionConfig, Deps>,
  ce: unknown,
): Promise<ProtectionResult[]> {
  const r = await instance.ready();
  return routeObjectEvent(ce, FUNCTION_NAME, r.log, {
    resync: () => resync(r),
    requeue: (kind, ref) => onRequeue(r, kind, ref),
    apiServer: (kind, type, ref) => onApiServerEvent(r, kind, type, ref),
  });
}

export const instance = createProtectionInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const deletionProtection = async (ce: unknown): Promise<void> => {
  await runProtectionEvent(instance, ce);
};

ff.cloudEvent(FUNCTION_NAME, deletionProtection);
ff.cloudEvent('deletionProtection', deletionProtection);
