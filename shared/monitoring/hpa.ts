/**
 * "HPA Statistics" (seed 000), pure: what one log line says about one function, mapped from
 *
 * - a Knative PodAutoscaler (`autoscaling.internal.knative.dev/v1alpha1`): `status.actualScale`
 *   and `status.desiredScale` (a negative scale means "not known yet");
 * - an `autoscaling/v2` HorizontalPodAutoscaler: `status.currentReplicas`, `desiredReplicas` and
 *   the `Resource` metrics cpu and memory of `status.currentMetrics` (what upstream logs), for
 *   plain HPAs and for PodAutoscalers of the HPA class (Knative creates the HPA, named like the
 *   PodAutoscaler and owned by it);
 * - a row of the embedded activator's `/status` (`replicas`, `desired`).
 *
 *   {"level":"info","ts":"...","logger":"controllers.landscaper-monitoring","msg":"HPA Statistics",
 *    "resource":"ns/name","currentReplicas":3,"desiredReplicas":3,"memoryAverageUtilization":20,
 *    "memoryAverageValue":"64625322666m","cpuAverageUtilization":108,"cpuAverageValue":"325m"}
 *
 * A field that is not known is left out.
 */
import type { GroupVersionKind } from '../api/gvk.js';
import type { ObjectMeta } from '@landscape/apimachinery';
import type { LogFields } from '../log/index.js';

export const MONITORING_LOGGER_NAME = 'controllers.landscaper-monitoring';
export const HPA_STATISTICS_MSG = 'HPA Statistics';

/** Knative Serving's PodAutoscaler (not in shared/api's table: only monitoring reads it). */
export const POD_AUTOSCALER_GVK: GroupVersionKind = {
  group: 'autoscaling.internal.knative.dev',
  version: 'v1alpha1',
  apiVersion: 'autoscaling.internal.knative.dev/v1alpha1',
  kind: 'PodAutoscaler',
  plural: 'podautoscalers',
  namespaced: true,
};

export const KnativeAutoscaling = {
  classAnnotation: 'autoscaling.knative.dev/class',
  kpaClass: 'kpa.autoscaling.knative.dev',
  hpaClass: 'hpa.autoscaling.knative.dev',
  serviceLabel: 'serving.knative.dev/service',
} as const;

export interface HpaStatistics {
  /** `namespace/name` of the function. */
  resource: string;
  currentReplicas?: number;
  desiredReplicas?: number;
  /** Percent of the request in the Pod spec. */
  memoryAverageUtilization?: number;
  /** A Kubernetes quantity, e.g. `64625322666m`. */
  memoryAverageValue?: string;
  cpuAverageUtilization?: number;
  cpuAverageValue?: string;
}

type Metrics = Omit<HpaStatistics, 'resource' | 'currentReplicas' | 'desiredReplicas'>;

/** The keys of a line, in the seed's order. */
export const HPA_STATISTICS_KEYS = [
  'resource',
  'currentReplicas',
  'desiredReplicas',
  'memoryAverageUtilization',
  'memoryAverageValue',
  'cpuAverageUtilization',
  'cpuAverageValue',
] as const satisfies readonly (keyof HpaStatistics)[];

const METRIC_KEYS = HPA_STATISTICS_KEYS.slice(3) as readonly (keyof Metrics)[];

export interface PodAutoscaler {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string } };
  status?: { desiredScale?: number; actualScale?: number; serviceName?: string };
}

export interface MetricValueStatus {
  averageUtilization?: number;
  /** A quantity; JSON carries it as a string. */
  averageValue?: string | number;
  value?: string | number;
}

export interface MetricStatus {
  type?: string;
  resource?: { name?: string; current?: MetricValueStatus };
}

export interface HorizontalPodAutoscaler {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string } };
  status?: { currentReplicas?: number; desiredReplicas?: number; currentMetrics?: MetricStatus[] | null };
}

/** One row of the embedded activator's `/status` (local/activator PoolStatus). */
export interface ActivatorStatusRow {
  name: string;
  namespace: string;
  replicas?: number;
  desired?: number;
  inFlight?: number;
  queued?: number;
}

/** The fields of a line in the seed's order, without the unknown ones. */
export function statisticsFields(s: HpaStatistics): LogFields {
  const out: LogFields = {};
  for (const k of HPA_STATISTICS_KEYS) if (s[k] !== undefined) out[k] = s[k];
  return out;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function quantity(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

function resourceOf(meta: ObjectMeta | undefined, name: string | undefined): string {
  return `${meta?.namespace ?? ''}/${name ?? meta?.name ?? ''}`;
}

function compact(s: HpaStatistics): HpaStatistics {
  return statisticsFields(s) as unknown as HpaStatistics;
}

/** cpu and memory of the `Resource` metrics in an HPA's `status.currentMetrics`. */
export function resourceMetrics(metrics: readonly MetricStatus[] | null | undefined): Metrics {
  const out: Metrics = {};
  for (const m of metrics ?? []) {
    if (m.type !== 'Resource' || !m.resource?.current) continue;
    const { name, current } = m.resource;
    if (name !== 'cpu' && name !== 'memory') continue;
    const utilization = count(current.averageUtilization);
    const value = quantity(current.averageValue);
    if (utilization !== undefined) out[`${name}AverageUtilization`] = utilization;
    if (value !== undefined) out[`${name}AverageValue`] = value;
  }
  return out;
}

/** An HPA's line; `resource` defaults to `namespace/<scale target>` as upstream prints it. */
export function fromHpa(hpa: HorizontalPodAutoscaler, resource?: string): HpaStatistics {
  const status = hpa.status;
  const desiredReplicas = count(status?.desiredReplicas);
  // currentReplicas is omitempty: absent next to a desiredReplicas means 0.
  const currentReplicas = count(status?.currentReplicas) ?? (desiredReplicas === undefined ? undefined : 0);
  return compact({
    resource: resource ?? resourceOf(hpa.metadata, hpa.spec?.scaleTargetRef?.name),
    currentReplicas,
    desiredReplicas,
    ...resourceMetrics(status?.currentMetrics),
  });
}

/** The function a PodAutoscaler scales: its Knative Service, else the PodAutoscaler itself. */
export function podAutoscalerResource(pa: PodAutoscaler): string {
  return resourceOf(pa.metadata, pa.metadata?.labels?.[KnativeAutoscaling.serviceLabel]);
}

/** A PodAutoscaler's line (replicas only: a KPA knows no cpu or memory). */
export function fromPodAutoscaler(pa: PodAutoscaler): HpaStatistics {
  return compact({
    resource: podAutoscalerResource(pa),
    currentReplicas: count(pa.status?.actualScale),
    desiredReplicas: count(pa.status?.desiredScale),
  });
}

/** A row of the activator's `/status`. */
export function fromActivator(row: ActivatorStatusRow): HpaStatistics {
  return compact({
    resource: `${row.namespace}/${row.name}`,
    currentReplicas: count(row.replicas),
    desiredReplicas: count(row.desired),
  });
}

export function isHpaClass(pa: PodAutoscaler): boolean {
  return pa.metadata?.annotations?.[KnativeAutoscaling.classAnnotation] === KnativeAutoscaling.hpaClass;
}

/** Whether an HPA belongs to a PodAutoscaler (Knative's HPA class made it). */
export function ownedByPodAutoscaler(hpa: HorizontalPodAutoscaler): boolean {
  return (hpa.metadata?.ownerReferences ?? []).some((o) => o.kind === POD_AUTOSCALER_GVK.kind);
}

/** The HPA Knative made for an HPA-class PodAutoscaler: owned by it, or named like it. */
export function hpaOf(
  pa: PodAutoscaler,
  hpas: readonly HorizontalPodAutoscaler[],
): HorizontalPodAutoscaler | undefined {
  const { name, namespace, uid } = pa.metadata ?? {};
  const same = hpas.filter((h) => h.metadata?.namespace === namespace);
  const owned = same.find((h) =>
    (h.metadata?.ownerReferences ?? []).some(
      (o) => o.kind === POD_AUTOSCALER_GVK.kind && (uid ? o.uid === uid : o.name === name),
    ),
  );
  return owned ?? same.find((h) => h.metadata?.name === name);
}

/** One revision's line: an HPA-class PodAutoscaler takes replicas and metrics from its HPA. */
function revisionStatistics(pa: PodAutoscaler, hpas: readonly HorizontalPodAutoscaler[]): HpaStatistics {
  const own = fromPodAutoscaler(pa);
  const hpa = isHpaClass(pa) ? hpaOf(pa, hpas) : undefined;
  return hpa ? { ...own, ...fromHpa(hpa, own.resource) } : own;
}

function sum(values: readonly (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : known.reduce((a, b) => a + b, 0);
}

function metricsOf(s: HpaStatistics): Metrics {
  const out: Metrics = {};
  for (const k of METRIC_KEYS) if (s[k] !== undefined) (out as Record<string, unknown>)[k] = s[k];
  return out;
}

/**
 * Several revisions of one Service (a rollout, a traffic split): replicas add up; cpu and memory
 * are those of the only revision with replicas, and unknown when several have some.
 */
export function mergeRevisions(rows: readonly HpaStatistics[]): HpaStatistics {
  const first = rows[0];
  if (!first) throw new RangeError('mergeRevisions needs at least one row');
  if (rows.length === 1) return first;
  const running = rows.filter((r) => (r.currentReplicas ?? 0) > 0);
  const metrics = running.length === 1 && running[0] ? metricsOf(running[0]) : {};
  return compact({
    resource: first.resource,
    currentReplicas: sum(rows.map((r) => r.currentReplicas)),
    desiredReplicas: sum(rows.map((r) => r.desiredReplicas)),
    ...metrics,
  });
}

function byResource(a: HpaStatistics, b: HpaStatistics): number {
  return a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0;
}

/** One line per Knative Service (or PodAutoscaler without one), sorted by resource. */
export function knativeStatistics(
  pas: readonly PodAutoscaler[],
  hpas: readonly HorizontalPodAutoscaler[],
): HpaStatistics[] {
  const groups = new Map<string, HpaStatistics[]>();
  for (const pa of pas) {
    const row = revisionStatistics(pa, hpas);
    groups.set(row.resource, [...(groups.get(row.resource) ?? []), row]);
  }
  return [...groups.values()].map(mergeRevisions).sort(byResource);
}

/** One line per HPA that no PodAutoscaler owns (those are reported with their PodAutoscaler). */
export function hpaStatistics(hpas: readonly HorizontalPodAutoscaler[]): HpaStatistics[] {
  return hpas
    .filter((h) => !ownedByPodAutoscaler(h))
    .map((h) => fromHpa(h))
    .sort(byResource);
}
