/**
 * Shoots per seed, as the scheduler counts them (upstream v1beta1helper.CalculateSeedUsage), pure.
 *
 * Upstream: a shoot counts once for `spec.seedName` and once more for `status.seedName` when that
 * names a different seed (a shoot in control-plane migration counts on both seeds). Upstream lists
 * every Shoot per decision; the product keeps the counts incrementally (usageDelta tells what one
 * Shoot event changes), so a decision costs O(seeds).
 */
import type { Shoot } from '../api/core.js';

/** The seeds a shoot counts on: spec.seedName, then a different status.seedName. */
export function usageSeeds(shoot: Shoot | undefined): string[] {
  const spec = shoot?.spec.seedName ?? '';
  const status = shoot?.status?.seedName ?? '';
  const seeds = spec !== '' ? [spec] : [];
  if (status !== '' && status !== spec) seeds.push(status);
  return seeds;
}

/** Shoots per seed name for a list of shoots (seeds without shoots are absent). */
export function seedUsage(shoots: readonly Shoot[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const shoot of shoots) {
    for (const seed of usageSeeds(shoot)) counts.set(seed, (counts.get(seed) ?? 0) + 1);
  }
  return Object.fromEntries(counts);
}

/**
 * What one Shoot event changes in the counts: `before` is the stored object (undefined on add),
 * `after` the new one (undefined on delete). Only non-zero changes are listed.
 */
export function usageDelta(before: Shoot | undefined, after: Shoot | undefined): Record<string, number> {
  const delta = new Map<string, number>();
  for (const seed of usageSeeds(before)) delta.set(seed, (delta.get(seed) ?? 0) - 1);
  for (const seed of usageSeeds(after)) delta.set(seed, (delta.get(seed) ?? 0) + 1);
  return Object.fromEntries([...delta].filter(([, d]) => d !== 0));
}
