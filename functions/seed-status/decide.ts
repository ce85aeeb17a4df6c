/**
 * What the seed status writer does for one Seed, pure (specs/seed-management.md "Seed capacity
 * and allocatable"; the arithmetic and validation are shared/seedmanagement/capacity.ts).
 *
 * Where a Seed's gardenlet-style `resources` come from: a Seed with a ManagedSeed of its name (in
 * the ManagedSeed namespace) that deploys a gardenlet takes the ManagedSeed's
 * `spec.gardenlet.config.resources` with the ManagedSeed defaulting (`shoots: 250` unless set);
 * every other Seed takes the function's config (`seeds.<name>`, else `default`). An invalid
 * config is a Warning Event on the Seed with upstream's validation messages, and nothing is
 * written; no capacity configured leaves the status alone (upstream writes only when some is).
 * The status is written only when it changes, as a merge patch that also drops resources no
 * longer configured.
 */
import type { ResourceList, Seed } from '../../shared/api/core.js';
import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import {
  decideSeedCapacity,
  defaultManagedSeedResources,
  readResources,
  type ResourcesConfiguration,
  type SeedCapacityStatus,
} from '../../shared/seedmanagement/capacity.js';
import type { SeedStatusConfig } from './config.js';

/** The reason of the Warning Event for an invalid resources config. */
export const INVALID_RESOURCES_REASON = 'InvalidResourcesConfig';

export type ResourcesSource =
  { source: string; resources?: ResourcesConfiguration } | { source: string; problems: string[] };

export type SeedStatusDecision =
  | { op: 'unconfigured' }
  | { op: 'unchanged' }
  | { op: 'write'; patch: { status: Record<'capacity' | 'allocatable', Record<string, string | null>> } }
  | { op: 'invalid'; message: string };

function managedSeedResources(ms: ManagedSeed): ResourcesSource {
  const meta = ms.metadata ?? {};
  const source = `ManagedSeed ${meta.namespace ?? ''}/${meta.name ?? ''} spec.gardenlet.config`;
  const read = readResources(ms.spec?.gardenlet?.config);
  if (!read.ok) return { source, problems: read.problems };
  return { source, resources: defaultManagedSeedResources(read.resources) };
}

/** Where the Seed's resources come from, and what they are (or what is wrong with them). */
export function resourcesFor(
  seedName: string,
  managedSeed: ManagedSeed | undefined,
  config: Pick<SeedStatusConfig, 'seeds' | 'default'>,
): ResourcesSource {
  if (managedSeed?.spec?.gardenlet) return managedSeedResources(managedSeed);
  if (Object.prototype.hasOwnProperty.call(config.seeds, seedName)) {
    return { source: `seed-status config seeds.${seedName}`, resources: config.seeds[seedName] };
  }
  return { source: 'seed-status config default', ...(config.default ? { resources: config.default } : {}) };
}

function listPatch(observed: ResourceList | undefined, desired: ResourceList): Record<string, string | null> {
  const patch: Record<string, string | null> = {};
  for (const name of Object.keys(observed ?? {})) if (!(name in desired)) patch[name] = null;
  for (const [name, q] of Object.entries(desired)) patch[name] = String(q);
  return patch;
}

function sameList(observed: ResourceList | undefined, desired: ResourceList): boolean {
  const a = Object.entries(observed ?? {}).map(([k, v]) => `${k}=${String(v)}`);
  const b = Object.entries(desired).map(([k, v]) => `${k}=${String(v)}`);
  return a.sort().join(',') === b.sort().join(',');
}

/** The status write (or none) for the observed Seed. */
export function decideSeedStatus(seed: Pick<Seed, 'status'>, from: ResourcesSource): SeedStatusDecision {
  if ('problems' in from) return { op: 'invalid', message: invalidMessage(from.source, from.problems) };
  const decision = decideSeedCapacity(from.resources);
  if (!decision.ok) return { op: 'invalid', message: invalidMessage(from.source, decision.problems) };
  if (!decision.status) return { op: 'unconfigured' };
  return statusWrite(seed, decision.status);
}

function statusWrite(seed: Pick<Seed, 'status'>, desired: SeedCapacityStatus): SeedStatusDecision {
  const { capacity, allocatable } = seed.status ?? {};
  if (sameList(capacity, desired.capacity) && sameList(allocatable, desired.allocatable)) {
    return { op: 'unchanged' };
  }
  return {
    op: 'write',
    patch: {
      status: {
        capacity: listPatch(capacity, desired.capacity),
        allocatable: listPatch(allocatable, desired.allocatable),
      },
    },
  };
}

/** The Warning Event's message: the config's place and upstream's validation messages. */
export function invalidMessage(source: string, problems: readonly string[]): string {
  return `invalid resources in ${source}: ${problems.join('; ')}`;
}
