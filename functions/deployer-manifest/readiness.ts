/**
 * The default readiness checks (pure), upstream's readinesscheck package:
 * - Deployment, StatefulSet: the controller saw the current generation, and updatedReplicas and
 *   availableReplicas reach spec.replicas (default 1).
 * - ReplicaSet, ReplicationController: current generation seen, no ReplicaFailure condition
 *   other than False, readyReplicas reach spec.replicas.
 * - DaemonSet: current generation seen, currentNumberScheduled reaches desiredNumberScheduled
 *   minus the rolling update's maxUnavailable (rounded down, for RollingUpdate only).
 * - Pod: condition Ready is True, or its reason is PodCompleted.
 * The manifest deployer checks with "fail on missing object": every managed object must exist;
 * kinds other than those above need nothing more.
 */
import { groupOf } from './objects.js';
import { describeRef, type ResourceRef } from './provider-status.js';
import { isRecord, type JsonObject } from '@landscape/apimachinery';

const RELEVANT = new Set([
  '/Pod',
  '/ReplicationController',
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/ReplicaSet',
  'apps/DaemonSet',
]);

export function isRelevantForDefaultReadiness(apiVersion: string, kind: string): boolean {
  return RELEVANT.has(`${groupOf(apiVersion)}/${kind}`);
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' ? value : fallback;
}

function section(obj: JsonObject, key: 'spec' | 'status'): JsonObject {
  const v = obj[key];
  return isRecord(v) ? v : {};
}

function conditions(status: JsonObject): Condition[] {
  return Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
}

function outdatedGeneration(obj: JsonObject): string | undefined {
  const generation = num(isRecord(obj.metadata) ? obj.metadata.generation : undefined);
  const observed = num(section(obj, 'status').observedGeneration);
  return observed < generation ? `observed generation outdated (${observed}/${generation})` : undefined;
}

function notEnough(current: number, expected: number): string {
  return `not enough ready replicas (${current}/${expected})`;
}

function conditionState(c: Condition, expected: string): string | undefined {
  if (c.status === expected) return undefined;
  return `condition "${c.type}" has invalid status ${c.status} (expected ${expected}) due to ${c.reason ?? ''}: ${c.message ?? ''}`;
}

function checkDeploymentLike(obj: JsonObject): string | undefined {
  const replicas = num(section(obj, 'spec').replicas, 1);
  const status = section(obj, 'status');
  if (num(status.updatedReplicas) < replicas || num(status.availableReplicas) < replicas)
    return notEnough(num(status.availableReplicas), replicas);
  return undefined;
}

function checkReplicaSetLike(obj: JsonObject): string | undefined {
  const status = section(obj, 'status');
  const failure = conditions(status).find((c) => c.type === 'ReplicaFailure');
  const bad = failure ? conditionState(failure, 'False') : undefined;
  if (bad) return bad;
  const replicas = num(section(obj, 'spec').replicas, 1);
  return num(status.readyReplicas) < replicas ? notEnough(num(status.readyReplicas), replicas) : undefined;
}

/** intstr.GetValueFromIntOrPercent(value, total, roundUp=false); 0 for anything unreadable. */
export function intOrPercent(value: unknown, total: number): number {
  if (typeof value === 'number') return value;
  const m = typeof value === 'string' ? /^(\d+)%$/.exec(value) : null;
  return m ? Math.floor((Number(m[1]) * total) / 100) : 0;
}

function daemonSetMaxUnavailable(obj: JsonObject): number {
  const desired = num(section(obj, 'status').desiredNumberScheduled);
  const strategy = section(obj, 'spec').updateStrategy;
  if (desired === 0 || !isRecord(strategy) || strategy.type !== 'RollingUpdate') return 0;
  const rolling = strategy.rollingUpdate;
  return isRecord(rolling) ? intOrPercent(rolling.maxUnavailable, desired) : 0;
}

function checkDaemonSet(obj: JsonObject): string | undefined {
  const status = section(obj, 'status');
  const required = num(status.desiredNumberScheduled) - daemonSetMaxUnavailable(obj);
  const current = num(status.currentNumberScheduled);
  return current < required ? notEnough(current, required) : undefined;
}

function checkPod(obj: JsonObject): string | undefined {
  const ready = conditions(section(obj, 'status')).find((c) => c.type === 'Ready');
  if (!ready) return 'condition "Ready" is missing';
  if (ready.reason === 'PodCompleted') return undefined;
  return conditionState(ready, 'True');
}

const CHECKS: Readonly<Record<string, (obj: JsonObject) => string | undefined>> = {
  '/Pod': checkPod,
  '/ReplicationController': checkReplicaSetLike,
  'apps/Deployment': checkDeploymentLike,
  'apps/StatefulSet': checkDeploymentLike,
  'apps/ReplicaSet': checkReplicaSetLike,
  'apps/DaemonSet': checkDaemonSet,
};

/** Why the object is not ready, or undefined when it is (or its kind has no default check). */
export function defaultNotReadyReason(obj: JsonObject): string | undefined {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const check = CHECKS[`${groupOf(apiVersion)}/${String(obj.kind)}`];
  if (!check) return undefined;
  if (check !== checkPod) {
    const outdated = outdatedGeneration(obj);
    if (outdated) return outdated;
  }
  return check(obj);
}

/** The not-ready message for a managed object as read (undefined: absent). */
export function readinessProblem(ref: ResourceRef, obj: JsonObject | undefined): string | undefined {
  if (obj === undefined) return `${describeRef(ref)} is not ready: not found`;
  const reason = defaultNotReadyReason(obj);
  return reason === undefined ? undefined : `${describeRef(ref)} is not ready: ${reason}`;
}
