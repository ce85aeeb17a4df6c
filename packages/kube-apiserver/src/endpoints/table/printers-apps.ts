/**
 * Deployment, ReplicaSet, ReplicationController, StatefulSet, DaemonSet and HorizontalPodAutoscaler
 * tables (printers.go, Kubernetes 1.32).
 */
import type { KubeObject } from '../../api/types.js';
import { ageColumn, column, field, nameColumn, templateColumns, type KindColumns } from './columns.js';
import {
  DAEMON_SET,
  DEPLOYMENT,
  HPA,
  READY_REPLICAS,
  REPLICA_SET,
  REPLICATION_CONTROLLER,
} from './descriptions.js';
import { asArray, asRecord, formatLabels, formatLabelSelector, int, str } from './format.js';
import { quantityString } from '@landscape/apimachinery';

type Rec = Record<string, unknown>;

/** spec.replicas; the API server defaults a missing one to 1 on create. */
function desiredReplicas(o: KubeObject): number {
  const replicas = field(o, 'spec', 'replicas');
  return typeof replicas === 'number' ? replicas : 1;
}

function readyOfDesired(o: KubeObject): string {
  return `${int(field(o, 'status', 'readyReplicas'))}/${desiredReplicas(o)}`;
}

export const deploymentColumns: KindColumns = {
  Name: nameColumn,
  Ready: column('string', READY_REPLICAS, readyOfDesired),
  'Up-to-date': column('string', DEPLOYMENT.updatedReplicas, (o) =>
    int(field(o, 'status', 'updatedReplicas')),
  ),
  Available: column('string', DEPLOYMENT.availableReplicas, (o) =>
    int(field(o, 'status', 'availableReplicas')),
  ),
  Age: ageColumn,
  ...templateColumns('spec', 'template', 'spec'),
  Selector: column('string', DEPLOYMENT.selector, (o) => formatLabelSelector(field(o, 'spec', 'selector'))),
};

/** printReplicaSet: Desired, Current, Ready (status counts missing as 0). */
export const replicaSetColumns: KindColumns = {
  Name: nameColumn,
  Desired: column('integer', REPLICA_SET.desired, desiredReplicas),
  Current: column('integer', REPLICA_SET.current, (o) => int(field(o, 'status', 'replicas'))),
  Ready: column('integer', REPLICA_SET.ready, (o) => int(field(o, 'status', 'readyReplicas'))),
  Age: ageColumn,
  ...templateColumns('spec', 'template', 'spec'),
  Selector: column('string', DEPLOYMENT.selector, (o) => formatLabelSelector(field(o, 'spec', 'selector'))),
};

/** printReplicationController: as a ReplicaSet, its selector a plain label map (labels.FormatLabels). */
export const replicationControllerColumns: KindColumns = {
  Name: nameColumn,
  Desired: column('integer', REPLICATION_CONTROLLER.desired, desiredReplicas),
  Current: column('integer', REPLICATION_CONTROLLER.current, (o) => int(field(o, 'status', 'replicas'))),
  Ready: column('integer', REPLICATION_CONTROLLER.ready, (o) => int(field(o, 'status', 'readyReplicas'))),
  Age: ageColumn,
  ...templateColumns('spec', 'template', 'spec'),
  Selector: column('string', REPLICATION_CONTROLLER.selector, (o) =>
    formatLabels(field(o, 'spec', 'selector')),
  ),
};

/** metav1.FormatLabelSelector: `<none>` for an empty selector string, `<error>` where Go fails to convert. */
function formatLabelSelectorOrNone(selector: unknown): string {
  const text = formatLabelSelector(selector);
  return text === '' ? '<none>' : text === '<invalid>' ? '<error>' : text;
}

/** printDaemonSet: the status counts (missing as 0) and the pod template's node selector. */
export const daemonSetColumns: KindColumns = {
  Name: nameColumn,
  Desired: column('integer', DAEMON_SET.desired, (o) => int(field(o, 'status', 'desiredNumberScheduled'))),
  Current: column('integer', DAEMON_SET.current, (o) => int(field(o, 'status', 'currentNumberScheduled'))),
  Ready: column('integer', DAEMON_SET.ready, (o) => int(field(o, 'status', 'numberReady'))),
  'Up-to-date': column('integer', DAEMON_SET.updated, (o) =>
    int(field(o, 'status', 'updatedNumberScheduled')),
  ),
  Available: column('integer', DAEMON_SET.available, (o) => int(field(o, 'status', 'numberAvailable'))),
  'Node Selector': column('string', DAEMON_SET.nodeSelector, (o) =>
    formatLabels(field(o, 'spec', 'template', 'spec', 'nodeSelector')),
  ),
  Age: ageColumn,
  ...templateColumns('spec', 'template', 'spec'),
  Selector: column('string', DAEMON_SET.selector, (o) =>
    formatLabelSelectorOrNone(field(o, 'spec', 'selector')),
  ),
};

export const statefulSetColumns: KindColumns = {
  Name: nameColumn,
  Ready: column('string', READY_REPLICAS, readyOfDesired),
  Age: ageColumn,
  ...templateColumns('spec', 'template', 'spec'),
};

const UNKNOWN = '<unknown>';

function isObject(v: unknown): v is Rec {
  return v !== null && typeof v === 'object';
}

/** External and Object metrics: a value, or an average value marked "(avg)". */
function valueMetric(source: Rec, status: Rec | undefined): string {
  const target = asRecord(source.target);
  const current = asRecord(status?.current);
  if (target.averageValue !== undefined && target.averageValue !== null) {
    const now = status && current.averageValue != null ? quantityString(current.averageValue) : UNKNOWN;
    return `${now}/${quantityString(target.averageValue)} (avg)`;
  }
  const now = status ? quantityString(current.value) : UNKNOWN;
  return `${now}/${quantityString(target.value)}`;
}

/** Resource and ContainerResource metrics: "cpu: 85%/70%", or an average value. */
function resourceMetric(source: Rec, status: Rec | undefined): string {
  const target = asRecord(source.target);
  const current = asRecord(status?.current);
  const name = str(source.name);
  if (target.averageValue !== undefined && target.averageValue !== null) {
    const now = status ? quantityString(current.averageValue) : UNKNOWN;
    return `${name}: ${now}/${quantityString(target.averageValue)}`;
  }
  const now =
    status && typeof current.averageUtilization === 'number' ? `${current.averageUtilization}%` : UNKNOWN;
  const goal = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
  return `${name}: ${now}/${goal}`;
}

function podsMetric(source: Rec, status: Rec | undefined): string {
  const now = status ? quantityString(asRecord(status.current).averageValue) : UNKNOWN;
  return `${now}/${quantityString(asRecord(source.target).averageValue)}`;
}

const METRIC_KEYS: Record<string, [string, (source: Rec, status: Rec | undefined) => string]> = {
  External: ['external', valueMetric],
  Object: ['object', valueMetric],
  Pods: ['pods', podsMetric],
  Resource: ['resource', resourceMetric],
  ContainerResource: ['containerResource', resourceMetric],
};

function metricText(spec: Rec, status: Rec): string {
  const entry = METRIC_KEYS[str(spec.type)];
  if (!entry) return '<unknown type>';
  const [key, format] = entry;
  return format(asRecord(spec[key]), isObject(status[key]) ? status[key] : undefined);
}

/** formatHPAMetrics: "<current>/<target>" per spec.metrics entry, the first two shown. */
function hpaTargets(o: KubeObject): string {
  const specs = asArray(field(o, 'spec', 'metrics')).map(asRecord);
  if (specs.length === 0) return '<none>';
  const statuses = asArray(field(o, 'status', 'currentMetrics')).map(asRecord);
  const list = specs.map((spec, i) => metricText(spec, statuses[i] ?? {}));
  if (list.length <= 2) return list.join(', ');
  return `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...`;
}

function minPods(o: KubeObject): string {
  const min = field(o, 'spec', 'minReplicas');
  return typeof min === 'number' ? String(Math.trunc(min)) : '<unset>';
}

export const horizontalPodAutoscalerColumns: KindColumns = {
  Name: nameColumn,
  Reference: column(
    'string',
    HPA.scaleTargetRef,
    (o) =>
      `${str(field(o, 'spec', 'scaleTargetRef', 'kind'))}/${str(field(o, 'spec', 'scaleTargetRef', 'name'))}`,
  ),
  Targets: column('string', HPA.metrics, hpaTargets),
  MinPods: column('string', HPA.minReplicas, minPods),
  MaxPods: column('string', HPA.maxReplicas, (o) => int(field(o, 'spec', 'maxReplicas'))),
  Replicas: column('string', HPA.currentReplicas, (o) => int(field(o, 'status', 'currentReplicas'))),
  Age: ageColumn,
};
