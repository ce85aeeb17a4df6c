/**
 * The Endpoints and EndpointSlice controllers of kube-controller-manager on a cluster's store
 * (k8s.io/kubernetes pkg/controller/endpoint, pkg/controller/endpointslice): a Service is synced
 * when it changes, when a pod it selects (before or after the change) changes, and when its
 * Endpoints or one of its slices is changed or deleted by someone else. Each sync compares with
 * what is stored and writes only the difference (./endpoints.ts, ./endpointslices.ts), so an idle
 * cluster stays idle. Services without a selector are not managed (their endpoints are written
 * by hand). Slices are owned by their Service (the garbage collector removes them with it); the
 * Endpoints object is deleted when its Service is (endpoints_controller.go: a Service not found).
 */
import type { Operations } from '../registry/operations.js';
import { subscribeResources, type Store, type StoreEvent } from '../storage/store.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { desiredEndpoints } from './endpoints.js';
import { ownSlice, planSlices, SERVICE_NAME_LABEL } from './endpointslices.js';
import { managed, selectedPods, selects } from './service-pods.js';

const SERVICES = '/services';
const PODS = '/pods';
const ENDPOINTS = '/endpoints';
const SLICES = 'discovery.k8s.io/endpointslices';
const WRITE = { fieldValidation: 'Ignore' as const, dryRun: false };

interface Deps {
  store: Store;
  ops: Operations;
  defOf: (resource: string) => ResourceDef | undefined;
}

/** The `namespace/name` keys of the Services to sync after an event. */
function affected(store: Store, e: StoreEvent): string[] {
  const { namespace, name, labels } = e.object.metadata;
  const key = (svc: string): string => `${namespace}/${svc}`;
  switch (e.resource) {
    case SERVICES:
      return [key(name!)];
    case ENDPOINTS:
      return e.type === 'DELETED' ? [key(name!)] : [];
    case SLICES:
      return e.type !== 'ADDED' && labels?.[SERVICE_NAME_LABEL] ? [key(labels[SERVICE_NAME_LABEL])] : [];
    case PODS:
      return store
        .list(SERVICES, namespace)
        .filter((svc) => selects(svc, labels) || selects(svc, e.previous?.metadata.labels))
        .map((svc) => key(svc.metadata.name!));
    default:
      return [];
  }
}

export function startServiceEndpoints(deps: Deps): () => void {
  const pending = new Set<string>();
  const flush = (): void => {
    const keys = [...pending];
    pending.clear();
    for (const key of keys) syncService(deps, key);
  };
  const unsubscribe = subscribeResources(deps.store, [SERVICES, ENDPOINTS, SLICES, PODS], (e) => {
    if (e.resource === SERVICES && e.type === 'DELETED') setImmediate(() => deleteEndpoints(deps, e.object));
    for (const key of affected(deps.store, e)) {
      if (pending.size === 0) setImmediate(flush);
      pending.add(key);
    }
  });
  // Services that exist already (restored from a data directory)
  for (const svc of deps.store.list(SERVICES)) pending.add(`${svc.metadata.namespace}/${svc.metadata.name}`);
  if (pending.size) setImmediate(flush);
  return unsubscribe;
}

/** A write that lost to a concurrent one, or to the namespace going away: the next event retries. */
function attempt(write: () => unknown): void {
  try {
    write();
  } catch {
    // see above
  }
}

/** The Service is gone: so is its Endpoints object (its slices go with it through the garbage collector). */
function deleteEndpoints(deps: Deps, svc: KubeObject): void {
  const { namespace, name } = svc.metadata;
  if (!deps.store.get(ENDPOINTS, namespace, name!)) return;
  attempt(() => deps.ops.delete({ def: deps.defOf(ENDPOINTS)!, namespace, name }, { dryRun: false }));
}

function syncService(deps: Deps, key: string): void {
  const [namespace, name] = key.split('/');
  const svc = deps.store.get(SERVICES, namespace, name);
  const epDef = deps.defOf(ENDPOINTS)!;
  const ep = deps.store.get(ENDPOINTS, namespace, name);
  if (!svc || svc.metadata.deletionTimestamp || !managed(svc)) return;
  const pods = selectedPods(svc, deps.store.list(PODS, namespace));
  const endpoints = desiredEndpoints(svc, pods, ep);
  if (endpoints)
    attempt(() =>
      ep
        ? deps.ops.update({ def: epDef, namespace, name }, endpoints, WRITE)
        : deps.ops.create({ def: epDef, namespace }, endpoints, WRITE),
    );
  syncSlices(deps, svc, pods);
}

function syncSlices(deps: Deps, svc: KubeObject, pods: KubeObject[]): void {
  const def = deps.defOf(SLICES)!;
  const namespace = svc.metadata.namespace!;
  const have = deps.store.list(SLICES, namespace).filter((s) => ownSlice(svc, s));
  const plan = planSlices(svc, pods, have);
  for (const slice of plan.update)
    attempt(() => deps.ops.update({ def, namespace, name: slice.metadata.name }, slice, WRITE));
  for (const slice of plan.create) attempt(() => deps.ops.create({ def, namespace }, slice, WRITE));
  for (const slice of plan.delete)
    attempt(() => deps.ops.delete({ def, namespace, name: slice.metadata.name }, { dryRun: false }));
}
