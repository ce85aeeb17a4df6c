/**
 * Workload simulation, as kwok does it: with no kubelet and no controllers, a Deployment's or
 * StatefulSet's status follows its spec after a short delay (replicas, readyReplicas,
 * availableReplicas, updatedReplicas, observedGeneration, conditions). Pods are made only when
 * asked (`createPods`): Running and Ready, owned by their workload, named as their controllers
 * name them.
 *
 * An object annotated `landscape.dev/simulate: "false"` is left alone: no status write, no
 * Pods, a pending pass dropped; its status is whatever someone sets with `kubectl patch
 * --subresource=status` (a test that sets a status by hand marks its object so, or the
 * simulation would overwrite the status it set). Removing the annotation hands the object back.
 * kwok selects what it simulates the same way (its Stage selectors match annotations:
 * kwok pkg/apis/v1alpha1 stage_types.go, StageSelector.MatchAnnotations).
 */
import { randomBytes } from 'node:crypto';
import type { Operations } from '../registry/operations.js';
import { timestamp } from '../api/objects.js';
import type { Store, StoreEvent } from '../storage/store.js';
import type { KubeObject, ResourceDef } from '../api/types.js';

export interface WorkloadSimulation {
  /** How long after a spec change the status follows (default 200 ms). */
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

const WORKLOADS = ['apps/deployments', 'apps/statefulsets'] as const;
const PODS = '/pods';
const WRITE = { fieldValidation: 'Ignore' as const, dryRun: false };

type Status = Record<string, unknown>;

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

function condition(type: string, reason: string, message: string, now: string): Record<string, string> {
  return { type, status: 'True', reason, message, lastUpdateTime: now, lastTransitionTime: now };
}

/** The status a healthy controller would report for the workload's current spec. */
export function simulatedStatus(kind: string, obj: KubeObject, now: Date): Status {
  const n = desired(obj);
  const base: Status = {
    observedGeneration: obj.metadata.generation,
    replicas: n,
    readyReplicas: n,
    availableReplicas: n,
    updatedReplicas: n,
  };
  if (kind === 'StatefulSet') return { ...base, currentReplicas: n, collisionCount: 0 };
  const t = timestamp(now);
  const name = obj.metadata.name!;
  return {
    ...base,
    conditions: [
      condition('Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', t),
      condition(
        'Progressing',
        'NewReplicaSetAvailable',
        `ReplicaSet "${name}" has successfully progressed.`,
        t,
      ),
    ],
  };
}

function settled(obj: KubeObject): boolean {
  const s = (obj.status ?? {}) as { observedGeneration?: number; readyReplicas?: number; replicas?: number };
  const n = desired(obj);
  return (
    s.observedGeneration === obj.metadata.generation &&
    (s.readyReplicas ?? 0) === n &&
    (s.replicas ?? 0) === n
  );
}

export function startWorkloadSimulation(deps: Deps, sim: WorkloadSimulation): () => void {
  const timers = new Map<string, NodeJS.Timeout>();
  const now = deps.now ?? (() => new Date());
  const schedule = (resource: string, obj: KubeObject): void => {
    const key = `${resource}/${obj.metadata.namespace}/${obj.metadata.name}`;
    clearTimeout(timers.get(key));
    const timer = setTimeout(() => {
      timers.delete(key);
      reconcile(deps, sim, resource, obj.metadata.namespace!, obj.metadata.name!, now());
    }, sim.delayMs ?? 200);
    timer.unref();
    timers.set(key, timer);
  };
  const consider = (resource: string, obj: KubeObject): void => {
    if (!simulated(obj)) {
      const key = `${resource}/${obj.metadata.namespace}/${obj.metadata.name}`;
      clearTimeout(timers.get(key));
      timers.delete(key);
      return;
    }
    if (!settled(obj) && !obj.metadata.deletionTimestamp) schedule(resource, obj);
  };
  const unsubscribe = deps.store.subscribeAll((e: StoreEvent) => {
    if ((WORKLOADS as readonly string[]).includes(e.resource) && e.type !== 'DELETED')
      consider(e.resource, e.object);
  });
  // restored workloads whose status had not caught up yet
  for (const resource of WORKLOADS) for (const obj of deps.store.list(resource)) consider(resource, obj);
  return () => {
    unsubscribe();
    for (const t of timers.values()) clearTimeout(t);
  };
}

function reconcile(
  deps: Deps,
  sim: WorkloadSimulation,
  resource: string,
  namespace: string,
  name: string,
  now: Date,
): void {
  const def = deps.defOf(resource);
  const obj = deps.store.get(resource, namespace, name);
  if (!def || !obj || obj.metadata.deletionTimestamp || !simulated(obj)) return;
  try {
    if (sim.createPods) syncPods(deps, def, obj, now);
    deps.ops.update(
      { def, namespace, name, subresource: 'status' },
      { ...obj, status: simulatedStatus(def.kind, obj, now) },
      WRITE,
    );
  } catch {
    // a concurrent write won; its event schedules another pass
  }
}

function podNames(def: ResourceDef, obj: KubeObject, existing: string[]): string[] {
  const n = desired(obj);
  const name = obj.metadata.name!;
  if (def.kind === 'StatefulSet') return Array.from({ length: n }, (_, i) => `${name}-${i}`);
  const keep = existing.slice(0, n);
  while (keep.length < n)
    keep.push(
      `${name}-${randomBytes(5).toString('hex').slice(0, 10)}-${randomBytes(3).toString('hex').slice(0, 5)}`,
    );
  return keep;
}

/** Pods of a workload: as many as its replicas, Running and Ready, the surplus deleted. */
function syncPods(deps: Deps, def: ResourceDef, obj: KubeObject, now: Date): void {
  const podDef = deps.defOf(PODS)!;
  const uid = obj.metadata.uid!;
  const namespace = obj.metadata.namespace!;
  const mine = deps.store
    .list(PODS, namespace)
    .filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.uid === uid));
  const want = podNames(
    def,
    obj,
    mine.map((p) => p.metadata.name!),
  );
  for (const pod of mine)
    if (!want.includes(pod.metadata.name!))
      deps.ops.delete({ def: podDef, namespace, name: pod.metadata.name }, { dryRun: false });
  const have = new Set(mine.map((p) => p.metadata.name));
  for (const name of want.filter((n) => !have.has(n))) createPod(deps, podDef, def, obj, name, now);
}

function createPod(
  deps: Deps,
  podDef: ResourceDef,
  def: ResourceDef,
  owner: KubeObject,
  name: string,
  now: Date,
): void {
  const template =
    (owner.spec as { template?: { metadata?: { labels?: Record<string, string> }; spec?: object } })
      .template ?? {};
  const namespace = owner.metadata.namespace!;
  const ownerReferences = [
    {
      apiVersion: `${def.group}/${def.version}`,
      kind: def.kind,
      name: owner.metadata.name!,
      uid: owner.metadata.uid!,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: template.metadata?.labels, ownerReferences },
    spec: { nodeName: 'kwok-node', ...(template.spec ?? {}) },
  };
  const created = deps.ops.create({ def: podDef, namespace }, pod, WRITE).object;
  const t = timestamp(now);
  const containers = (
    (created.spec as { containers?: { name: string; image?: string }[] }).containers ?? []
  ).map((c) => ({
    name: c.name,
    image: c.image,
    ready: true,
    started: true,
    restartCount: 0,
    state: { running: { startedAt: t } },
  }));
  const status = {
    phase: 'Running',
    podIP: `10.244.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0] % 254)}`,
    startTime: t,
    conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({
      type,
      status: 'True',
      lastTransitionTime: t,
    })),
    containerStatuses: containers,
  };
  deps.ops.update({ def: podDef, namespace, name, subresource: 'status' }, { ...created, status }, WRITE);
}
