/**
 * Deletion protection by finalizer, pure (specs/seed-management.md "ManagedSeed", Protection).
 *
 * Upstream refuses the DELETE in gardener-apiserver's admission (a Seed still used by shoots; a
 * Shoot still referenced by a ManagedSeed). A function cannot refuse a request, so it keeps a
 * finalizer of its own on every Seed and on every Shoot a ManagedSeed references: a DELETE is
 * accepted and only sets deletionTimestamp, and the finalizer goes once the object is free (the
 * checks and messages of shared/seedmanagement/managedseed-protection.ts). A Shoot that is no
 * longer referenced (and not being deleted) loses the finalizer again.
 */
import type { ObjectMeta } from '@landscape/apimachinery';
import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import {
  seedDeletionForbidden,
  shootDeletionForbidden,
  type SeedUser,
} from '../../shared/seedmanagement/managedseed-protection.js';

/** The finalizer this function keeps on protected Seeds and Shoots. */
export const PROTECTION_FINALIZER = 'seedmanagement.landscape.dev/deletion-protection';

/** The reason of the Warning Event while a deletion waits. */
export const DELETION_BLOCKED_REASON = 'DeletionBlocked';

export type ProtectionDecision =
  | { op: 'none' }
  | { op: 'add-finalizer' }
  | { op: 'remove-finalizer' }
  /** Being deleted and still needed: keep the finalizer, warn with `message`, look again later. */
  | { op: 'keep'; message: string };

export interface ProtectedObject {
  metadata?: Pick<ObjectMeta, 'name' | 'namespace' | 'finalizers' | 'deletionTimestamp'>;
}

function hasFinalizer(o: ProtectedObject): boolean {
  return (o.metadata?.finalizers ?? []).includes(PROTECTION_FINALIZER);
}

function terminating(o: ProtectedObject): boolean {
  return Boolean(o.metadata?.deletionTimestamp);
}

/** Whether the Seed check needs the shoots at all (only a deleting Seed that still has the finalizer). */
export function seedNeedsShoots(seed: ProtectedObject): boolean {
  return terminating(seed) && hasFinalizer(seed);
}

/**
 * Every Seed carries the finalizer while it lives; a deleting one keeps it while a shoot uses it
 * (`spec.seedName` or `status.seedName`). `shoots` is read only when seedNeedsShoots says so.
 */
export function decideSeedProtection(seed: ProtectedObject, shoots: readonly SeedUser[]): ProtectionDecision {
  if (!terminating(seed)) return hasFinalizer(seed) ? { op: 'none' } : { op: 'add-finalizer' };
  if (!hasFinalizer(seed)) return { op: 'none' };
  const refused = seedDeletionForbidden(seed.metadata?.name ?? '', shoots);
  return refused ? { op: 'keep', message: refused } : { op: 'remove-finalizer' };
}

/**
 * A Shoot carries the finalizer while a ManagedSeed of its namespace names it (one being deleted
 * too); a deleting one keeps it until none does. Once it is deleting without the finalizer nothing
 * can be added (the API server forbids new finalizers then).
 */
export function decideShootProtection(
  shoot: ProtectedObject,
  managedSeeds: readonly ManagedSeed[],
): ProtectionDecision {
  const refused = shootDeletionForbidden(shoot, managedSeeds);
  const has = hasFinalizer(shoot);
  if (terminating(shoot)) {
    if (!has) return { op: 'none' };
    return refused ? { op: 'keep', message: refused } : { op: 'remove-finalizer' };
  }
  if (refused && !has) return { op: 'add-finalizer' };
  if (!refused && has) return { op: 'remove-finalizer' };
  return { op: 'none' };
}
