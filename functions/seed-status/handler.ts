/**
 * seed-status: Seed `status.capacity` / `status.allocatable` from gardenlet-style resources
 * (specs/seed-management.md "Seed capacity and allocatable"; ./decide.ts, ./status.ts). Takes the
 * seed-management source's events (Reference mode): a Seed event looks at the Seed; a ManagedSeed
 * event (of the ManagedSeed namespace) at the Seed of its name; a resync (the ping of the
 * seed-management resync PingSource) at every Seed (a full list: the decision needs the Seed's
 * spec and status). Nothing waits, so nothing is requeued (no Redis).
 * Config: CONFIG_FILE (YAML) with LOG_LEVEL and MANAGED_SEED_NAMESPACE overrides (./config.ts).
 */
import * as ff from '@google-cloud/functions-framework';
import {
  createKubeInstance,
  eventObjectRef,
  eventType,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { eventKind, isResyncEvent } from '../../shared/function/event-attrs.js';
import { FUNCTION_NAME, loadConfig, type SeedStatusConfig } from './config.js';
import { updateAllSeeds, updateSeedStatus, type SeedStatusDeps, type SeedStatusOutcome } from './status.js';

export { FUNCTION_NAME } from './config.js';

export function createSeedStatusInstance(
  opts: InstanceOptions = {},
  overrides: Partial<SeedStatusDeps> = {},
): FunctionInstance<SeedStatusConfig, SeedStatusDeps> {
  return createKubeInstance(FUNCTION_NAME, loadConfig, () => overrides, opts);
}

/** The Seed an API-server event concerns, if any. */
function seedOf(config: SeedStatusConfig, kind: string, type: string, ce: unknown): string | undefined {
  const ref = eventObjectRef(ce);
  if (!ref || !type.startsWith('dev.knative.apiserver.')) return undefined;
  if (kind === 'Seed') return type.endsWith('.delete') ? undefined : ref.name;
  if (kind === 'ManagedSeed' && ref.namespace === config.managedSeedNamespace) return ref.name;
  return undefined;
}

/** One event; the outcome for every Seed looked at (tests, logs). */
export async function runSeedStatusEvent(
  instance: FunctionInstance<SeedStatusConfig, SeedStatusDeps>,
  ce: unknown,
): Promise<SeedStatusOutcome[]> {
  const r = await instance.ready();
  const type = eventType(ce);
  const kind = eventKind(ce);
  if (isResyncEvent(ce)) return updateAllSeeds(r.deps, r.config);
  const seed = seedOf(r.config, kind, type, ce);
  if (seed === undefined) {
    r.log.debug('not an event for this function; ignored', { type, kind });
    return [];
  }
  return [await updateSeedStatus(r.deps, r.config, seed)];
}

export const instance = createSeedStatusInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const seedStatus = async (ce: unknown): Promise<void> => {
  await runSeedStatusEvent(instance, ce);
};

ff.cloudEvent(FUNCTION_NAME, seedStatus);
ff.cloudEvent('seedStatus', seedStatus);
