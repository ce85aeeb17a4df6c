/**
 * The I/O around ./decide.ts: read the Seed and the ManagedSeed of its name, decide, patch
 * `status.capacity` / `status.allocatable` through the status subresource when they change, or
 * record the Warning Event (aggregated) when the resources config is invalid.
 */
import pLimit from 'p-limit';
import { GARDENER_CORE_API_VERSION, type Seed } from '../../shared/api/core.js';
import { GVK } from '../../shared/api/gvk.js';
import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import type { KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { recordEvent } from '../../shared/kube/events.js';
import { getOptional, listAll } from '../../shared/kube/io.js';
import type { SeedStatusConfig } from './config.js';
import {
  decideSeedStatus,
  INVALID_RESOURCES_REASON,
  resourcesFor,
  type SeedStatusDecision,
} from './decide.js';

export const EVENT_COMPONENT = 'seed-status';

export interface SeedStatusDeps {
  client: KubeClient;
  now: () => Date;
  log: Logger;
}

export type SeedStatusOutcome = SeedStatusDecision['op'] | 'gone';

async function carryOut(deps: SeedStatusDeps, seed: Seed, decision: SeedStatusDecision): Promise<void> {
  const name = seed.metadata?.name ?? '';
  if (decision.op === 'write') {
    await deps.client.patchStatus(GVK.Seed, { name }, decision.patch);
    deps.log.info('seed capacity written', { seed: name, ...decision.patch.status });
  }
  if (decision.op === 'invalid') {
    const involved = { apiVersion: GARDENER_CORE_API_VERSION, kind: 'Seed', name, uid: seed.metadata?.uid };
    const event = { type: 'Warning' as const, reason: INVALID_RESOURCES_REASON, message: decision.message };
    await recordEvent(deps.client, involved, event, {
      component: EVENT_COMPONENT,
      now: deps.now(),
      log: deps.log,
    });
    deps.log.warn('invalid resources config; seed status not written', {
      seed: name,
      message: decision.message,
    });
  }
}

/** One Seed (read unless `known`); the ManagedSeed of its name read unless `managedSeeds` has them all. */
export async function updateSeedStatus(
  deps: SeedStatusDeps,
  config: SeedStatusConfig,
  name: string,
  known?: { seed: Seed; managedSeeds: ReadonlyMap<string, ManagedSeed> },
): Promise<SeedStatusOutcome> {
  const seed = known?.seed ?? (await getOptional<Seed>(deps.client, GVK.Seed, undefined, name));
  if (!seed) return 'gone';
  const managedSeed = known
    ? known.managedSeeds.get(name)
    : await getOptional<ManagedSeed>(deps.client, GVK.ManagedSeed, config.managedSeedNamespace, name);
  const decision = decideSeedStatus(seed, resourcesFor(name, managedSeed, config));
  await carryOut(deps, seed, decision);
  return decision.op;
}

/** Every Seed (a resync): two lists, then one decision per Seed. */
export async function updateAllSeeds(
  deps: SeedStatusDeps,
  config: SeedStatusConfig,
): Promise<SeedStatusOutcome[]> {
  const [seeds, managed] = await Promise.all([
    listAll<Seed>(deps.client, GVK.Seed),
    listAll<ManagedSeed>(deps.client, GVK.ManagedSeed, config.managedSeedNamespace),
  ]);
  const managedSeeds = new Map(managed.map((ms) => [ms.metadata?.name ?? '', ms]));
  const limit = pLimit(config.concurrency);
  return Promise.all(
    seeds.map((seed) =>
      limit(() => updateSeedStatus(deps, config, seed.metadata?.name ?? '', { seed, managedSeeds })),
    ),
  );
}
