/**
 * The Deployment controller of the workload simulation: one ReplicaSet per pod template, named
 * `<deployment>-<pod-template-hash>`, labelled and selected by that hash, numbered by the
 * `deployment.kubernetes.io/revision` annotation (also on the Deployment); a changed template
 * makes (or, on `kubectl rollout undo`, finds and renumbers) the new ReplicaSet and scales the old
 * ones to 0; the Deployment's status and its Available/Progressing conditions follow the
 * ReplicaSets' status. Simplified against upstream: the old ReplicaSets go to 0 at once rather
 * than in maxSurge/maxUnavailable steps, and the progress deadline is not watched.
 * Upstream: pkg/controller/deployment/sync.go (getNewReplicaSet, scale, calculateStatus,
 * cleanupDeployment), pkg/controller/deployment/util/deployment_util.go (revision annotations,
 * conditions' reasons and messages, EqualIgnoreHash), pkg/controller/controller_utils.go
 * (ComputeHash), pkg/controller/deployment/rolling.go ("Scaled up replica set %s to %d from %d").
 */
import { deepEqual, timestamp } from '../api/objects.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { recordEvent } from './events.js';
import type { PodDeps } from './pods.js';
import {
  deploymentConditions,
  replicaSetOf,
  revisionOf,
  REVISION,
  REVISION_HISTORY,
  templateHash,
  type DeploymentSpec,
  type RSStatus,
} from './deployment-util.js';

const RS = 'apps/replicasets';
const WRITE = { fieldValidation: 'Ignore' as const, dryRun: false };
const COMPONENT = 'deployment-controller';

interface Pass {
  deps: PodDeps;
  depDef: ResourceDef;
  rsDef: ResourceDef;
  dep: KubeObject;
  now: Date;
}

function replicasOf(obj: KubeObject): number {
  const r = (obj.spec as { replicas?: number } | undefined)?.replicas;
  return typeof r === 'number' ? r : 1;
}

function specOf(dep: KubeObject): DeploymentSpec {
  return dep.spec ?? {};
}

/** The ReplicaSets the Deployment controls (its uid in their controller ownerReference). */
export function ownedReplicaSets(deps: PodDeps, dep: KubeObject): KubeObject[] {
  return deps.store
    .list(RS, dep.metadata.namespace)
    .filter((r) =>
      (r.metadata.ownerReferences ?? []).some((o) => o.uid === dep.metadata.uid && o.controller),
    );
}

function scaleEvent(p: Pass, rs: KubeObject, from: number | undefined, to: number): void {
  // a new ReplicaSet: "Scaled up replica set %s to %d" (sync.go getNewReplicaSet), else scaleReplicaSet's
  const message =
    from === undefined
      ? `Scaled up replica set ${rs.metadata.name} to ${to}`
      : `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata.name} to ${to} from ${from}`;
  recordEvent(p.deps, p.depDef, p.dep, { reason: 'ScalingReplicaSet', message, component: COMPONENT }, p.now);
}

/** Writes a ReplicaSet's new spec.replicas and annotations, if they differ. */
function updateReplicaSet(
  p: Pass,
  rs: KubeObject,
  replicas: number,
  annotations: Record<string, string>,
): KubeObject {
  const from = replicasOf(rs);
  const meta = { ...rs.metadata, annotations: { ...rs.metadata.annotations, ...annotations } };
  if (from === replicas && deepEqual(meta.annotations, rs.metadata.annotations ?? {})) return rs;
  const scope = { def: p.rsDef, namespace: rs.metadata.namespace, name: rs.metadata.name };
  const next = { ...rs, metadata: meta, spec: { ...(rs.spec as object), replicas } };
  const updated = p.deps.ops.update(scope, next, WRITE).object;
  if (from !== replicas) scaleEvent(p, updated, from, replicas);
  return updated;
}

/** The new ReplicaSet: the one whose template is the Deployment's, made when there is none. */
function newReplicaSet(p: Pass, owned: KubeObject[], maxOld: number): KubeObject | undefined {
  const spec = specOf(p.dep);
  const hash = templateHash(spec.template);
  const found =
    owned.find((r) => r.metadata.labels?.['pod-template-hash'] === hash) ??
    owned.find((r) => replicaSetOf(p.dep, r));
  const n = replicasOf(p.dep);
  if (found) {
    const rev = revisionOf(found);
    const renumber: Record<string, string> =
      rev <= maxOld
        ? { [REVISION]: String(maxOld + 1), ...(rev > 0 ? { [REVISION_HISTORY]: String(rev) } : {}) }
        : {};
    return updateReplicaSet(p, found, spec.paused ? replicasOf(found) : n, {
      ...renumber,
      ...copiedAnnotations(p.dep, n),
    });
  }
  if (spec.paused) return undefined;
  const body = replicaSetBody(p.dep, hash, maxOld + 1, n);
  try {
    const created = p.deps.ops.create(
      { def: p.rsDef, namespace: p.dep.metadata.namespace },
      body,
      WRITE,
    ).object;
    scaleEvent(p, created, undefined, n);
    return created;
  } catch {
    return undefined; // a hash collision (upstream: status.collisionCount) or the namespace is going
  }
}

const SKIPPED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  'deployment.kubernetes.io/desired-replicas',
  'deployment.kubernetes.io/max-replicas',
  'deprecated.deployment.rollback.to',
]);

/** The Deployment's annotations a ReplicaSet carries (copyDeploymentAnnotationsToReplicaSet), and the replica counts. */
function copiedAnnotations(dep: KubeObject, n: number): Record<string, string> {
  const own = Object.entries(dep.metadata.annotations ?? {}).filter(([k]) => !SKIPPED.has(k));
  const surge = n + Math.ceil((n * 25) / 100);
  return {
    ...Object.fromEntries(own),
    'deployment.kubernetes.io/desired-replicas': String(n),
    'deployment.kubernetes.io/max-replicas': String(surge),
  };
}

function replicaSetBody(dep: KubeObject, hash: string, revision: number, n: number): KubeObject {
  const spec = specOf(dep);
  const labels = { ...spec.template?.metadata?.labels, 'pod-template-hash': hash };
  const selector = spec.selector ?? {};
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${dep.metadata.name}-${hash}`,
      namespace: dep.metadata.namespace,
      labels,
      annotations: { ...copiedAnnotations(dep, n), [REVISION]: String(revision) },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: dep.metadata.name!,
          uid: dep.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: n,
      ...(spec.minReadySeconds ? { minReadySeconds: spec.minReadySeconds } : {}),
      selector: { ...selector, matchLabels: { ...selector.matchLabels, 'pod-template-hash': hash } },
      template: { ...spec.template, metadata: { ...spec.template?.metadata, labels } },
    },
  };
}

/** Old ReplicaSets scaled to 0, and the ones beyond revisionHistoryLimit deleted (cleanupDeployment). */
function retireOld(p: Pass, old: KubeObject[]): void {
  const scaled = old.map((rs) => updateReplicaSet(p, rs, 0, {}));
  const limit = specOf(p.dep).revisionHistoryLimit ?? 10;
  const idle = scaled
    .filter((rs) => replicasOf(rs) === 0 && ((rs.status as RSStatus | undefined)?.replicas ?? 0) === 0)
    .sort((a, b) => revisionOf(a) - revisionOf(b));
  for (const rs of idle.slice(0, Math.max(0, idle.length - limit)))
    p.deps.ops.delete(
      { def: p.rsDef, namespace: rs.metadata.namespace, name: rs.metadata.name },
      { dryRun: false },
    );
}

/**
 * The Deployment's revision annotation follows its new ReplicaSet's, written with UpdateStatus as
 * sync.go getNewReplicaSet does, so it does not raise the Deployment's generation.
 */
function setRevision(p: Pass, rs: KubeObject): KubeObject {
  const rev = rs.metadata.annotations?.[REVISION];
  if (!rev || p.dep.metadata.annotations?.[REVISION] === rev) return p.dep;
  const next = {
    ...p.dep,
    metadata: { ...p.dep.metadata, annotations: { ...p.dep.metadata.annotations, [REVISION]: rev } },
  };
  const scope = {
    def: p.depDef,
    namespace: p.dep.metadata.namespace,
    name: p.dep.metadata.name,
    subresource: 'status' as const,
  };
  return p.deps.ops.update(scope, next, WRITE).object;
}

/** The counts of calculateStatus, summed over the Deployment's ReplicaSets as stored now. */
function replicaCounts(
  p: Pass,
  newRS: KubeObject | undefined,
  all: KubeObject[],
): { replicas: number; updatedReplicas: number; readyReplicas: number; availableReplicas: number } {
  const statusOf = (rs: KubeObject): RSStatus =>
    p.deps.store.get(RS, rs.metadata.namespace, rs.metadata.name!)?.status ?? {};
  const statuses = all.map(statusOf);
  const sum = (f: (s: RSStatus) => number | undefined): number =>
    statuses.reduce((a, s) => a + (f(s) ?? 0), 0);
  return {
    replicas: sum((s) => s.replicas),
    updatedReplicas: newRS ? (statusOf(newRS).replicas ?? 0) : 0,
    readyReplicas: sum((s) => s.readyReplicas),
    availableReplicas: sum((s) => s.availableReplicas),
  };
}

function writeStatus(
  p: Pass,
  dep: KubeObject,
  newRS: KubeObject | undefined,
  all: KubeObject[],
  created: boolean,
): void {
  const n = replicasOf(dep);
  const counts = replicaCounts(p, newRS, all);
  const prev = (dep.status ?? {}) as { conditions?: Record<string, unknown>[] };
  const conditions = deploymentConditions(specOf(dep), n, counts, {
    rsName: newRS?.metadata.name,
    created,
    previous: prev.conditions ?? [],
    now: timestamp(p.now),
  });
  const status: Record<string, unknown> = {
    observedGeneration: dep.metadata.generation,
    ...counts,
    conditions,
  };
  if (n - counts.availableReplicas > 0) status.unavailableReplicas = n - counts.availableReplicas;
  for (const k of ['readyReplicas', 'availableReplicas', 'updatedReplicas'] as const)
    if (!status[k]) delete status[k];
  if (deepEqual(status, dep.status)) return;
  const scope = {
    def: p.depDef,
    namespace: dep.metadata.namespace,
    name: dep.metadata.name,
    subresource: 'status' as const,
  };
  p.deps.ops.update(scope, { ...dep, status }, WRITE);
}

/** One pass of the Deployment controller over one Deployment. */
export function syncDeployment(deps: PodDeps, depDef: ResourceDef, dep: KubeObject, now: Date): void {
  const rsDef = deps.defOf(RS);
  if (!rsDef) return;
  const p: Pass = { deps, depDef, rsDef, dep, now };
  const owned = ownedReplicaSets(deps, dep);
  const hash = templateHash(specOf(dep).template);
  const isNew = (r: KubeObject): boolean =>
    r.metadata.labels?.['pod-template-hash'] === hash || replicaSetOf(dep, r);
  const maxOld = Math.max(0, ...owned.filter((r) => !isNew(r)).map(revisionOf));
  const newRS = newReplicaSet(p, owned, maxOld);
  const created = newRS !== undefined && !owned.some((r) => r.metadata.uid === newRS.metadata.uid);
  const old = owned.filter((r) => r.metadata.uid !== newRS?.metadata.uid);
  if (newRS) retireOld(p, old);
  const current = newRS ? setRevision(p, newRS) : dep;
  writeStatus(p, current, newRS, newRS ? [newRS, ...old] : old, created);
}
