/**
 * Deletion protection for managed seeds, pure (specs/seed-management.md "ManagedSeed").
 *
 * Upstream refuses the DELETE itself in admission plugins of gardener-apiserver: SeedValidator
 * forbids deleting a Seed that a Shoot still uses (`spec.seedName` or `status.seedName`), and the
 * ManagedSeed admission plugin forbids deleting a Shoot that a ManagedSeed (same namespace,
 * `spec.shoot.name`) still references. The product has no admission webhook on that path: a
 * finalizer-keeping function runs these checks and keeps its finalizer (and reports the message)
 * while one of them says no. The messages are upstream's.
 */
import type { Shoot } from '../api/core.js';
import type { ManagedSeed } from '../api/seedmanagement.js';

/** The fields of a Shoot the seed check reads. */
export interface SeedUser {
  metadata?: { name?: string; namespace?: string };
  spec?: { seedName?: string };
  status?: { seedName?: string };
}

/** Whether `shoot` uses the seed: bound to it (`spec.seedName`) or still on it (`status.seedName`). */
export function seedUsedByShoot(seedName: string, shoot: SeedUser): boolean {
  return shoot.spec?.seedName === seedName || shoot.status?.seedName === seedName;
}

/** Upstream's refusal for a Seed that shoots still use. */
export function seedInUseMessage(seedName: string): string {
  return `cannot delete seed ${seedName} since it is still used by shoot(s)`;
}

/** Undefined when the Seed may go; else upstream's message. */
export function seedDeletionForbidden(seedName: string, shoots: readonly SeedUser[]): string | undefined {
  return shoots.some((s) => seedUsedByShoot(seedName, s)) ? seedInUseMessage(seedName) : undefined;
}

/** Upstream's refusal for a Shoot that a ManagedSeed still references. */
export function shootReferencedMessage(namespace: string, name: string): string {
  return `cannot delete shoot ${namespace}/${name} since it is still referenced by a managed seed`;
}

/** The ManagedSeeds (in the shoot's namespace) whose `spec.shoot.name` names `shoot`. */
export function managedSeedsReferencing(
  shoot: Pick<Shoot, 'metadata'>,
  managedSeeds: readonly ManagedSeed[],
): ManagedSeed[] {
  const name = shoot.metadata?.name;
  const namespace = shoot.metadata?.namespace;
  if (!name) return [];
  return managedSeeds.filter((ms) => ms.metadata?.namespace === namespace && ms.spec?.shoot?.name === name);
}

/**
 * Undefined when the Shoot may go; else upstream's message. A ManagedSeed that is itself being
 * deleted still protects its Shoot (as upstream: the Shoot goes after the ManagedSeed is gone).
 */
export function shootDeletionForbidden(
  shoot: Pick<Shoot, 'metadata'>,
  managedSeeds: readonly ManagedSeed[],
): string | undefined {
  if (managedSeedsReferencing(shoot, managedSeeds).length === 0) return undefined;
  return shootReferencedMessage(shoot.metadata?.namespace ?? '', shoot.metadata?.name ?? '');
}
