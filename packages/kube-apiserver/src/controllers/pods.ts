/**
 * The Pods of a simulated ReplicaSet or StatefulSet, as their controller, the scheduler and a
 * kubelet would make them, with kwok's shortcut for the kubelet (no container runs): a missing
 * replica is created Pending and scheduled to `kwok-node` at once (events SuccessfulCreate,
 * Scheduled), and on a later pass it becomes Running and Ready (event Started) — in batches that
 * double, as the ReplicaSet controller's slowStartBatch does; a surplus replica is deleted.
 * Upstream: pkg/controller/replicaset/replica_set.go (manageReplicas, "Created pod: %v",
 * "Deleted pod: %v"), pkg/controller/statefulset/stateful_pod_control.go ("create Pod %s in
 * StatefulSet %s successful"), pkg/scheduler/schedule_one.go ("Successfully assigned %v/%v to
 * %v"), pkg/kubelet/events/event.go ("Started container %v").
 */
import { generateName, timestamp } from '../api/objects.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import type { Operations } from '../registry/operations.js';
import type { Store } from '../storage/store.js';
import { recordEvent } from './events.js';

export interface PodDeps {
  store: Store;
  ops: Operations;
  defOf: (resource: string) => ResourceDef | undefined;
}

/** The node every simulated pod is scheduled to. */
export const NODE = 'kwok-node';
const PODS = '/pods';
const WRITE = { fieldValidation: 'Ignore' as const, dryRun: false };

interface Container {
  name: string;
  image?: string;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
}

export interface ReplicaCounts {
  replicas: number;
  ready: number;
}

function containersOf(pod: KubeObject): Container[] {
  return (pod.spec as { containers?: Container[] } | undefined)?.containers ?? [];
}

export function podReady(pod: KubeObject): boolean {
  const conditions = (pod.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return (conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** v1qos.GetPodQOS, reduced: no requests or limits BestEffort, equal requests and limits Guaranteed. */
export function qosClass(pod: KubeObject): string {
  const cs = containersOf(pod);
  const any = cs.some((c) => Object.keys({ ...c.resources?.requests, ...c.resources?.limits }).length > 0);
  if (!any) return 'BestEffort';
  const guaranteed = cs.every((c) => {
    const limits = c.resources?.limits ?? {};
    const requests = { ...limits, ...c.resources?.requests };
    return ['cpu', 'memory'].every(
      (r) => limits[r] !== undefined && JSON.stringify(limits[r]) === JSON.stringify(requests[r]),
    );
  });
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function controllerComponent(owner: ResourceDef): string {
  return `${owner.kind.toLowerCase()}-controller`;
}

function createdMessage(ownerDef: ResourceDef, owner: KubeObject, pod: string): string {
  return ownerDef.kind === 'StatefulSet'
    ? `create Pod ${pod} in StatefulSet ${owner.metadata.name} successful`
    : `Created pod: ${pod}`;
}

/** The Pods controlled by `owner` (its uid in a controller ownerReference). */
export function ownedPods(deps: PodDeps, owner: KubeObject): KubeObject[] {
  const uid = owner.metadata.uid;
  return deps.store
    .list(PODS, owner.metadata.namespace)
    .filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.controller));
}

function condition(type: string, t: string): Record<string, unknown> {
  return { type, status: 'True', lastProbeTime: null, lastTransitionTime: t };
}

/** A new replica, Pending and scheduled. */
function createPod(deps: PodDeps, ownerDef: ResourceDef, owner: KubeObject, name: string, now: Date): void {
  const podDef = deps.defOf(PODS)!;
  const template =
    (owner.spec as { template?: { metadata?: KubeObject['metadata']; spec?: object } }).template ?? {};
  const namespace = owner.metadata.namespace!;
  const ownerReferences = [
    {
      apiVersion: `${ownerDef.group}/${ownerDef.version}`,
      kind: ownerDef.kind,
      name: owner.metadata.name!,
      uid: owner.metadata.uid!,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  const labels = template.metadata?.labels;
  const body = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, ...(labels ? { labels } : {}), ownerReferences },
    spec: { ...(template.spec ?? {}), nodeName: NODE },
  };
  const created = deps.ops.create({ def: podDef, namespace }, body, WRITE).object;
  const component = controllerComponent(ownerDef);
  recordEvent(
    deps,
    ownerDef,
    owner,
    { reason: 'SuccessfulCreate', message: createdMessage(ownerDef, owner, name), component },
    now,
  );
  const t = timestamp(now);
  const status = {
    phase: 'Pending',
    conditions: [condition('PodScheduled', t)],
    qosClass: qosClass(created),
  };
  const pending = deps.ops.update(
    { def: podDef, namespace, name, subresource: 'status' },
    { ...created, status },
    WRITE,
  ).object;
  const message = `Successfully assigned ${namespace}/${name} to ${NODE}`;
  recordEvent(deps, podDef, pending, { reason: 'Scheduled', message, component: 'default-scheduler' }, now);
}

/** A Pending replica becomes Running and Ready: every container started. */
function startPod(deps: PodDeps, pod: KubeObject, now: Date): void {
  const podDef = deps.defOf(PODS)!;
  const t = timestamp(now);
  const containers = containersOf(pod);
  const octet = (): number => 1 + Math.floor(Math.random() * 254);
  const status = {
    phase: 'Running',
    hostIP: '10.0.0.1',
    podIP: `10.244.${octet()}.${octet()}`,
    startTime: t,
    qosClass: qosClass(pod),
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(
      (type) => condition(type, t),
    ),
    containerStatuses: containers.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: t } },
    })),
  };
  const scope = {
    def: podDef,
    namespace: pod.metadata.namespace,
    name: pod.metadata.name,
    subresource: 'status' as const,
  };
  const running = deps.ops.update(scope, { ...pod, status }, WRITE).object;
  for (const c of containers)
    recordEvent(
      deps,
      podDef,
      running,
      {
        reason: 'Started',
        message: `Started container ${c.name}`,
        component: 'kubelet',
        host: NODE,
        fieldPath: `spec.containers{${c.name}}`,
      },
      now,
    );
}

/** Names of the replicas to keep: the ordinals of a StatefulSet, else the ready pods first, then new names. */
function wantedNames(ownerDef: ResourceDef, owner: KubeObject, n: number, mine: KubeObject[]): string[] {
  const name = owner.metadata.name!;
  if (ownerDef.kind === 'StatefulSet') return Array.from({ length: n }, (_, i) => `${name}-${i}`);
  const ranked = [...mine.filter(podReady), ...mine.filter((p) => !podReady(p))];
  const keep = ranked.slice(0, n).map((p) => p.metadata.name!);
  while (keep.length < n) keep.push(generateName(`${name}-`));
  return keep;
}

/**
 * One pass over the replicas of `owner`: surplus deleted, Pending ones started (a batch as large
 * as the ready ones, at least one), missing ones created Pending. Returns the counts after it.
 */
export function syncPods(
  deps: PodDeps,
  ownerDef: ResourceDef,
  owner: KubeObject,
  n: number,
  now: Date,
): ReplicaCounts {
  const podDef = deps.defOf(PODS)!;
  const namespace = owner.metadata.namespace!;
  const mine = ownedPods(deps, owner).filter((p) => !p.metadata.deletionTimestamp);
  const want = wantedNames(ownerDef, owner, n, mine);
  const kept = mine.filter((p) => want.includes(p.metadata.name!));
  for (const pod of mine.filter((p) => !want.includes(p.metadata.name!))) {
    deps.ops.delete({ def: podDef, namespace, name: pod.metadata.name }, { dryRun: false });
    const message = `Deleted pod: ${pod.metadata.name}`;
    recordEvent(
      deps,
      ownerDef,
      owner,
      { reason: 'SuccessfulDelete', message, component: controllerComponent(ownerDef) },
      now,
    );
  }
  let ready = kept.filter(podReady).length;
  const batch = Math.max(1, ready);
  for (const pod of kept.filter((p) => !podReady(p)).slice(0, batch)) {
    startPod(deps, pod, now);
    ready++;
  }
  const have = new Set(kept.map((p) => p.metadata.name));
  for (const name of want.filter((w) => !have.has(w))) createPod(deps, ownerDef, owner, name, now);
  return { replicas: want.length, ready };
}

/** The same pass without Pods: replicas appear at once, and get ready in doubling batches. */
export function stepCounts(
  prev: { replicas?: number; readyReplicas?: number } | undefined,
  n: number,
): ReplicaCounts {
  const ready = Math.min(prev?.readyReplicas ?? 0, n);
  if ((prev?.replicas ?? 0) < n) return { replicas: n, ready };
  return { replicas: n, ready: Math.min(n, ready + Math.max(1, ready)) };
}
