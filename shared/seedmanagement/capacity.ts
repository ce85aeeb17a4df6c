/**
 * Seed capacity and allocatable (specs/seed-management.md "Seed capacity and allocatable"), pure.
 *
 * Upstream: gardenlet is configured with `resources.capacity` and `resources.reserved` (resource
 * lists; the built-in resource is `shoots`). Its config validation refuses a reserved quantity
 * above the capacity ("reserved must be lower or equal to capacity") and a reserved resource with no
 * capacity ("reserved without capacity"). The seed controller then writes Seed `status.capacity`
 * (the configured quantities) and `status.allocatable` (capacity minus reserved) — only when some
 * capacity is configured. ManagedSeed defaulting sets `shoots: 250` when the gardenlet config has no
 * shoots capacity.
 *
 * Where the product differs: quantities are Kubernetes quantities, but only whole, non-negative
 * values are accepted in the config (a count of shoots has no fractions); garbage is refused with the
 * API server's own quantity format message. Quantities are written in canonical decimal form
 * (`1000` → `1k`, as the API server stores them); a binary suffix is written in decimal (`1Ki` →
 * `1024`), where Go would keep `1Ki`. Problems are sorted by resource name (upstream walks maps).
 * The quantity arithmetic is shared/api/quantity.ts.
 */
import type { ResourceList } from '../api/core.js';
import type { Quantity } from '@landscape/apimachinery';
import { formatQuantity, parseQuantity } from '@landscape/apimachinery';

/** The built-in resource: the number of shoots a seed can host. */
export const RESOURCE_SHOOTS = 'shoots';

/** ManagedSeed defaulting: the shoots capacity of a gardenlet config that sets none. */
export const MANAGED_SEED_DEFAULT_SHOOTS_CAPACITY = 250;

/**
 * The part of a GardenletConfiguration this module reads (`resources`). Narrow on purpose:
 * `GardenletConfiguration` in shared/api/seedmanagement.ts has no typed `resources` field.
 */
export interface ResourcesConfiguration {
  capacity?: ResourceList;
  reserved?: ResourceList;
}

/** What the seed controller writes to Seed `status`. */
export interface SeedCapacityStatus {
  capacity: ResourceList;
  allocatable: ResourceList;
}

export type SeedCapacityDecision =
  | {
      ok: true;
      /** Undefined: no capacity configured, leave the status fields alone. */ status?: SeedCapacityStatus;
    }
  | { ok: false; problems: string[] };

function invalid(path: string, quantity: Quantity, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(String(quantity))}: ${detail}`;
}

/** A config quantity: whole and not negative. */
function configQuantity(path: string, quantity: Quantity): { value?: number; problem?: string } {
  const parsed = parseQuantity(quantity);
  if (!parsed.ok) return { problem: invalid(path, quantity, parsed.message) };
  if (!parsed.whole) return { problem: invalid(path, quantity, 'must be a whole number') };
  if (parsed.value < 0) return { problem: invalid(path, quantity, 'must not be negative') };
  return { value: parsed.value };
}

/** Every list's quantities parsed, sorted by resource name; problems for the ones that are no quantity. */
function parseList(
  list: ResourceList,
  path: string,
  problems: string[],
): Map<string, { value: number; raw: Quantity }> {
  const out = new Map<string, { value: number; raw: Quantity }>();
  for (const name of Object.keys(list).sort()) {
    const raw = list[name];
    const { value, problem } = configQuantity(`${path}.${name}`, raw);
    if (problem !== undefined) problems.push(problem);
    if (value !== undefined) out.set(name, { value, raw });
  }
  return out;
}

/** Upstream's two rules, worded as upstream, plus quantity problems; empty when valid. */
export function validateResources(resources: ResourcesConfiguration | undefined): string[] {
  const problems: string[] = [];
  const capacityList = resources?.capacity ?? {};
  const reservedList = resources?.reserved ?? {};
  const capacity = parseList(capacityList, 'resources.capacity', problems);
  const reserved = parseList(reservedList, 'resources.reserved', problems);
  for (const [name, cap] of capacity) {
    const res = reserved.get(name);
    if (res && res.value > cap.value) {
      problems.push(
        invalid(`resources.reserved.${name}`, res.raw, 'reserved must be lower or equal to capacity'),
      );
    }
  }
  for (const name of Object.keys(reservedList).sort()) {
    if (!Object.prototype.hasOwnProperty.call(capacityList, name)) {
      problems.push(invalid(`resources.reserved.${name}`, reservedList[name], 'reserved without capacity'));
    }
  }
  return problems;
}

/**
 * Seed `status.capacity` / `status.allocatable` for a gardenlet `resources` config: capacity as
 * configured, allocatable = capacity − reserved (capacity when not reserved). No status when no
 * capacity is configured; problems when the config is invalid.
 */
export function decideSeedCapacity(resources: ResourcesConfiguration | undefined): SeedCapacityDecision {
  const problems = validateResources(resources);
  if (problems.length > 0) return { ok: false, problems };
  const capacityList = resources?.capacity ?? {};
  const names = Object.keys(capacityList).sort();
  if (names.length === 0) return { ok: true };
  const status: SeedCapacityStatus = { capacity: {}, allocatable: {} };
  for (const name of names) {
    const cap = wholeValue(capacityList[name]);
    const reserved = resources?.reserved?.[name];
    status.capacity[name] = formatQuantity(cap);
    status.allocatable[name] = formatQuantity(reserved === undefined ? cap : cap - wholeValue(reserved));
  }
  return { ok: true, status };
}

/** A quantity already validated by validateResources. */
function wholeValue(quantity: Quantity): number {
  const parsed = parseQuantity(quantity);
  return parsed.ok ? parsed.value : 0;
}

/** ManagedSeed defaulting: `shoots: 250` unless a shoots capacity is set. Returns a copy. */
export function defaultManagedSeedResources(
  resources: ResourcesConfiguration | undefined,
): ResourcesConfiguration {
  const capacity: ResourceList = { ...(resources?.capacity ?? {}) };
  if (!Object.prototype.hasOwnProperty.call(capacity, RESOURCE_SHOOTS)) {
    capacity[RESOURCE_SHOOTS] = String(MANAGED_SEED_DEFAULT_SHOOTS_CAPACITY);
  }
  return resources?.reserved ? { capacity, reserved: { ...resources.reserved } } : { capacity };
}

function isResourceList(value: unknown): value is ResourceList {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((q) => typeof q === 'string' || typeof q === 'number');
}

/**
 * `resources` of an untyped GardenletConfiguration (`spec.gardenlet.config` of a ManagedSeed):
 * undefined when absent, problems when it is not `{capacity?, reserved?}` of quantities.
 */
export function readResources(
  config: unknown,
): { ok: true; resources?: ResourcesConfiguration } | { ok: false; problems: string[] } {
  const resources = (config as { resources?: unknown } | null | undefined)?.resources;
  if (resources === undefined || resources === null) return { ok: true };
  if (typeof resources !== 'object' || Array.isArray(resources)) {
    return {
      ok: false,
      problems: ['resources: Invalid value: must be an object with capacity and reserved'],
    };
  }
  const { capacity, reserved } = resources as { capacity?: unknown; reserved?: unknown };
  const out: ResourcesConfiguration = {};
  const problems: string[] = [];
  for (const [field, list] of [
    ['capacity', capacity],
    ['reserved', reserved],
  ] as const) {
    if (list === undefined) continue;
    if (isResourceList(list)) out[field] = list;
    else problems.push(`resources.${field}: Invalid value: must map resource names to quantities`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, resources: out };
}
