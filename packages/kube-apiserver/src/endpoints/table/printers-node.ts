/** Node and Event tables (printers.go printNode and printEvent, Kubernetes 1.32). */
import type { KubeObject } from '../../api/types.js';
import { ageColumn, column, field, nameColumn, type KindColumns } from './columns.js';
import { EVENT, NODE } from './descriptions.js';
import { ageOf, asArray, asRecord, int, str, timeOf } from './format.js';

/** Ready / NotReady / Unknown from the Ready condition, then SchedulingDisabled. */
function nodeStatus(o: KubeObject): string {
  const ready = asArray(field(o, 'status', 'conditions'))
    .map(asRecord)
    .filter((c) => c.type === 'Ready')
    .at(-1);
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (field(o, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
}

const ROLE_PREFIX = 'node-role.kubernetes.io/';

/** findNodeRoles: node-role.kubernetes.io/<role> labels and the kubernetes.io/role label, sorted. */
function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(o.metadata.labels ?? {})) {
    if (key.startsWith(ROLE_PREFIX) && key.length > ROLE_PREFIX.length)
      roles.add(key.slice(ROLE_PREFIX.length));
    else if (key === 'kubernetes.io/role' && value !== '') roles.add(value);
  }
  return [...roles].sort().join(',') || '<none>';
}

function nodeAddress(o: KubeObject, type: string): string {
  const address = asArray(field(o, 'status', 'addresses'))
    .map(asRecord)
    .find((a) => a.type === type);
  return address ? str(address.address) : '<none>';
}

function nodeInfo(key: string): (o: KubeObject) => string {
  return (o) => str(field(o, 'status', 'nodeInfo', key)) || '<unknown>';
}

export const nodeColumns: KindColumns = {
  Name: nameColumn,
  Status: column('string', NODE.status, nodeStatus),
  Roles: column('string', NODE.roles, nodeRoles),
  Age: ageColumn,
  Version: column('string', NODE.kubeletVersion, (o) =>
    str(field(o, 'status', 'nodeInfo', 'kubeletVersion')),
  ),
  'Internal-IP': column('string', NODE.addresses, (o) => nodeAddress(o, 'InternalIP')),
  'External-IP': column('string', NODE.addresses, (o) => nodeAddress(o, 'ExternalIP')),
  'OS-Image': column('string', NODE.osImage, nodeInfo('osImage')),
  'Kernel-Version': column('string', NODE.kernelVersion, nodeInfo('kernelVersion')),
  'Container-Runtime': column('string', NODE.containerRuntimeVersion, nodeInfo('containerRuntimeVersion')),
};

/** firstTimestamp, or eventTime for events written through events.k8s.io. */
function firstSeen(o: KubeObject, now: Date): string {
  return timeOf(o.firstTimestamp) === undefined ? ageOf(o.eventTime, now) : ageOf(o.firstTimestamp, now);
}

/** series.lastObservedTime, else lastTimestamp, else the first-seen age. */
function lastSeen(o: KubeObject, now: Date): string {
  if (o.series !== undefined && o.series !== null) return ageOf(field(o, 'series', 'lastObservedTime'), now);
  return timeOf(o.lastTimestamp) === undefined ? firstSeen(o, now) : ageOf(o.lastTimestamp, now);
}

function eventCount(o: KubeObject): number {
  if (o.series !== undefined && o.series !== null) return int(field(o, 'series', 'count'));
  return int(o.count) || 1;
}

function eventObject(o: KubeObject): string {
  const kind = str(field(o, 'involvedObject', 'kind')).toLowerCase();
  const name = str(field(o, 'involvedObject', 'name'));
  return name ? `${kind}/${name}` : kind;
}

/** formatEventSource: component (or reportingComponent), then ", " and host (or reportingInstance). */
function eventSource(o: KubeObject): string {
  const component = str(field(o, 'source', 'component')) || str(o.reportingComponent);
  const host = str(field(o, 'source', 'host')) || str(o.reportingInstance);
  return host ? `${component}, ${host}` : component;
}

export const eventColumns: KindColumns = {
  'Last Seen': column('string', EVENT.lastTimestamp, (o, ctx) => lastSeen(o, ctx.now)),
  Type: column('string', EVENT.type, (o) => str(o.type)),
  Reason: column('string', EVENT.reason, (o) => str(o.reason)),
  Object: column('string', EVENT.involvedObject, eventObject),
  Subobject: column('string', EVENT.fieldPath, (o) => str(field(o, 'involvedObject', 'fieldPath'))),
  Source: column('string', EVENT.source, eventSource),
  Message: column('string', EVENT.message, (o) => str(o.message).trim()),
  'First Seen': column('string', EVENT.firstTimestamp, (o, ctx) => firstSeen(o, ctx.now)),
  Count: column('string', EVENT.count, eventCount),
  Name: nameColumn,
};
