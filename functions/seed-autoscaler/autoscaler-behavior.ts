/**
 * SeedAutoscaler normalization, pure: the Kubernetes HPA's stabilization and rate limits
 * (pkg/controller/podautoscaler/horizontal.go), with the controller's in-memory
 * recommendations and scale events passed in and returned as a `ScaleHistory` (kept in the
 * autoscaler's status or in Redis by the caller). Times are ms since the epoch.
 *
 * Without `behavior` (upstream's normalizeDesiredReplicas): the highest recommendation of the
 * downscale stabilization window (5 min) wins; scale-up is limited to max(2 × current, 4); the
 * result is clamped to [min, max]. With `behavior` (normalizeDesiredReplicasWithBehaviors): the
 * recommendation is held between the lowest of the scale-up window and the highest of the
 * scale-down window, then limited by the policies (Pods / Percent per period, selected by
 * Max / Min / Disabled) over the scale events of each policy's period, and clamped to [min, max].
 * Unset fields take the API defaults: scale-up window 0 s, policies 4 Pods and 100 Percent per 15 s,
 * Max; scale-down window 300 s, 100 Percent per 15 s, Max.
 *
 * Where the product differs: entries older than every window or period are dropped from the
 * history (upstream overwrites one stale entry per pass; the result is the same).
 */
import type { ScalingRules, SeedAutoscalerBehavior } from '../../shared/api/seedautoscaler.js';

export {
  SCALING_POLICY_TYPES,
  SELECT_POLICIES,
  isScalingPolicyType,
  isSelectPolicy,
} from '../../shared/api/seedautoscaler.js';
export type {
  ScalingPolicy,
  ScalingPolicyType,
  ScalingRules,
  SeedAutoscalerBehavior,
  SelectPolicy,
} from '../../shared/api/seedautoscaler.js';

export type FilledRules = Required<ScalingRules>;

export interface TimestampedRecommendation {
  replicas: number;
  at: number;
}

export interface TimestampedScaleEvent {
  /** Replicas added (scale-up) or removed (scale-down), positive. */
  change: number;
  at: number;
}

/** What the HPA keeps in memory per autoscaler. */
export interface ScaleHistory {
  recommendations: TimestampedRecommendation[];
  scaleUpEvents: TimestampedScaleEvent[];
  scaleDownEvents: TimestampedScaleEvent[];
}

export const EMPTY_HISTORY: ScaleHistory = { recommendations: [], scaleUpEvents: [], scaleDownEvents: [] };

/** The HPA controller's --horizontal-pod-autoscaler-downscale-stabilization default. */
export const DEFAULT_DOWNSCALE_STABILIZATION_SECONDS = 300;
/** Without behavior: scale up to at most max(factor × current, minimum). */
export const SCALE_UP_LIMIT_FACTOR = 2;
export const SCALE_UP_LIMIT_MINIMUM = 4;

export const DEFAULT_SCALE_UP_RULES: FilledRules = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};

export const DEFAULT_SCALE_DOWN_RULES: FilledRules = {
  stabilizationWindowSeconds: DEFAULT_DOWNSCALE_STABILIZATION_SECONDS,
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
};

/** Unset fields from the defaults (upstream's GenerateHPAScaleUpRules / ...ScaleDownRules). */
export function fillRules(rules: ScalingRules | undefined, defaults: FilledRules): FilledRules {
  return {
    stabilizationWindowSeconds: rules?.stabilizationWindowSeconds ?? defaults.stabilizationWindowSeconds,
    selectPolicy: rules?.selectPolicy ?? defaults.selectPolicy,
    policies: rules?.policies?.length ? rules.policies : defaults.policies,
  };
}

export interface NormalizeArgs {
  currentReplicas: number;
  /** The metrics' proposal, before stabilization. */
  desiredReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  history: ScaleHistory;
  now: number;
}

export interface Normalized {
  replicas: number;
  /** The history with this pass's recommendation recorded. */
  history: ScaleHistory;
  /** AbleToScale reason/message (stabilization). */
  stabilization: { reason: string; message: string };
  /** ScalingLimited: limited? reason/message. */
  limit: { limited: boolean; reason: string; message: string };
}

const WITHIN_RANGE = {
  reason: 'DesiredWithinRange',
  message: 'the desired count is within the acceptable range',
};
const TOO_FEW = {
  reason: 'TooFewReplicas',
  message: 'the desired replica count is less than the minimum replica count',
};
const TOO_MANY = {
  reason: 'TooManyReplicas',
  message: 'the desired replica count is more than the maximum replica count',
};
const UP_LIMIT = {
  reason: 'ScaleUpLimit',
  message: 'the desired replica count is increasing faster than the maximum scale rate',
};
const DOWN_LIMIT = {
  reason: 'ScaleDownLimit',
  message: 'the desired replica count is decreasing faster than the maximum scale rate',
};
const READY = { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const UP_STABILIZED = {
  reason: 'ScaleUpStabilized',
  message: 'recent recommendations were lower than current one, applying the lowest recent recommendation',
};
const DOWN_STABILIZED = {
  reason: 'ScaleDownStabilized',
  message: 'recent recommendations were higher than current one, applying the highest recent recommendation',
};

function record(history: ScaleHistory, replicas: number, now: number, keepMs: number): ScaleHistory {
  const recent = history.recommendations.filter((r) => r.at >= now - keepMs);
  return { ...history, recommendations: [...recent, { replicas, at: now }] };
}

/** Upstream's convertDesiredReplicasWithRules. */
function clampWithRules(
  current: number,
  desired: number,
  min: number,
  max: number,
): Omit<Normalized, 'history' | 'stabilization'> {
  const scaleUpLimit = Math.trunc(Math.max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM));
  const [maximum, maxReason] = max > scaleUpLimit ? [scaleUpLimit, UP_LIMIT] : [max, TOO_MANY];
  if (desired < min) return { replicas: min, limit: { limited: true, ...TOO_FEW } };
  if (desired > maximum) return { replicas: maximum, limit: { limited: true, ...maxReason } };
  return { replicas: desired, limit: { limited: false, ...WITHIN_RANGE } };
}

/** Without behavior: downscale stabilization, scale-up limit, clamp. */
export function normalizeLegacy(args: NormalizeArgs, downscaleStabilizationSeconds: number): Normalized {
  const windowMs = downscaleStabilizationSeconds * 1000;
  const cutoff = args.now - windowMs;
  const inWindow = args.history.recommendations.filter((r) => r.at >= cutoff).map((r) => r.replicas);
  const stabilized = Math.max(args.desiredReplicas, ...inWindow);
  const clamped = clampWithRules(args.currentReplicas, stabilized, args.minReplicas, args.maxReplicas);
  return {
    ...clamped,
    history: record(args.history, args.desiredReplicas, args.now, windowMs),
    stabilization: stabilized !== args.desiredReplicas ? DOWN_STABILIZED : READY,
  };
}

function changeInPeriod(
  events: readonly TimestampedScaleEvent[],
  periodSeconds: number,
  now: number,
): number {
  const cutoff = now - periodSeconds * 1000;
  return events.filter((e) => e.at > cutoff).reduce((sum, e) => sum + e.change, 0);
}

/** Upstream's calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors. */
export function rateLimit(
  direction: 'up' | 'down',
  current: number,
  history: ScaleHistory,
  rules: FilledRules,
  now: number,
): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const proposals = rules.policies.map((policy) => {
    const added = changeInPeriod(history.scaleUpEvents, policy.periodSeconds, now);
    const deleted = changeInPeriod(history.scaleDownEvents, policy.periodSeconds, now);
    const start = current - added + deleted;
    if (direction === 'up') {
      return policy.type === 'Pods' ? start + policy.value : Math.ceil(start * (1 + policy.value / 100));
    }
    return policy.type === 'Pods' ? start - policy.value : Math.trunc(start * (1 - policy.value / 100));
  });
  const largest = (direction === 'up') === (rules.selectPolicy === 'Max');
  return largest ? Math.max(...proposals) : Math.min(...proposals);
}

interface Stabilized {
  replicas: number;
  history: ScaleHistory;
  stabilization: { reason: string; message: string };
}

/** Upstream's stabilizeRecommendationWithBehaviors. */
function stabilize(args: NormalizeArgs, up: FilledRules, down: FilledRules): Stabilized {
  const upCutoff = args.now - up.stabilizationWindowSeconds * 1000;
  const downCutoff = args.now - down.stabilizationWindowSeconds * 1000;
  const recs = args.history.recommendations;
  const upRec = Math.min(args.desiredReplicas, ...recs.filter((r) => r.at > upCutoff).map((r) => r.replicas));
  const downRec = Math.max(
    args.desiredReplicas,
    ...recs.filter((r) => r.at > downCutoff).map((r) => r.replicas),
  );
  const replicas = Math.min(Math.max(args.currentReplicas, upRec), downRec);
  const keepMs = Math.max(up.stabilizationWindowSeconds, down.stabilizationWindowSeconds) * 1000;
  const label = args.desiredReplicas >= args.currentReplicas ? UP_STABILIZED : DOWN_STABILIZED;
  return {
    replicas,
    history: record(args.history, args.desiredReplicas, args.now, keepMs),
    stabilization: replicas !== args.desiredReplicas ? label : READY,
  };
}

/** Upstream's convertDesiredReplicasWithBehaviorRate. */
function limitWithBehavior(
  args: NormalizeArgs,
  desired: number,
  up: FilledRules,
  down: FilledRules,
): Omit<Normalized, 'history' | 'stabilization'> {
  const current = args.currentReplicas;
  if (desired > current) {
    const limit = Math.max(rateLimit('up', current, args.history, up, args.now), current);
    const [maximum, why] = args.maxReplicas > limit ? [limit, UP_LIMIT] : [args.maxReplicas, TOO_MANY];
    if (desired > maximum) return { replicas: maximum, limit: { limited: true, ...why } };
  } else if (desired < current) {
    const limit = Math.min(rateLimit('down', current, args.history, down, args.now), current);
    const [minimum, why] = args.minReplicas < limit ? [limit, DOWN_LIMIT] : [args.minReplicas, TOO_FEW];
    if (desired < minimum) return { replicas: minimum, limit: { limited: true, ...why } };
  }
  return { replicas: desired, limit: { limited: false, ...WITHIN_RANGE } };
}

/** With behavior: stabilization windows, then policies, then [min, max]. */
export function normalizeWithBehavior(
  args: NormalizeArgs,
  behavior: SeedAutoscalerBehavior,
  downscaleStabilizationSeconds: number,
): Normalized {
  const up = fillRules(behavior.scaleUp, DEFAULT_SCALE_UP_RULES);
  const downDefaults = {
    ...DEFAULT_SCALE_DOWN_RULES,
    stabilizationWindowSeconds: downscaleStabilizationSeconds,
  };
  const down = fillRules(behavior.scaleDown, downDefaults);
  const stabilized = stabilize(args, up, down);
  return { ...stabilized, ...limitWithBehavior(args, stabilized.replicas, up, down) };
}

function longestPeriodMs(rules: FilledRules): number {
  return Math.max(0, ...rules.policies.map((p) => p.periodSeconds)) * 1000;
}

/** Upstream's storeScaleEvent (behavior only): remember a rescale for the policies' periods. */
export function recordScaleEvent(
  history: ScaleHistory,
  behavior: SeedAutoscalerBehavior,
  previous: number,
  next: number,
  now: number,
): ScaleHistory {
  if (next === previous) return history;
  const up = fillRules(behavior.scaleUp, DEFAULT_SCALE_UP_RULES);
  const down = fillRules(behavior.scaleDown, DEFAULT_SCALE_DOWN_RULES);
  const keep = (events: readonly TimestampedScaleEvent[], rules: FilledRules): TimestampedScaleEvent[] =>
    events.filter((e) => e.at > now - longestPeriodMs(rules));
  const scaleUpEvents = keep(history.scaleUpEvents, up);
  const scaleDownEvents = keep(history.scaleDownEvents, down);
  if (next > previous) scaleUpEvents.push({ change: next - previous, at: now });
  else scaleDownEvents.push({ change: previous - next, at: now });
  return { ...history, scaleUpEvents, scaleDownEvents };
}
