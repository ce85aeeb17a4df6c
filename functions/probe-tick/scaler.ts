/**
 * The dependency watchdog's level-ordered scaler, pure (specs/dependency-watchdog.md, "Scaling
 * dependents").
 *
 * planScaling() turns the dependents of one direction and what the adapter observed about them
 * (metadata found?, annotations, scale subresource spec.replicas) into ordered levels of
 * per-resource plans; scaler-run.ts's nextStep() says what to run next. No I/O; the adapter
 * sleeps (or requeues), calls the API and reports back.
 */
import { isOneOf } from '@landscape/apimachinery';
import { DependencyWatchdogAnnotations, isGoBoolTrue } from '../../shared/api/dependency-watchdog.js';

export const SCALE_DIRECTIONS = ['up', 'down'] as const;
export type ScaleDirection = (typeof SCALE_DIRECTIONS)[number];
export const isScaleDirection: (value: unknown) => value is ScaleDirection = isOneOf(SCALE_DIRECTIONS);

/** Per-resource attempts (upstream's defaultMaxResourceScalingAttempts). */
export const MAX_SCALE_ATTEMPTS = 3;
/** Pause between attempts (upstream's defaultScaleResourceBackoff). */
export const SCALE_RETRY_BACKOFF_MS = 100;
/** How long to poll readyReplicas, and how often (upstream's resourceCheckTimeout / interval). */
export const READY_CHECK_TIMEOUT_MS = 5_000;
export const READY_CHECK_INTERVAL_MS = 1_000;
/** Scale subresource timeout when the config sets none. */
/** Replicas on scale-up when the `replicas` annotation is absent. */
export const DEFAULT_SCALE_UP_REPLICAS = 1;
const MAX_INT32 = 2_147_483_647;

/** One dependent in one direction (the config's scaleUp or scaleDown of a dependentResourceInfo). */
export interface ScalableResource {
  apiVersion?: string;
  kind: string;
  name: string;
  level: number;
  optional: boolean;
  initialDelayMs: number;
  timeoutMs: number;
}

/** What the adapter read about a resource: metadata (found? annotations) and the scale subresource. */
export interface ObservedResource {
  found: boolean;
  annotations?: Readonly<Record<string, string>>;
  /** Scale subresource `spec.replicas`. */
  replicas?: number;
  /** `status.readyReplicas` (informational; the wait is the adapter's poll). */
  readyReplicas?: number;
}

/** Key of a resource in `observed` and in results: `Kind/name`. */
export function resourceKey(r: Pick<ScalableResource, 'kind' | 'name'>): string {
  return `${r.kind}/${r.name}`;
}

/** An ordered step on one resource. Annotation values `null` remove the key (JSON merge patch). */
export type ScaleOperation =
  | { op: 'patch-annotations'; annotations: Record<string, string | null> }
  | { op: 'scale'; replicas: number; timeoutMs: number };

export interface ReadyWait {
  /** Scale-up: readyReplicas >= 1; scale-down: readyReplicas == 0. */
  minTargetReplicas: number;
  timeoutMs: number;
  intervalMs: number;
}

export const SKIP_REASONS = ['optional-not-found', 'ignore-scaling', 'already-scaled'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface ResourcePlan {
  key: string;
  resource: ScalableResource;
  /** scale: operations then wait; skip: cleanup operations (maybe none), wait when already-scaled; error: nothing runs. */
  action: 'scale' | 'skip' | 'error';
  skipReason?: SkipReason;
  operations: ScaleOperation[];
  /** Absent: nothing to wait for. */
  wait?: ReadyWait;
  error?: string;
  /** Log line as upstream prints it. */
  message: string;
}

export interface LevelPlan {
  level: number;
  resources: ResourcePlan[];
}
export interface ScalePlan {
  direction: ScaleDirection;
  namespace: string;
  levels: LevelPlan[];
}

export const REMOVE_MELTDOWN_ANNOTATIONS: Readonly<Record<string, null>> = {
  [DependencyWatchdogAnnotations.meltdownProtectionActive]: null,
  [DependencyWatchdogAnnotations.replicas]: null,
};

/** Go's strconv.Atoi on a 64-bit platform, as the error text it would give. */
function atoi(value: string): { value: number } | { error: string } {
  if (!/^[+-]?[0-9]+$/.test(value))
    return { error: `strconv.Atoi: parsing ${JSON.stringify(value)}: invalid syntax` };
  const big = BigInt(value);
  if (big > 9223372036854775807n || big < -9223372036854775808n) {
    return { error: `strconv.Atoi: parsing ${JSON.stringify(value)}: value out of range` };
  }
  return { value: Number(big) };
}

/**
 * Target replicas of a scale-up from the `replicas` annotation: absent → 1; not an integer →
 * upstream's error; outside 1..2^31-1 → error too (upstream's docs: "should always be greater than 0").
 */
export function scaleUpReplicas(
  annotations: Readonly<Record<string, string>>,
): { replicas: number } | { error: string } {
  const key = DependencyWatchdogAnnotations.replicas;
  if (!Object.prototype.hasOwnProperty.call(annotations, key)) return { replicas: DEFAULT_SCALE_UP_REPLICAS };
  const raw = annotations[key] ?? '';
  const parsed = atoi(raw);
  const prefix = `unexpected and invalid replicasStr set as value for annotation: ${key} for resource, Err: `;
  if ('error' in parsed) return { error: prefix + parsed.error };
  if (parsed.value < 1 || parsed.value > MAX_INT32) {
    return { error: `${prefix}replicas ${raw} out of range, must be between 1 and ${MAX_INT32}` };
  }
  return { replicas: parsed.value };
}

/** Kubernetes' NotFound text for a resource: `deployments.apps "name" not found`. */
export function notFoundMessage(r: Pick<ScalableResource, 'apiVersion' | 'kind' | 'name'>): string {
  const group = r.apiVersion?.includes('/') ? r.apiVersion.split('/')[0] : '';
  const plural = `${r.kind.toLowerCase()}s`;
  return `${group ? `${plural}.${group}` : plural} ${JSON.stringify(r.name)} not found`;
}

export function readyWait(direction: ScaleDirection): ReadyWait {
  return {
    minTargetReplicas: direction === 'up' ? 1 : 0,
    timeoutMs: READY_CHECK_TIMEOUT_MS,
    intervalMs: READY_CHECK_INTERVAL_MS,
  };
}

/** Whether readyReplicas reached the direction's target (up: >= 1; down: == 0). */
export function minTargetReplicasReached(
  direction: ScaleDirection,
  readyReplicas: number | undefined,
): boolean {
  const ready = readyReplicas ?? 0;
  return direction === 'up' ? ready >= 1 : ready === 0;
}

/** Upstream's error when the ready wait times out. */
export function waitTimeoutMessage(namespace: string, name: string, minTargetReplicas: number): string {
  return `timed out waiting for {namespace: ${namespace}, resource: ${name}} to reach minTargetReplicas ${minTargetReplicas}`;
}

function hasKey(annotations: Readonly<Record<string, string>>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(annotations, key);
}

function skip(
  key: string,
  resource: ScalableResource,
  reason: SkipReason,
  message: string,
  operations: ScaleOperation[] = [],
  wait?: ReadyWait,
): ResourcePlan {
  return {
    key,
    resource,
    action: 'skip',
    skipReason: reason,
    operations,
    ...(wait ? { wait } : {}),
    message,
  };
}

function planAtTarget(
  direction: ScaleDirection,
  key: string,
  resource: ScalableResource,
  annotations: Readonly<Record<string, string>>,
): ResourcePlan {
  if (direction === 'down') {
    return skip(
      key,
      resource,
      'already-scaled',
      'Skipping scale-down for resource as current spec replicas == 0',
      [],
      readyWait('down'),
    );
  }
  const leftover = hasKey(annotations, DependencyWatchdogAnnotations.meltdownProtectionActive);
  return skip(
    key,
    resource,
    'already-scaled',
    leftover
      ? 'Removing leftover meltdown protection annotation from last scale up operation'
      : 'Skipping scale-up for resource as current spec replicas > 0',
    leftover ? [{ op: 'patch-annotations', annotations: { ...REMOVE_MELTDOWN_ANNOTATIONS } }] : [],
    readyWait('up'),
  );
}

function planScale(
  direction: ScaleDirection,
  key: string,
  resource: ScalableResource,
  obs: ObservedResource,
): ResourcePlan {
  const annotations = obs.annotations ?? {};
  const current = obs.replicas ?? 0;
  const atTarget = direction === 'up' ? current !== 0 : current === 0;
  if (atTarget) return planAtTarget(direction, key, resource, annotations);
  if (direction === 'down') {
    const record = {
      [DependencyWatchdogAnnotations.replicas]: String(current),
      [DependencyWatchdogAnnotations.meltdownProtectionActive]: '',
    };
    return {
      key,
      resource,
      action: 'scale',
      operations: [
        { op: 'patch-annotations', annotations: record },
        { op: 'scale', replicas: 0, timeoutMs: resource.timeoutMs },
      ],
      wait: readyWait('down'),
      message: 'Scaling kubernetes resource',
    };
  }
  const target = scaleUpReplicas(annotations);
  if ('error' in target)
    return { key, resource, action: 'error', operations: [], error: target.error, message: target.error };
  return {
    key,
    resource,
    action: 'scale',
    operations: [
      { op: 'scale', replicas: target.replicas, timeoutMs: resource.timeoutMs },
      { op: 'patch-annotations', annotations: { ...REMOVE_MELTDOWN_ANNOTATIONS } },
    ],
    wait: readyWait('up'),
    message: 'Scaling kubernetes resource',
  };
}

/** The plan for one resource, from what was observed just before scaling it. */
export function planResource(
  direction: ScaleDirection,
  resource: ScalableResource,
  observed: ObservedResource | undefined,
): ResourcePlan {
  const key = resourceKey(resource);
  if (observed === undefined || !observed.found) {
    if (resource.optional) {
      return skip(
        key,
        resource,
        'optional-not-found',
        'Resource not found. Ignoring this resource as its existence is marked as optional',
      );
    }
    const error = notFoundMessage(resource);
    return {
      key,
      resource,
      action: 'error',
      operations: [],
      error,
      message: 'Error trying to get annotations for resource',
    };
  }
  const annotations = observed.annotations ?? {};
  if (isGoBoolTrue(annotations[DependencyWatchdogAnnotations.ignoreScaling])) {
    const leftover = hasKey(annotations, DependencyWatchdogAnnotations.meltdownProtectionActive);
    return skip(
      key,
      resource,
      'ignore-scaling',
      'Scaling ignored due to explicit instruction via an annotation',
      leftover ? [{ op: 'patch-annotations', annotations: { ...REMOVE_MELTDOWN_ANNOTATIONS } }] : [],
    );
  }
  return planScale(direction, key, resource, observed);
}

/** Levels ascending; same level keeps config order (and runs in parallel). */
export function orderLevels<T extends { level: number }>(
  resources: readonly T[],
): { level: number; resources: T[] }[] {
  const levels = [...new Set(resources.map((r) => r.level))].sort((a, b) => a - b);
  return levels.map((level) => ({ level, resources: resources.filter((r) => r.level === level) }));
}

export interface PlanScalingInput {
  direction: ScaleDirection;
  namespace: string;
  /** Only dependents that have this direction's scale info. */
  resources: readonly ScalableResource[];
  /** By resourceKey(). Absent entries count as not found. */
  observed: Readonly<Record<string, ObservedResource>>;
}

export function planScaling(input: PlanScalingInput): ScalePlan {
  return {
    direction: input.direction,
    namespace: input.namespace,
    levels: orderLevels(input.resources).map(({ level, resources }) => ({
      level,
      resources: resources.map((r) => planResource(input.direction, r, input.observed[resourceKey(r)])),
    })),
  };
}
