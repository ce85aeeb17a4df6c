/**
 * The strategy of core/v1 Pod (k8s.io/kubernetes pkg/registry/core/pod/strategy.go) with its
 * validation (pkg/apis/core/validation/validation.go ValidatePodCreate, ValidatePodUpdate) and
 * defaults (./pod-defaults.ts): on create the status is `Pending` with the pod's QoS class
 * (pkg/apis/core/helper/qos GetPodQOS); an update may change only the containers' images,
 * activeDeadlineSeconds (set, or lowered), additions to tolerations, a negative
 * terminationGracePeriodSeconds to 1, and removals of schedulingGates — anything else in the spec
 * is refused as kube-apiserver words it.
 */
import { invalid, type FieldError } from '../api/errors.js';
import { deepEqual } from '../api/objects.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { keepStatus } from './generic-strategy.js';
import { forbiddenField, invalidField, record, records } from './field-rules.js';
import { defaultPod } from './pod-defaults.js';
import { validatePodSpec } from './pod-validation.js';
import type { KindStrategy } from './rest-strategy.js';

type Obj = Record<string, unknown>;

export const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

const specOf = (obj: KubeObject): Obj => record(obj.spec) ?? {};

function resourceNames(container: Obj, kind: 'requests' | 'limits'): string[] {
  return Object.keys(record(record(container.resources)?.[kind]) ?? {}).filter(
    (r) => r === 'cpu' || r === 'memory',
  );
}

/** GetPodQOS: BestEffort without cpu/memory requests or limits; Guaranteed when every container's limits equal its requests for both. */
export function podQosClass(spec: Obj): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const containers = [...records(spec.initContainers), ...records(spec.containers)];
  const any = containers.some(
    (c) => resourceNames(c, 'requests').length + resourceNames(c, 'limits').length > 0,
  );
  if (!any) return 'BestEffort';
  const guaranteed = containers.every((c) => {
    const res = record(c.resources) ?? {};
    const limits = record(res.limits) ?? {};
    const requests = record(res.requests) ?? {};
    return ['cpu', 'memory'].every(
      (r) =>
        limits[r] !== undefined && JSON.stringify(requests[r] ?? limits[r]) === JSON.stringify(limits[r]),
    );
  });
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** SetDefaults_Pod's requests: a container with limits but no request for a resource gets the limit as request. */
function withRequestsFromLimits(container: Obj): Obj {
  const res = record(container.resources);
  const limits = record(res?.limits);
  if (!res || !limits) return container;
  return { ...container, resources: { ...res, requests: { ...limits, ...record(res.requests) } } };
}

/** The Pod with every default of a write. */
export function defaultPodObject(obj: KubeObject): KubeObject {
  const spec = record(defaultPod(obj.spec ?? {})) ?? {};
  for (const list of ['containers', 'initContainers'])
    if (Array.isArray(spec[list])) spec[list] = records(spec[list]).map(withRequestsFromLimits);
  return { ...obj, spec };
}

/** The spec with what an update may change taken from `prev` (upstream's mungedPodSpec). */
function munged(next: Obj, prev: Obj): Obj {
  const out: Obj = { ...next };
  for (const list of ['containers', 'initContainers']) {
    const prevList = records(prev[list]);
    if (!Array.isArray(next[list])) continue;
    out[list] = records(next[list]).map((c, i) =>
      i < prevList.length ? { ...c, image: prevList[i].image } : c,
    );
  }
  for (const field of ['activeDeadlineSeconds', 'tolerations', 'schedulingGates']) {
    if (prev[field] === undefined) delete out[field];
    else out[field] = prev[field];
  }
  const grace = prev.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0 && next.terminationGracePeriodSeconds === 1)
    out.terminationGracePeriodSeconds = grace;
  return out;
}

/** The changed top-level spec fields, as a short diff after the message (upstream prints cmp.Diff). */
function specDiff(next: Obj, prev: Obj): string {
  const keys = [...new Set([...Object.keys(prev), ...Object.keys(next)])].sort();
  const lines = keys
    .filter((k) => !deepEqual(prev[k], next[k]))
    .flatMap((k) => [
      ...(prev[k] === undefined ? [] : [`-   ${k}: ${JSON.stringify(prev[k])}`]),
      ...(next[k] === undefined ? [] : [`+   ${k}: ${JSON.stringify(next[k])}`]),
    ]);
  return `\n  core.PodSpec{\n${lines.join('\n')}\n  }\n`;
}

function activeDeadlineErrors(next: unknown, prev: unknown): FieldError[] {
  const field = 'spec.activeDeadlineSeconds';
  if (typeof next === 'number') {
    if (next < 0 || next > 2147483647)
      return [invalidField(field, next, 'must be between 0 and 2147483647, inclusive')];
    if (typeof prev === 'number' && prev < next)
      return [invalidField(field, next, 'must be less than or equal to previous value')];
    return [];
  }
  return prev === undefined
    ? []
    : [invalidField(field, null, 'must not update from a positive integer to nil value')];
}

function tolerationErrors(next: unknown, prev: unknown): FieldError[] {
  const kept = records(prev).every((t) => records(next).some((n) => deepEqual(n, t)));
  return kept
    ? []
    : [
        forbiddenField(
          'spec.tolerations',
          'existing toleration can not be modified except its tolerationSeconds',
        ),
      ];
}

function schedulingGateErrors(next: unknown, prev: unknown): FieldError[] {
  const added = records(next).some((g) => !records(prev).some((p) => deepEqual(p, g)));
  return added
    ? [forbiddenField('spec.schedulingGates', 'only deletion is allowed, but found new scheduling gate')]
    : [];
}

/** ValidatePodUpdate's spec rules. */
export function podUpdateErrors(next: Obj, prev: Obj): FieldError[] {
  const errors = [
    ...activeDeadlineErrors(next.activeDeadlineSeconds, prev.activeDeadlineSeconds),
    ...tolerationErrors(next.tolerations, prev.tolerations),
    ...schedulingGateErrors(next.schedulingGates, prev.schedulingGates),
  ];
  const m = munged(next, prev);
  if (!deepEqual(m, prev)) errors.push(forbiddenField('spec', POD_UPDATE_FORBIDDEN + specDiff(m, prev)));
  return errors;
}

function check(def: ResourceDef, obj: KubeObject, errors: FieldError[]): void {
  if (errors.length) throw invalid(def.kind, def.group, obj.metadata.name ?? '', errors);
}

/** core/v1 Pod writes (its field labels: ./core-strategy.ts POD_STRATEGY; the table merges both). */
export const POD_RULES: KindStrategy = {
  prepareForCreate: (_def, obj) => {
    const out = defaultPodObject(obj);
    return { ...out, status: { phase: 'Pending', qosClass: podQosClass(specOf(out)) } };
  },
  validateCreate: (def, obj) => check(def, obj, validatePodSpec(obj.spec, 'spec')),
  prepareForUpdate: (def, prev, next) => defaultPodObject(keepStatus(def, prev, next)),
  validateUpdate: (def, prev, next) =>
    check(def, next, [
      ...validatePodSpec(next.spec, 'spec'),
      ...podUpdateErrors(specOf(next), specOf(defaultPodObject(prev))),
    ]),
};
