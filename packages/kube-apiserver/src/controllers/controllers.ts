/**
 * The in-process controllers a real control plane runs that the API semantics depend on:
 * CRD establishment (a created CRD is served at once; a deleted one first removes its objects)
 * and namespace termination (a deleted namespace deletes everything in it, then goes; while
 * something is left, its status carries the namespace controller's conditions: ./namespace-conditions.ts).
 */
import { NAMESPACE_FINALIZER, type Operations } from '../registry/operations.js';
import { crdToDefs, resourceKey, type Registry } from '../registry/kinds.js';
import type { Store, StoreEvent } from '../storage/store.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { deepEqual, timestamp } from '../api/objects.js';
import {
  countRemaining,
  emptyRemaining,
  namespaceConditions,
  type NamespaceCondition,
  type Remaining,
} from './namespace-conditions.js';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
const CRD_RESOURCE = 'apiextensions.k8s.io/customresourcedefinitions';
const NS_RESOURCE = '/namespaces';

interface Deps {
  store: Store;
  registry: Registry;
  ops: Operations;
  defOf: (resource: string) => ResourceDef | undefined;
}

function crdStatus(crd: KubeObject, now: Date): Record<string, unknown> {
  const spec = crd.spec as {
    names: Record<string, unknown>;
    versions: { name: string; storage?: boolean }[];
  };
  const t = timestamp(now);
  const prev =
    (crd.status as { conditions?: { type: string; lastTransitionTime: string }[] } | undefined)?.conditions ??
    [];
  const since = (type: string): string => prev.find((c) => c.type === type)?.lastTransitionTime ?? t;
  return {
    acceptedNames: spec.names,
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        reason: 'NoConflicts',
        message: 'no conflicts found',
        lastTransitionTime: since('NamesAccepted'),
      },
      {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
        lastTransitionTime: since('Established'),
      },
    ],
    storedVersions: spec.versions.filter((v) => v.storage).map((v) => v.name),
  };
}

/** Wires the controllers to a cluster's store; returns a function that stops them. */
export function startControllers(deps: Deps): () => void {
  const pending = new Set<string>();
  let scheduled = false;
  const later = (key: string): void => {
    pending.add(key);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const keys = [...pending];
      pending.clear();
      for (const k of keys) reconcile(deps, k);
    });
  };
  const onEvent = (e: StoreEvent): void => {
    if (e.resource === CRD_RESOURCE) syncCrdDefs(deps, e);
    for (const key of affected(deps.store, e)) later(key);
  };
  const unsubscribe = deps.store.subscribeAll(onEvent);
  // list, then watch: what the store held before the controllers started (restored from a data
  // directory) is handled as if just ADDED — CRDs are served again, deletions in progress go on
  for (const resource of [CRD_RESOURCE, NS_RESOURCE])
    for (const object of deps.store.list(resource))
      onEvent({ rv: Number(object.metadata.resourceVersion), type: 'ADDED', resource, object });
  return unsubscribe;
}

/** The CRDs and namespaces whose controller must look again after an event. */
function affected(store: Store, e: StoreEvent): string[] {
  const name = e.object.metadata.name!;
  if (e.resource === CRD_RESOURCE) return [`crd:${name}`];
  if (e.resource === NS_RESOURCE)
    return e.object.metadata.deletionTimestamp && e.type !== 'DELETED' ? [`ns:${name}`] : [];
  if (e.type !== 'DELETED') return [];
  const keys = store
    .list(CRD_RESOURCE)
    .filter((c) => c.metadata.deletionTimestamp)
    .map((c) => `crd:${c.metadata.name}`);
  const ns = e.object.metadata.namespace
    ? store.get(NS_RESOURCE, undefined, e.object.metadata.namespace)
    : undefined;
  if (ns?.metadata.deletionTimestamp) keys.push(`ns:${ns.metadata.name}`);
  return keys;
}

/** Serves or stops serving a CRD's kinds, synchronously with the write that changed it. */
function syncCrdDefs(deps: Deps, e: StoreEvent): void {
  const name = e.object.metadata.name!;
  if (e.type === 'DELETED') {
    for (const def of deps.registry.removeOwner(name)) deps.store.dropResource(resourceKey(def));
    return;
  }
  if (e.previous && deepEqual(e.previous.spec, e.object.spec) && deps.registry.ownedBy(name).length) return;
  deps.registry.removeOwner(name);
  for (const def of crdToDefs(e.object)) deps.registry.add(def, name);
}

function reconcile(deps: Deps, key: string): void {
  const [kind, name] = key.split(':');
  try {
    if (kind === 'crd') reconcileCrd(deps, name);
    else reconcileNamespace(deps, name);
  } catch {
    // A conflicting concurrent write: the next event of the object retries.
  }
}

const INTERNAL_WRITE = { fieldValidation: 'Ignore' as const, dryRun: false };

/** A deleted CRD first deletes its objects (waiting for their finalizers), then lets go. */
function finishCrdDeletion(deps: Deps, crd: KubeObject): void {
  const def = deps.registry.ownedBy(crd.metadata.name!)[0];
  if (def) {
    const resource = resourceKey(def);
    for (const obj of deps.store.list(resource)) {
      if (!obj.metadata.deletionTimestamp)
        deps.ops.delete(
          { def, namespace: obj.metadata.namespace, name: obj.metadata.name },
          { dryRun: false },
        );
    }
    if (deps.store.count(resource) > 0) return;
  }
  const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
  deps.ops.update(
    { def: deps.defOf(CRD_RESOURCE)!, name: crd.metadata.name },
    { ...crd, metadata: { ...crd.metadata, finalizers } },
    INTERNAL_WRITE,
  );
}

function reconcileCrd(deps: Deps, name: string): void {
  const crd = deps.store.get(CRD_RESOURCE, undefined, name);
  if (!crd) return;
  if (crd.metadata.deletionTimestamp) return finishCrdDeletion(deps, crd);
  const scope = { def: deps.defOf(CRD_RESOURCE)!, name };
  const opts = INTERNAL_WRITE;
  if (!(crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) {
    deps.ops.update(
      scope,
      {
        ...crd,
        metadata: {
          ...crd.metadata,
          finalizers: [...(crd.metadata.finalizers ?? []), CRD_CLEANUP_FINALIZER],
        },
      },
      opts,
    );
    return;
  }
  const status = crdStatus(crd, new Date());
  if (!deepEqual(status, crd.status))
    deps.ops.update({ ...scope, subresource: 'status' }, { ...crd, status }, opts);
}

function reconcileNamespace(deps: Deps, name: string): void {
  const ns = deps.store.get(NS_RESOURCE, undefined, name);
  if (!ns?.metadata.deletionTimestamp) return;
  const remaining = emptyRemaining();
  const byResource = new Map(
    deps.registry
      .all()
      .filter((d) => d.namespaced)
      .map((d) => [resourceKey(d), d]),
  );
  for (const [resource, def] of byResource) {
    for (const obj of deps.store.list(resource, name)) {
      if (!obj.metadata.deletionTimestamp)
        deps.ops.delete({ def, namespace: name, name: obj.metadata.name }, { dryRun: false });
    }
    for (const obj of deps.store.list(resource, name))
      countRemaining(remaining, `${def.plural}.${def.group}`, obj);
  }
  const nsDef = deps.defOf(NS_RESOURCE)!;
  if (remaining.resources.size > 0) return setNamespaceConditions(deps, nsDef, ns, remaining);
  const spec = (ns.spec ?? {}) as { finalizers?: string[] };
  const finalizers = (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
  deps.ops.update(
    { def: nsDef, name },
    { ...ns, spec: { ...spec, finalizers } },
    { fieldValidation: 'Ignore', dryRun: false },
  );
}

/** The deletion conditions of a namespace whose content is not gone yet (written when they change). */
function setNamespaceConditions(deps: Deps, def: ResourceDef, ns: KubeObject, remaining: Remaining): void {
  const status = (ns.status ?? {}) as { conditions?: NamespaceCondition[] };
  const conditions = namespaceConditions(status.conditions ?? [], remaining, timestamp(new Date()));
  if (deepEqual(conditions, status.conditions)) return;
  deps.ops.update(
    { def, name: ns.metadata.name, subresource: 'status' },
    { ...ns, status: { ...status, conditions } },
    INTERNAL_WRITE,
  );
}
