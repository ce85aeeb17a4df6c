/**
 * Deletion decisions (pure), for the uninstall and for objects dropped from the manifest list.
 *
 * Deletion groups as upstream (pkg/deployer/lib/resourcemanager/deletionmanager.go, matcher.go):
 * `deletionGroups` (uninstall) and `deletionGroupsDuringUpdate` (dropped objects), default
 * namespaced objects (a namespace in the reference), then cluster-scoped objects other than
 * CRDs, then CRDs. Each object goes into the first group that matches it; an object no group
 * matches is not deleted (upstream). A group is deleted only when every earlier group is gone; a
 * step issues the deletes of the first group that still has objects and, when some are still
 * there afterwards (finalizers), ends with `wait` (`forceDelete`: their finalizers are removed).
 * Policies keep and ignore are never deleted; fallback only when the object still carries this
 * item's label (decided by the shell, which reads the object).
 */
import { DEFAULT_DELETION_GROUPS, type DeletionGroupDefinition } from './deletion-config.js';
import { CRD_KIND } from './objects.js';
import type { ManagedResource, ResourceRef } from './provider-status.js';

function isCrdRef(ref: ResourceRef): boolean {
  return ref.kind === CRD_KIND;
}

function within(list: readonly string[], value: string): boolean {
  return list.length === 0 || list.includes(value);
}

/** Whether a group takes the object (upstream's matchers). */
export function groupMatches(def: DeletionGroupDefinition, ref: ResourceRef): boolean {
  if ('custom' in def)
    return def.custom.some(
      (t) =>
        t.kind === ref.kind &&
        t.apiVersion === ref.apiVersion &&
        within(t.namespaces, ref.namespace ?? '') &&
        within(t.names, ref.name),
    );
  switch (def.predefined) {
    case 'namespaced-resources':
      return !isCrdRef(ref) && !!ref.namespace;
    case 'cluster-scoped-resources':
      return !isCrdRef(ref) && !ref.namespace;
    case 'crds':
      return isCrdRef(ref);
    default:
      return false;
  }
}

/** How a group is named in messages: its predefined type, or `customResourceGroup[<i>]`. */
export function groupLabel(def: DeletionGroupDefinition, index: number): string {
  return 'custom' in def ? `customResourceGroup[${index}]` : def.predefined;
}

/** The entries whose policy allows deleting them. */
export function deletable(list: readonly ManagedResource[]): ManagedResource[] {
  return list.filter((m) => m.policy !== 'keep' && m.policy !== 'ignore');
}

export interface GroupBatch {
  group: string;
  forceDelete: boolean;
  resources: ManagedResource[];
}

/** The non-empty deletion groups in the order they are deleted (unmatched objects left out). */
export function deletionBatches(
  list: readonly ManagedResource[],
  groups: readonly DeletionGroupDefinition[] = DEFAULT_DELETION_GROUPS,
): GroupBatch[] {
  const batches = groups.map((def, i) => ({
    group: groupLabel(def, i),
    forceDelete: def.forceDelete,
    resources: [] as ManagedResource[],
  }));
  for (const m of list) {
    const at = groups.findIndex((def) => groupMatches(def, m.resource));
    if (at >= 0) batches[at].resources.push(m);
  }
  return batches.filter((b) => b.resources.length > 0);
}

export type DeletionOutcome =
  | { kind: 'done' }
  | { kind: 'wait'; group: string; waitingFor: ManagedResource[]; remaining: ManagedResource[] };

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
