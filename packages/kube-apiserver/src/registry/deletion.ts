/**
 * Deletion rules shared by the verbs and the garbage collector: propagation policies and the
 * finalizers they add, DeleteOptions preconditions, and what counts as a pending finalizer.
 */
import { conflict } from '../api/errors.js';
import { strategyFor } from './strategies.js';
import type { KubeObject, ResourceDef } from '../api/types.js';

export const PROPAGATION_POLICIES = ['Orphan', 'Background', 'Foreground'] as const;
export type PropagationPolicy = (typeof PROPAGATION_POLICIES)[number];

export function isPropagationPolicy(v: unknown): v is PropagationPolicy {
  return typeof v === 'string' && (PROPAGATION_POLICIES as readonly string[]).includes(v);
}

/** The finalizers the garbage collector acts on (metav1.FinalizerOrphanDependents / FinalizerDeleteDependents). */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export interface DeleteOptions {
  dryRun: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Background (the default) deletes dependents after the owner; Foreground before; Orphan keeps them. */
  propagationPolicy?: PropagationPolicy;
}

const POLICY_FINALIZERS: Record<PropagationPolicy, string | undefined> = {
  Orphan: ORPHAN_FINALIZER,
  Foreground: FOREGROUND_FINALIZER,
  Background: undefined,
};

/** The object with the finalizer its propagation policy asks for (the garbage collector removes it). */
export function withPolicyFinalizer(obj: KubeObject, policy: PropagationPolicy | undefined): KubeObject {
  const finalizer = POLICY_FINALIZERS[policy ?? 'Background'];
  const finalizers = obj.metadata.finalizers ?? [];
  if (!finalizer || finalizers.includes(finalizer)) return obj;
  return { ...obj, metadata: { ...obj.metadata, finalizers: [...finalizers, finalizer] } };
}

/** DeleteOptions preconditions, checked (and worded) as rest.BeforeDelete does: the Kind names the object. */
export function checkDeletePreconditions(
  def: ResourceDef,
  prev: KubeObject,
  pre: DeleteOptions['preconditions'],
): void {
  const kind = { group: def.group, resource: def.kind };
  const name = prev.metadata.name!;
  const { uid, resourceVersion } = prev.metadata;
  if (pre?.uid && pre.uid !== uid) {
    throw conflict(
      kind,
      name,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== resourceVersion) {
    throw conflict(
      kind,
      name,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`,
    );
  }
}

/** Whether finalizers still hold an object's deletion (metadata.finalizers, or its kind's own: ./strategies.ts). */
export function hasFinalizers(def: ResourceDef, obj: KubeObject): boolean {
  if ((obj.metadata.finalizers ?? []).length > 0) return true;
  return strategyFor(def).pendingFinalizers(obj).length > 0;
}
