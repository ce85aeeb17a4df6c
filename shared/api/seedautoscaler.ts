/**
 * autoscaling.landscape.dev/v1alpha1: SeedAutoscaler (specs/seed-management.md "SeedAutoscaler";
 * GEP-13 proposed it in seedmanagement.gardener.cloud, which gardener-apiserver serves on a real
 * garden cluster, so the product keeps it in a group of its own). Shaped as the HPA v2: a scale
 * target (a ManagedSeedSet), min/max replicas, Resource metrics over the seeds' allocatable
 * (`shoots`) with a Utilization or AverageValue target, and HPA v2 `behavior`. The status carries
 * the HPA's fields plus `history`: the recommendations and scale events the HPA keeps in memory,
 * so the stateless function finds them on its next pass.
 */
import { isOneOf } from '@landscape/apimachinery';
import type { ObjectMeta, Quantity, Time } from '@landscape/apimachinery';

export const SEEDAUTOSCALER_GROUP = 'autoscaling.landscape.dev';
export const SEEDAUTOSCALER_VERSION = 'v1alpha1';
export const SEEDAUTOSCALER_API_VERSION = 'autoscaling.landscape.dev/v1alpha1';

export const METRIC_TARGET_TYPES = ['Utilization', 'AverageValue'] as const;
export type MetricTargetType = (typeof METRIC_TARGET_TYPES)[number];
export const isMetricTargetType: (value: unknown) => value is MetricTargetType = isOneOf(METRIC_TARGET_TYPES);

export interface MetricTarget {
  type: MetricTargetType;
  /** Percent of allocatable (Utilization). */
  averageUtilization?: number;
  /** Per seed (AverageValue). */
  averageValue?: Quantity;
}

/** Only `Resource` metrics: resources tracked in Seed `status.allocatable` (e.g. `shoots`). */
export interface SeedMetricSpec {
  type: 'Resource';
  resource: { name: string; target: MetricTarget };
}

export interface MetricValueStatus {
  averageUtilization?: number;
  averageValue?: string;
}

export interface SeedMetricStatus {
  type: 'Resource';
  resource: { name: string; current: MetricValueStatus };
}

export const SCALING_POLICY_TYPES = ['Pods', 'Percent'] as const;
export type ScalingPolicyType = (typeof SCALING_POLICY_TYPES)[number];
export const isScalingPolicyType: (value: unknown) => value is ScalingPolicyType =
  isOneOf(SCALING_POLICY_TYPES);

export const SELECT_POLICIES = ['Max', 'Min', 'Disabled'] as const;
export type SelectPolicy = (typeof SELECT_POLICIES)[number];
export const isSelectPolicy: (value: unknown) => value is SelectPolicy = isOneOf(SELECT_POLICIES);

/** `Pods`: replicas (seeds) per period; `Percent`: percent of the current replicas per period. */
export interface ScalingPolicy {
  type: ScalingPolicyType;
  value: number;
  periodSeconds: number;
}

/** HPA v2 HPAScalingRules. */
export interface ScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: SelectPolicy;
  policies?: ScalingPolicy[];
}

/** HPA v2 HorizontalPodAutoscalerBehavior. */
export interface SeedAutoscalerBehavior {
  scaleUp?: ScalingRules;
  scaleDown?: ScalingRules;
}

/** What is scaled: a ManagedSeedSet (through its scale subresource). */
export interface ScaleTargetRef {
  apiVersion?: string;
  kind: string;
  name: string;
}

export interface SeedAutoscalerSpec {
  /** The ManagedSeedSet whose scale subresource is driven. */
  scaleTargetRef: ScaleTargetRef;
  /** Default 1. */
  minReplicas?: number;
  maxReplicas: number;
  /** Default: `shoots` at 80 % utilization. */
  metrics?: SeedMetricSpec[];
  behavior?: SeedAutoscalerBehavior;
}

export const AutoscalerConditionTypes = {
  ableToScale: 'AbleToScale',
  scalingActive: 'ScalingActive',
  scalingLimited: 'ScalingLimited',
} as const;

export interface AutoscalerCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: Time;
}

/** One recommendation of a pass (the metrics' proposal before stabilization). */
export interface RecordedRecommendation {
  replicas: number;
  /** RFC 3339 with milliseconds. */
  time: Time;
}

/** One rescale: replicas added (scale-up) or removed (scale-down), positive. */
export interface RecordedScaleEvent {
  change: number;
  time: Time;
}

/**
 * What the Kubernetes HPA controller keeps in memory per autoscaler, written to the status so
 * any replica of the function continues from it: the recommendations of the stabilization
 * windows and the scale events of the policies' periods (older entries are dropped).
 */
export interface SeedAutoscalerHistory {
  recommendations?: RecordedRecommendation[];
  scaleUpEvents?: RecordedScaleEvent[];
  scaleDownEvents?: RecordedScaleEvent[];
}

export interface SeedAutoscalerStatus {
  observedGeneration?: number;
  lastScaleTime?: Time;
  currentReplicas: number;
  desiredReplicas: number;
  currentMetrics?: SeedMetricStatus[];
  conditions?: AutoscalerCondition[];
  history?: SeedAutoscalerHistory;
}

export interface SeedAutoscaler {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: SeedAutoscalerSpec;
  status?: SeedAutoscalerStatus;
}
