/**
 * SeedAutoscaler metric arithmetic, pure: the Kubernetes HPA replica calculator
 * (pkg/controller/podautoscaler/replica_calculator.go) with seeds in place of pods.
 *
 * Utilization target: a seed's utilization is used / allocatable (percent) for the metric's
 * resource; the usage ratio is the mean over the measured seeds divided by the target.
 * AverageValue target: the mean of `used` over the seeds divided by the target value. Within the
 * tolerance (|1 - ratio| <= 0.1) the current replica count stays; else ceil(ratio * measured seeds).
 *
 * Seeds without allocatable for the resource are upstream's "missing pods": on a scale-down they
 * count as exactly at target, on a scale-up as 0, and a result that is within tolerance or turns
 * the direction keeps the current count. Where the product differs: the utilization is the mean of
 * per-seed ratios (specs/seed-management.md), not upstream's sum(used)/sum(requests) truncated to a
 * whole percent; ceil() ignores float noise below 1e-9.
 */
import type { ResourceList } from '../../shared/api/core.js';
import { quantityNumber } from '@landscape/apimachinery';
import {
  isMetricTargetType,
  type MetricValueStatus,
  type SeedMetricSpec,
  type SeedMetricStatus,
} from '../../shared/api/seedautoscaler.js';

export { METRIC_TARGET_TYPES, isMetricTargetType } from '../../shared/api/seedautoscaler.js';
export type {
  MetricTarget,
  MetricTargetType,
  MetricValueStatus,
  SeedMetricSpec,
  SeedMetricStatus,
} from '../../shared/api/seedautoscaler.js';

/** One seed of the scaled set: what it may hold and what it holds, per resource. */
export interface SeedSample {
  name: string;
  /** Seed `status.allocatable`. */
  allocatable?: ResourceList;
  /** Usage per resource, e.g. `{ shoots: 12 }` (the scheduler's per-seed counts); absent: 0. */
  usage?: Readonly<Record<string, number>>;
}

/** The HPA's default tolerance. */
export const DEFAULT_TOLERANCE = 0.1;

/** When `metrics` is empty (the HPA defaults to 80 % of its primary resource). */
export const DEFAULT_SEED_METRICS: readonly SeedMetricSpec[] = [
  { type: 'Resource', resource: { name: 'shoots', target: { type: 'Utilization', averageUtilization: 80 } } },
];

/** A number as a quantity: whole numbers plain, else in milli-units (`1500m`), as the HPA reports. */
export function formatMilliQuantity(value: number): string {
  const milli = Math.round(value * 1000);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** ceil() that does not round 4.000000000000001 up to 5. */
export function ceilReplicas(value: number): number {
  return Math.ceil(Number(value.toPrecision(12)));
}

export function withinTolerance(ratio: number, tolerance: number): boolean {
  return Math.abs(1 - ratio) <= tolerance + 1e-12;
}

/** The name the HPA gives a metric in its reasons. */
export function metricName(metric: SeedMetricSpec): string {
  const { name, target } = metric.resource;
  return target.type === 'Utilization'
    ? `${name} resource utilization (percentage of allocatable)`
    : `${name} resource`;
}

export type MetricProposal =
  { ok: true; replicas: number; name: string; status: SeedMetricStatus } | { ok: false; error: string };

interface Samples {
  /** Per measured seed, in the target's unit (percent, or the raw value). */
  values: number[];
  /** Seeds that cannot be measured (no allocatable for a utilization target). */
  missing: number;
  /** Mean raw usage over the measured seeds. */
  rawMean: number;
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A seed's value in the target's unit; undefined when it cannot be measured. */
function seedValue(seed: SeedSample, resource: string, utilization: boolean): number | undefined {
  const used = seed.usage?.[resource] ?? 0;
  if (!utilization) return used;
  const allocatable = quantityNumber(seed.allocatable?.[resource]);
  return allocatable !== undefined && allocatable > 0 ? (used * 100) / allocatable : undefined;
}

function sample(resource: string, seeds: readonly SeedSample[], utilization: boolean): Samples {
  const measured = seeds.filter((seed) => seedValue(seed, resource, utilization) !== undefined);
  const raw = measured.map((seed) => seed.usage?.[resource] ?? 0);
  return {
    values: measured.map((seed) => seedValue(seed, resource, utilization) ?? 0),
    missing: seeds.length - measured.length,
    rawMean: raw.length ? mean(raw) : 0,
  };
}

/** The target in its unit, or the reason there is none. */
function targetValue(metric: SeedMetricSpec): number | string {
  const t = metric.resource.target;
  const value = t.type === 'Utilization' ? t.averageUtilization : quantityNumber(t.averageValue);
  if (!isMetricTargetType(t.type)) return `invalid metric target type ${JSON.stringify(t.type)}`;
  if (value === undefined || !(value > 0))
    return `invalid ${metric.resource.name} target: no positive ${t.type} set`;
  return value;
}

/** Whether `replicas` would move against the direction `ratio` asks for. */
function againstDirection(ratio: number, replicas: number, current: number): boolean {
  return (ratio < 1 && replicas > current) || (ratio > 1 && replicas < current);
}

/** Upstream's rebalance with missing seeds (see the header). */
function withMissing(s: Samples, ratio: number, target: number, current: number, tolerance: number): number {
  const fill = ratio < 1 ? target : 0;
  const all = ratio === 1 ? s.values : [...s.values, ...Array<number>(s.missing).fill(fill)];
  const newRatio = mean(all) / target;
  const flipped = (ratio > 1 && newRatio < 1) || (ratio < 1 && newRatio > 1);
  if (withinTolerance(newRatio, tolerance) || flipped) return current;
  const replicas = ceilReplicas(newRatio * all.length);
  return againstDirection(newRatio, replicas, current) ? current : replicas;
}

function currentStatus(metric: SeedMetricSpec, average: number, rawMean: number): SeedMetricStatus {
  const utilization = metric.resource.target.type === 'Utilization';
  const current: MetricValueStatus = utilization
    ? {
        averageUtilization: Math.trunc(Number(average.toPrecision(12))),
        averageValue: formatMilliQuantity(rawMean),
      }
    : { averageValue: formatMilliQuantity(rawMean) };
  return { type: 'Resource', resource: { name: metric.resource.name, current } };
}

/** What one metric proposes for `currentReplicas` over `seeds`. */
export function metricProposal(
  metric: SeedMetricSpec,
  currentReplicas: number,
  seeds: readonly SeedSample[],
  tolerance: number = DEFAULT_TOLERANCE,
): MetricProposal {
  if (metric.type !== 'Resource')
    return { ok: false, error: `invalid metric source type ${JSON.stringify(metric.type)}` };
  const target = targetValue(metric);
  if (typeof target === 'string') return { ok: false, error: target };
  const resource = metric.resource.name;
  const s = sample(resource, seeds, metric.resource.target.type === 'Utilization');
  if (s.values.length === 0) {
    return { ok: false, error: `did not receive metrics for any seed with allocatable ${resource}` };
  }
  const average = mean(s.values);
  const ratio = average / target;
  const status = currentStatus(metric, average, s.rawMean);
  const name = metricName(metric);
  if (s.missing > 0)
    return { ok: true, replicas: withMissing(s, ratio, target, currentReplicas, tolerance), name, status };
  const replicas = withinTolerance(ratio, tolerance)
    ? currentReplicas
    : ceilReplicas(ratio * s.values.length);
  return { ok: true, replicas, name, status };
}
