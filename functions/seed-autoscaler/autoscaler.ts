/**
 * The SeedAutoscaler decision, pure (specs/seed-management.md "SeedAutoscaler"; GEP-13 proposed it,
 * upstream never built it). It mirrors the Kubernetes HPA's reconcileAutoscaler
 * (pkg/controller/podautoscaler/horizontal.go) over the seeds of a ManagedSeedSet:
 *
 * - the set's scale `spec.replicas` is 0: scaling is disabled;
 * - above maxReplicas / below minReplicas: straight to the bound;
 * - else each metric proposes a count (autoscaler-metrics.ts), the largest wins; invalid metrics
 *   stop a decision when all are invalid or when the rest would scale down; the proposal is then
 *   stabilized, rate-limited and clamped (autoscaler-behavior.ts; `behavior` absent: the classic
 *   max(2 × current, 4) scale-up limit and the 5-minute downscale window).
 *
 * Output: the desired replicas, the reason (the HPA's wording), the history to keep for the next
 * pass, the status to write (currentReplicas, desiredReplicas, lastScaleTime, currentMetrics,
 * conditions) and the Event. No I/O: the caller reads the set's scale and its seeds' allocatable
 * and usage, writes the scale when `rescale`, then the status. `now` is injected.
 */
import { formatTime, type Time } from '@landscape/apimachinery';
import type {
  AutoscalerCondition,
  SeedAutoscaler,
  SeedAutoscalerStatus,
} from '../../shared/api/seedautoscaler.js';
import {
  DEFAULT_DOWNSCALE_STABILIZATION_SECONDS,
  EMPTY_HISTORY,
  normalizeLegacy,
  normalizeWithBehavior,
  recordScaleEvent,
  type Normalized,
  type ScaleHistory,
} from './autoscaler-behavior.js';
import {
  DEFAULT_SEED_METRICS,
  DEFAULT_TOLERANCE,
  metricProposal,
  type SeedMetricStatus,
  type SeedSample,
} from './autoscaler-metrics.js';

export * from './autoscaler-behavior.js';
export * from './autoscaler-metrics.js';

export { AutoscalerConditionTypes } from '../../shared/api/seedautoscaler.js';
export type {
  AutoscalerCondition,
  ScaleTargetRef,
  SeedAutoscaler,
  SeedAutoscalerSpec,
  SeedAutoscalerStatus,
} from '../../shared/api/seedautoscaler.js';

export interface SeedAutoscalerInput {
  autoscaler: SeedAutoscaler;
  /** The target's scale `spec.replicas`. */
  currentReplicas: number;
  /** The target set's seeds. */
  seeds: readonly SeedSample[];
  /** From the previous pass; absent: none. */
  history?: ScaleHistory;
  now: Date;
}

export interface SeedAutoscalerOptions {
  tolerance?: number;
  downscaleStabilizationSeconds?: number;
}

export interface AutoscalerEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface SeedAutoscalerDecision {
  desiredReplicas: number;
  /** Write `desiredReplicas` to the target's scale. */
  rescale: boolean;
  /** Why (the HPA's rescale reason, or why nothing is computed). */
  reason: string;
  history: ScaleHistory;
  status: SeedAutoscalerStatus;
  event?: AutoscalerEvent;
  error?: string;
}

interface Pass {
  input: SeedAutoscalerInput;
  now: number;
  time: Time;
  tolerance: number;
  downscaleSeconds: number;
  min: number;
  max: number;
  conditions: AutoscalerCondition[];
  metrics: SeedMetricStatus[];
}

function condition(
  p: Pass,
  type: string,
  status: AutoscalerCondition['status'],
  reason: string,
  message: string,
): void {
  const old = p.conditions.find((c) => c.type === type);
  const lastTransitionTime =
    old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : p.time;
  const next: AutoscalerCondition = { type, status, reason, message, lastTransitionTime };
  p.conditions = old ? p.conditions.map((c) => (c === old ? next : c)) : [...p.conditions, next];
}

function outcome(p: Pass, desired: number, reason: string, history: ScaleHistory): SeedAutoscalerDecision {
  const { autoscaler, currentReplicas } = p.input;
  const rescale = desired !== currentReplicas;
  const behavior = autoscaler.spec.behavior;
  const lastScaleTime = rescale ? p.time : autoscaler.status?.lastScaleTime;
  return {
    desiredReplicas: desired,
    rescale,
    reason,
    history:
      rescale && behavior ? recordScaleEvent(history, behavior, currentReplicas, desired, p.now) : history,
    status: {
      observedGeneration: autoscaler.metadata?.generation ?? 0,
      ...(lastScaleTime ? { lastScaleTime } : {}),
      currentReplicas,
      desiredReplicas: desired,
      currentMetrics: p.metrics,
      conditions: p.conditions,
    },
    ...(rescale
      ? {
          event: {
            type: 'Normal',
            reason: 'SuccessfulRescale',
            message: `New size: ${desired}; reason: ${reason}`,
          },
        }
      : {}),
  };
}

function failure(p: Pass, reason: string, error: string): SeedAutoscalerDecision {
  const current = p.input.currentReplicas;
  const d = outcome(p, current, reason, p.input.history ?? EMPTY_HISTORY);
  const desiredReplicas = p.input.autoscaler.status?.desiredReplicas ?? current;
  return {
    ...d,
    status: { ...d.status, desiredReplicas },
    event: { type: 'Warning', reason, message: error },
    error,
  };
}

interface Proposal {
  replicas: number;
  metric: string;
}

/** Upstream's computeReplicasForMetrics: the largest valid proposal, or the error. */
function computeReplicas(p: Pass): Proposal | { error: string } {
  const { autoscaler, currentReplicas, seeds } = p.input;
  const metrics = autoscaler.spec.metrics?.length ? autoscaler.spec.metrics : DEFAULT_SEED_METRICS;
  let best: Proposal = { replicas: 0, metric: '' };
  const errors: string[] = [];
  for (const metric of metrics) {
    const r = metricProposal(metric, currentReplicas, seeds, p.tolerance);
    if (!r.ok) {
      errors.push(r.error);
      continue;
    }
    p.metrics.push(r.status);
    if (r.replicas > best.replicas) best = { replicas: r.replicas, metric: r.name };
  }
  if (errors.length === 0 || (errors.length < metrics.length && best.replicas >= currentReplicas)) {
    condition(
      p,
      'ScalingActive',
      'True',
      'ValidMetricFound',
      `the SeedAutoscaler was able to successfully calculate a replica count from ${best.metric}`,
    );
    return best;
  }
  condition(
    p,
    'ScalingActive',
    'False',
    'FailedGetResourceMetric',
    `the SeedAutoscaler was unable to compute the replica count: ${errors[0]}`,
  );
  return {
    error: `invalid metrics (${errors.length} invalid out of ${metrics.length}), first error is: ${errors[0]}`,
  };
}

function normalize(p: Pass, proposal: Proposal): Normalized {
  const args = {
    currentReplicas: p.input.currentReplicas,
    desiredReplicas: proposal.replicas,
    minReplicas: p.min,
    maxReplicas: p.max,
    history: p.input.history ?? EMPTY_HISTORY,
    now: p.now,
  };
  const behavior = p.input.autoscaler.spec.behavior;
  return behavior
    ? normalizeWithBehavior(args, behavior, p.downscaleSeconds)
    : normalizeLegacy(args, p.downscaleSeconds);
}

function fromMetrics(p: Pass): SeedAutoscalerDecision {
  const proposal = computeReplicas(p);
  if ('error' in proposal) return failure(p, 'FailedComputeMetricsReplicas', proposal.error);
  const n = normalize(p, proposal);
  condition(p, 'AbleToScale', 'True', n.stabilization.reason, n.stabilization.message);
  condition(p, 'ScalingLimited', n.limit.limited ? 'True' : 'False', n.limit.reason, n.limit.message);
  const reason =
    n.replicas > p.input.currentReplicas ? `${proposal.metric} above target` : 'All metrics below target';
  return outcome(p, n.replicas, reason, n.history);
}

function invalidSpec(min: number, max: number): string | undefined {
  if (!Number.isInteger(min) || min < 1) return `invalid spec: minReplicas must be at least 1, got ${min}`;
  if (!Number.isInteger(max) || max < min)
    return `invalid spec: maxReplicas must be at least minReplicas (${min}), got ${max}`;
  return undefined;
}

function startPass(input: SeedAutoscalerInput, options: SeedAutoscalerOptions): Pass {
  const spec = input.autoscaler.spec;
  return {
    input,
    now: input.now.getTime(),
    time: formatTime(input.now),
    tolerance: options.tolerance ?? DEFAULT_TOLERANCE,
    downscaleSeconds: options.downscaleStabilizationSeconds ?? DEFAULT_DOWNSCALE_STABILIZATION_SECONDS,
    min: spec.minReplicas ?? 1,
    max: spec.maxReplicas,
    conditions: [...(input.autoscaler.status?.conditions ?? [])],
    metrics: [],
  };
}

const SCALING_DISABLED = 'scaling is disabled since the replica count of the target is zero';

/** What one pass over a SeedAutoscaler decides. */
export function decideSeedAutoscaler(
  input: SeedAutoscalerInput,
  options: SeedAutoscalerOptions = {},
): SeedAutoscalerDecision {
  const p = startPass(input, options);
  const history = input.history ?? EMPTY_HISTORY;
  const invalid = invalidSpec(p.min, p.max);
  if (invalid) return failure(p, 'InvalidSpec', invalid);
  const current = input.currentReplicas;
  if (current === 0) {
    condition(p, 'ScalingActive', 'False', 'ScalingDisabled', SCALING_DISABLED);
    return outcome(p, 0, SCALING_DISABLED, history);
  }
  if (current > p.max) return outcome(p, p.max, 'Current number of replicas above Spec.MaxReplicas', history);
  if (current < p.min) return outcome(p, p.min, 'Current number of replicas below Spec.MinReplicas', history);
  return fromMetrics(p);
}
