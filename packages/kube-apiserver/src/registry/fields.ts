/**
 * Field labels a fieldSelector may use, as the registries of Kubernetes 1.32 define them: every
 * kind has metadata.name and metadata.namespace; Pods, Events, Secrets, Namespaces and Nodes have
 * more (a ReplicationController its status.replicas), which their strategies name (./strategies.ts, ./core-strategy.ts).
 */
import { readPath } from '../api/objects.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { strategyFor } from './strategies.js';

export const COMMON_FIELD_LABELS = ['metadata.name', 'metadata.namespace'] as const;

/** Pod's spec.hostNetwork and Node's spec.unschedulable are "false" when unset. */
const FALSE_WHEN_UNSET = ['spec.hostNetwork', 'spec.unschedulable'] as const;
/** A ReplicationController's status.replicas (an int32, strconv.Itoa) is "0" when unset. */
const ZERO_WHEN_UNSET = ['status.replicas'] as const;

/** The kind's own field labels (label → path in the object, a boolean renders "true"/"false" as Go's strconv). */
function kindFields(def: ResourceDef): Readonly<Record<string, string>> {
  return strategyFor(def).fieldLabels;
}

export function fieldLabels(def: ResourceDef): string[] {
  return [...COMMON_FIELD_LABELS, ...Object.keys(kindFields(def))];
}

function render(label: string, value: unknown): string {
  if (value === undefined || value === null) {
    if ((ZERO_WHEN_UNSET as readonly string[]).includes(label)) return '0';
    return (FALSE_WHEN_UNSET as readonly string[]).includes(label) ? 'false' : '';
  }
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
