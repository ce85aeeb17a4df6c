/**
 * Field labels a fieldSelector may use, per kind, as the registries of Kubernetes 1.32 define
 * them (every kind has metadata.name and metadata.namespace; Pods, Events, Secrets, Namespaces and
 * Nodes have more, e.g. `kubectl get events --field-selector involvedObject.name=web`).
 */
import { readPath } from '../api/objects.js';
import type { KubeObject, ResourceDef } from '../api/types.js';

export const COMMON_FIELD_LABELS = ['metadata.name', 'metadata.namespace'] as const;

/** Field label → path in the object (a boolean renders "true"/"false", as Go's strconv does). */
const KIND_FIELDS: Record<string, Record<string, string>> = {
  Pod: {
    'spec.nodeName': '.spec.nodeName',
    'spec.restartPolicy': '.spec.restartPolicy',
    'spec.schedulerName': '.spec.schedulerName',
    'spec.serviceAccountName': '.spec.serviceAccountName',
    'spec.hostNetwork': '.spec.hostNetwork',
    'status.phase': '.status.phase',
    'status.podIP': '.status.podIP',
    'status.nominatedNodeName': '.status.nominatedNodeName',
  },
  Event: {
    'involvedObject.kind': '.involvedObject.kind',
    'involvedObject.namespace': '.involvedObject.namespace',
    'involvedObject.name': '.involvedObject.name',
    'involvedObject.uid': '.involvedObject.uid',
    'involvedObject.apiVersion': '.involvedObject.apiVersion',
    'involvedObject.resourceVersion': '.involvedObject.resourceVersion',
    'involvedObject.fieldPath': '.involvedObject.fieldPath',
    reason: '.reason',
    reportingComponent: '.reportingComponent',
    source: '.source.component',
    type: '.type',
  },
  Secret: { type: '.type' },
  Namespace: { 'status.phase': '.status.phase' },
  Node: { 'spec.unschedulable': '.spec.unschedulable' },
};

/** Pod's spec.hostNetwork and Node's spec.unschedulable are "false" when unset. */
const FALSE_WHEN_UNSET = ['spec.hostNetwork', 'spec.unschedulable'] as const;

function kindFields(def: ResourceDef): Record<string, string> {
  return def.builtin && !def.group ? (KIND_FIELDS[def.kind] ?? {}) : {};
}

export function fieldLabels(def: ResourceDef): string[] {
  return [...COMMON_FIELD_LABELS, ...Object.keys(kindFields(def))];
}

function render(label: string, value: unknown): string {
  if (value === undefined || value === null)
    return (FALSE_WHEN_UNSET as readonly string[]).includes(label) ? 'false' : '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The field label values of one object, for matching a fieldSelector. */
export function objectFieldValues(def: ResourceDef, obj: KubeObject): Record<string, string> {
  const out: Record<string, string> = {
    'metadata.name': obj.metadata.name ?? '',
    'metadata.namespace': obj.metadata.namespace ?? '',
  };
  for (const [label, path] of Object.entries(kindFields(def)))
    out[label] = render(label, readPath(obj, path));
  return out;
}
