/**
 * Events as the simulated controllers record them: one core/v1 Event per occurrence, named
 * `<object>.<unix nanoseconds in hex>`, with the reporting component in `source` and
 * `reportingComponent`, as client-go's recorder writes them (client-go tools/record/event.go,
 * makeEvent). Repeats are not folded into a count (the recorder's EventCorrelator is not modelled).
 */
import type { Operations } from '../registry/operations.js';
import { timestamp } from '../api/objects.js';
import type { KubeObject, ResourceDef } from '../api/types.js';

export interface EventDeps {
  ops: Operations;
  defOf: (resource: string) => ResourceDef | undefined;
}

export interface EventSpec {
  reason: string;
  message: string;
  /** deployment-controller, replicaset-controller, statefulset-controller, default-scheduler, kubelet */
  component: string;
  type?: 'Normal' | 'Warning';
  /** The node of a kubelet's event. */
  host?: string;
  /** e.g. `spec.containers{nginx}` for a container's event */
  fieldPath?: string;
}

let last = 0n;

/** Unix nanoseconds, strictly increasing within the process (event names stay unique). */
function nanos(now: Date): bigint {
  const t = BigInt(now.getTime()) * 1_000_000n;
  last = t > last ? t : last + 1n;
  return last;
}

/** Records an Event about `obj` (of kind `def`); a failed write is dropped, as the recorder drops it. */
export function recordEvent(
  deps: EventDeps,
  def: ResourceDef,
  obj: KubeObject,
  spec: EventSpec,
  now: Date,
): void {
  const eventDef = deps.defOf('/events');
  if (!eventDef) return;
  const namespace = obj.metadata.namespace ?? 'default';
  const t = timestamp(now);
  const event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${obj.metadata.name}.${nanos(now).toString(16)}`, namespace },
    involvedObject: {
      kind: def.kind,
      namespace: obj.metadata.namespace,
      name: obj.metadata.name,
      uid: obj.metadata.uid,
      apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
      resourceVersion: obj.metadata.resourceVersion,
      ...(spec.fieldPath ? { fieldPath: spec.fieldPath } : {}),
    },
    reason: spec.reason,
    message: spec.message,
    source: { component: spec.component, ...(spec.host ? { host: spec.host } : {}) },
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type: spec.type ?? 'Normal',
    eventTime: null,
    reportingComponent: spec.component,
    reportingInstance: spec.host ?? '',
  };
  try {
    deps.ops.create({ def: eventDef, namespace }, event, { fieldValidation: 'Ignore', dryRun: false });
  } catch {
    // the namespace is going away, or the Event kind is not served: the event is lost
  }
}
