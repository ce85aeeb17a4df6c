/**
 * The conditions the namespace controller sets on a Terminating namespace (k8s.io/kubernetes
 * pkg/controller/namespace/deletion/status_condition_utils.go and namespaced_resources_deleter.go):
 * the five deletion conditions, False with their "ok" reason and message when nothing is wrong,
 * True with what remains — `Some resources are remaining: pods. has 1 resource instances`,
 * `Some content in the namespace has finalizers remaining: example.com/hold in 1 resource
 * instances`. A condition keeps its lastTransitionTime while its status does not change.
 */
import type { KubeObject } from '../api/types.js';

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

const OK: [type: string, reason: string, message: string][] = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  [
    'NamespaceDeletionGroupVersionParsingFailure',
    'ParsedGroupVersions',
    'All legacy kube types successfully parsed',
  ],
  [
    'NamespaceDeletionContentFailure',
    'ContentDeleted',
    'All content successfully deleted, may be waiting on finalization',
  ],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

/** What is left in the namespace after a deletion pass. */
export interface Remaining {
  /** `<resource>.<group>` → objects left. */
  resources: Map<string, number>;
  /** finalizer → objects left that carry it. */
  finalizers: Map<string, number>;
}

export function emptyRemaining(): Remaining {
  return { resources: new Map(), finalizers: new Map() };
}

/** Counts one object that is still there (`resource`: its resource and group as `pods.`). */
export function countRemaining(r: Remaining, resource: string, obj: KubeObject): void {
  r.resources.set(resource, (r.resources.get(resource) ?? 0) + 1);
  for (const f of obj.metadata.finalizers ?? []) r.finalizers.set(f, (r.finalizers.get(f) ?? 0) + 1);
}

function failures(r: Remaining): Map<string, [reason: string, message: string]> {
  const out = new Map<string, [string, string]>();
  const list = (m: Map<string, number>, fmt: (k: string, n: number) => string): string =>
    [...m]
      .map(([k, n]) => fmt(k, n))
      .sort()
      .join(', ');
  if (r.resources.size)
    out.set('NamespaceContentRemaining', [
      'SomeResourcesRemain',
      `Some resources are remaining: ${list(r.resources, (k, n) => `${k} has ${n} resource instances`)}`,
    ]);
  if (r.finalizers.size)
    out.set('NamespaceFinalizersRemaining', [
      'SomeFinalizersRemain',
      `Some content in the namespace has finalizers remaining: ${list(r.finalizers, (k, n) => `${k} in ${n} resource instances`)}`,
    ]);
  return out;
}

/** The namespace's conditions after a pass (`prev`: the stored ones; `now`: a timestamp). */
export function namespaceConditions(
  prev: NamespaceCondition[],
  r: Remaining,
  now: string,
): NamespaceCondition[] {
  const failed = failures(r);
  const out = prev.filter((c) => !OK.some(([type]) => type === c.type));
  for (const [type, okReason, okMessage] of OK) {
    const f = failed.get(type);
    const status = f ? 'True' : 'False';
    const old = prev.find((c) => c.type === type);
    const lastTransitionTime = old && old.status === status ? old.lastTransitionTime : now;
    out.push({ type, status, lastTransitionTime, reason: f?.[0] ?? okReason, message: f?.[1] ?? okMessage });
  }
  return out;
}
