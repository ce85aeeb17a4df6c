/**
 * managedseed: the ManagedSeed controller (specs/seed-management.md "ManagedSeed") as a function.
 * Takes the seed-management source's events (Reference mode): a ManagedSeed event is a pass over
 * it; a Seed event a pass over the ManagedSeed of the same name; a Shoot event a pass over the
 * ManagedSeeds naming it (and every one being deleted, which may wait for that Shoot to leave its
 * Seed); `dev.landscape.requeue` for this function a pass over the one it names;
 * `dev.landscape.resync` of ManagedSeeds a pass over all of them (./reconcile.ts).
 * Config: CONFIG_FILE (YAML) with REDIS_URL, LOG_LEVEL and MANAGED_SEED_* overrides (./config.ts).
 */
import * as ff from '@google-cloud/functions-framework';
import { GVK } from '../../shared/api/gvk.js';
import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import { lazyRedis, type RedisHandle } from '../../shared/cache/index.js';
import { EventTypes } from '../../shared/events/index.js';
import {
  createInstance,
  eventObjectRef,
  eventType,
  hostKubeClient,
  type EventObjectRef,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { after, requeue } from '../../shared/requeue/index.js';
import { FUNCTION_NAME, loadConfig, type ManagedSeedConfig } from './config.js';
import { eventKind, eventTarget } from '../../shared/function/event-attrs.js';
import { managedSeedsForShoot } from './pass.js';
import { listAll } from '../../shared/kube/io.js';
import { reconcileManagedSeed, reconcileMany, type ManagedSeedDeps, type PassOutcome } from './reconcile.js';

export { FUNCTION_NAME } from './config.js';

export type Deps = ManagedSeedDeps & { handle: RedisHandle };

export function createManagedSeedInstance(
  opts: InstanceOptions = {},
  overrides: Partial<ManagedSeedDeps> = {},
): FunctionInstance<ManagedSeedConfig, Deps> {
  return createInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ config, env, log }) => {
        const handle = lazyRedis({ url: config.redisUrl, connectionName: FUNCTION_NAME });
        const now = (): Date => new Date();
        return {
          client: hostKubeClient(env, FUNCTION_NAME),
          requeue: async (ref, afterMs): Promise<void> => {
            const item = { target: FUNCTION_NAME, kind: 'ManagedSeed', ...ref, at: after(now(), afterMs) };
            await requeue(await handle.get(), item);
          },
          now,
          log,
          handle,
          ...overrides,
        };
      },
      close: (deps) => deps.handle.close(),
    },
    opts,
  );
}

type Ok = { deps: Deps; config: ManagedSeedConfig };

async function allManagedSeeds(r: Ok): Promise<PassOutcome[]> {
  const list = await listAll<ManagedSeed>(r.deps.client, GVK.ManagedSeed, r.config.namespace);
  return reconcileMany(
    r.deps,
    r.config,
    list.map((ms) => ms.metadata?.name ?? '').filter((n) => n !== ''),
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
  if (!r.ok) return [];
  const type = eventType(ce);
  const kind = eventKind(ce);
  if (type === EventTypes.resync) return kind === 'ManagedSeed' ? allManagedSeeds(r) : [];
  const ref = eventObjectRef(ce);
  if (!ref) {
    r.log.warn('event names no object; ignored', { type, kind });
    return [];
  }
  if (type === EventTypes.requeue) {
    return eventTarget(ce) === FUNCTION_NAME && kind === 'ManagedSeed'
      ? [await reconcileManagedSeed(r.deps, r.config, ref)]
      : [];
  }
  if (type.startsWith('dev.knative.apiserver.')) return onApiServerEvent(r, kind, type, ref);
  r.log.warn('not an event for this function; ignored', { type, kind });
  return [];
}

export const instance = createManagedSeedInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const managedseed = async (ce: unknown): Promise<void> => {
  await runManagedSeedEvent(instance, ce);
};

ff.cloudEvent(FUNCTION_NAME, managedseed);
ff.cloudEvent('managedseed', managedseed);
