/**
 * Deletion decisions (pure), for the uninstall and for objects dropped from the manifest list.
 *
 * Upstream's default deletion groups, in order: namespaced objects (a namespace in the
 * reference), then cluster-scoped objects other than CRDs, then CRDs. A group is deleted only
 * when every earlier group is gone; a step issues the deletes of the first group that still has
 * objects and, when some are still there afterwards (finalizers), ends with `wait`.
 * Policies keep and ignore are never deleted; fallback only when the object still carries this
 * item's label (decided by the shell, which reads the object).
 */
import { CRD_KIND } from './objects.js';
import type { ManagedResource, ResourceRef } from './provider-status.js';

export const DELETION_GROUPS = ['namespaced', 'cluster-scoped', 'crds'] as const;
export type DeletionGroup = (typeof DELETION_GROUPS)[number];

export function deletionGroupOf(ref: ResourceRef): DeletionGroup {
  if (ref.kind === CRD_KIND) return 'crds';
  return ref.namespace ? 'namespaced' : 'cluster-scoped';
}

/** The entries whose policy allows deleting them. */
export function deletable(list: readonly ManagedResource[]): ManagedResource[] {
  return list.filter((m) => m.policy !== 'keep' && m.policy !== 'ignore');
}

export interface GroupBatch {
  group: DeletionGroup;
  resources: ManagedResource[];
}

/** The non-empty deletion groups in the order they are deleted. */
export function deletionBatches(list: readonly ManagedResource[]): GroupBatch[] {
  return DELETION_GROUPS.map((group) => ({
    group,
    resources: list.filter((m) => deletionGroupOf(m.resource) === group),
  })).filter((b) => b.resources.length > 0);
}

export type DeletionOutcome =
  | { kind: 'done' }
  | { kind: 'wait'; group: DeletionGroup; waitingFor: ManagedResource[]; remaining: ManagedResource[] };

/**
 * After the deletes of `batches[at]` were issued and `stillThere` of them remain: done when
 * nothing remains of it and no later group is left, else which objects to wait for and what is
 * left in all (the rest of this group and the later groups). `next` is true when the step may go
 * on with the next group at once.
 */
export function afterBatch(
  batches: readonly GroupBatch[],
  at: number,
  stillThere: readonly ManagedResource[],
): DeletionOutcome | { kind: 'next' } {
  const later = batches.slice(at + 1).flatMap((b) => b.resources);
  if (stillThere.length > 0) {
    return {
      kind: 'wait',
      group: batches[at].group,
      waitingFor: [...stillThere],
      remaining: [...stillThere, ...later],
    };
  }
  return later.length > 0 ? { kind: 'next' } : { kind: 'done' };
}
