/**
 * Workload simulation, as kwok does it for the kubelet, with the controllers a control plane runs
 * for Deployments, ReplicaSets and StatefulSets: a short delay after a change, the Deployment
 * controller makes and scales ReplicaSets (./deployment.ts), the ReplicaSet and StatefulSet
 * controllers bring their replicas up in doubling batches (./pods.ts: Pods Pending, then Running
 * and Ready, when asked with `createPods`; without Pods only the counts in the status move), and
 * each status follows. Every pass records the Events its controller would (./events.ts).
 *
 * An object annotated `landscape.dev/simulate: "false"` is left alone: no status write, no
 * ReplicaSets or Pods, a pending pass dropped; its status is whatever someone sets with `kubectl
 * patch --subresource=status` (a test that sets a status by hand marks its object so, or the
 * simulation would overwrite the status it set). Removing the annotation hands the object back.
 * kwok selects what it simulates the same way (its Stage selectors match annotations:
 * kwok pkg/apis/v1alpha1 stage_types.go, StageSelector.MatchAnnotations).
 * Upstream: pkg/controller/replicaset/replica_set.go (calculateStatus),
 * pkg/controller/statefulset/stateful_set_control.go (updateStatus).
 */
import type { Operations } from '../registry/operations.js';
import { deepEqual } from '../api/objects.js';
import { subscribeResources, type Store, type StoreEvent } from '../storage/store.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { syncDeployment } from './deployment.js';
import { templateHash } from './deployment-util.js';
import { stepCounts, syncPods, type ReplicaCounts } from './pods.js';

export interface WorkloadSimulation {
  /** How long after a change a controller's pass follows (default 200 ms). */
  delayMs?: number;
  /** Also create (and delete) Pods for the replicas. */
  createPods?: boolean;
}

interface Deps {
  store: Store;
  ops: Operations;
  defOf: (resource: string) => ResourceDef | undefined;
  now?: () => Date;
}

const DEPLOYMENTS = 'apps/deployments';
const REPLICASETS = 'apps/replicasets';
const STATEFULSETS = 'apps/statefulsets';
const WORKLOADS = [DEPLOYMENTS, REPLICASETS, STATEFULSETS];
const WRITE = { fieldValidation: 'Ignore' as const, dryRun: false };

/** The annotation that turns the simulation off for one workload (value "false"). */
export const SIMULATE_ANNOTATION = 'landscape.dev/simulate';

/** Whether the simulation owns the workload's status (not annotated `landscape.dev/simulate: "false"`). */
export function simulated(obj: KubeObject): boolean {
  return obj.metadata.annotations?.[SIMULATE_ANNOTATION] !== 'false';
}

function desired(obj: KubeObject): number {
  const replicas = (obj.spec as { replicas?: number } | undefined)?.replicas;
  return typeof replicas === 'number' ? replicas : 1;
}

/** The status a ReplicaSet or StatefulSet controller reports for these counts (zero counts omitted, as Go's omitempty). */
export function replicaStatus(def: ResourceDef, obj: KubeObject, c: ReplicaCounts): Record<string, unknown> {
  const status: Record<string, unknown> = {
    replicas: c.replicas,
    observedGeneration: obj.metadata.generation,
  };
  const more: Record<string, number> =
    def.kind === 'StatefulSet'
      ? {
          readyReplicas: c.ready,
          currentReplicas: c.replicas,
          updatedReplicas: c.replicas,
          availableReplicas: c.ready,
        }
      : { fullyLabeledReplicas: c.replicas, readyReplicas: c.ready, availableReplicas: c.ready };
  for (const [k, v] of Object.entries(more)) if (v) status[k] = v;
  if (def.kind === 'StatefulSet') {
    const revision = `${obj.metadata.name}-${templateHash((obj.spec as { template?: object }).template)}`;
    Object.assign(status, { currentRevision: revision, updateRevision: revision, collisionCount: 0 });
  }
  return status;
}

/** One pass of the ReplicaSet or StatefulSet controller; whether its replicas are all ready. */
function syncReplicas(
  deps: Deps,
  sim: WorkloadSimulation,
  def: ResourceDef,
  obj: KubeObject,
  now: Date,
): boolean {
  const n = desired(obj);
  const counts = sim.createPods
    ? syncPods(deps, def, obj, n, now)
    : stepCounts(obj.status as { replicas?: number; readyReplicas?: number } | undefined, n);
  const status = replicaStatus(def, obj, counts);
  if (!deepEqual(status, obj.status)) {
    const scope = {
      def,
      namespace: obj.metadata.namespace,
      name: obj.metadata.name,
      subresource: 'status' as const,
    };
    deps.ops.update(scope, { ...obj, status }, WRITE);
  }
  return counts.ready === n && counts.replicas === n;
}

/** The Deployment that controls a ReplicaSet, if one does. */
function controllerKey(obj: KubeObject): string | undefined {
  const ref = (obj.metadata.ownerReferences ?? []).find((r) => r.controller && r.kind === 'Deployment');
  return ref ? `${DEPLOYMENTS}/${obj.metadata.namespace}/${ref.name}` : undefined;
}

export function startWorkloadSimulation(deps: Deps, sim: WorkloadSimulation): () => void {
  const timers = new Map<string, NodeJS.Timeout>();
  const now = deps.now ?? (() => new Date());
  const schedule = (key: string): void => {
    clearTimeout(timers.get(key));
    const timer = setTimeout(() => {
      timers.delete(key);
      if (!reconcile(deps, sim, key, now())) schedule(key);
    }, sim.delayMs ?? 200);
    timer.unref();
    timers.set(key, timer);
  };
  const consider = (e: Pick<StoreEvent, 'resource' | 'object' | 'type'>): void => {
    const obj = e.object;
    const key = `${e.resource}/${obj.metadata.namespace}/${obj.metadata.name}`;
    const owner = e.resource === REPLICASETS ? controllerKey(obj) : undefined;
    if (owner) schedule(owner);
    if (e.type === 'DELETED' || !simulated(obj) || obj.metadata.deletionTimestamp) {
      clearTimeout(timers.get(key));
      timers.delete(key);
      return;
    }
    schedule(key);
  };
  const unsubscribe = subscribeResources(deps.store, WORKLOADS, consider);
  // restored workloads whose status had not caught up yet
  for (const resource of WORKLOADS)
    for (const object of deps.store.list(resource)) consider({ resource, object, type: 'ADDED' });
  return () => {
    unsubscribe();
    for (const t of timers.values()) clearTimeout(t);
  };
}

/** One pass over the object behind `key`; false when it must look again (replicas not yet ready). */
function reconcile(deps: Deps, sim: WorkloadSimulation, key: string, now: Date): boolean {
  const [group, plural, namespace, name] = key.split('/');
  const resource = `${group}/${plural}`;
  const def = deps.defOf(resource);
  const obj = deps.store.get(resource, namespace, name);
  if (!def || !obj || obj.metadata.deletionTimestamp || !simulated(obj)) return true;
  try {
    if (resource === DEPLOYMENTS) {
      syncDeployment(deps, def, obj, now);
      return true;
    }
    return syncReplicas(deps, sim, def, obj, now);
  } catch {
    return true; // a concurrent write won; its event schedules another pass
  }
}
