/**
 * The weeder's decisions (specs/dependency-watchdog.md "Weeder"), pure. A service named in
 * `servicesAndDependantSelectors` recovers when its EndpointSlice (label
 * `kubernetes.io/service-name`) becomes ready: on create when ready, on update only on a
 * not-ready → ready transition. Functions get no "old object" with an event, so the previous
 * readiness is state between invocations (Redis): `decideRecovery` takes it as input. A recovery
 * opens (or restarts) a `watchDuration` window in which every pod of the namespace matching one of
 * the service's `podSelectors` that is in CrashLoopBackOff (and not already being deleted) is
 * deleted — at once for pods already crash-looping, and by listing again every `resweepInterval`
 * (a requeue) for those that start later. Upstream (gardener/dependency-watchdog
 * internal/weeder/weeder.go) watches Endpoints and, for the window, the Pods; here the source sends
 * EndpointSlices only (Endpoints is deprecated from Kubernetes 1.33) and the pods are listed.
 */
import { matchesLabelSelector, type LabelSelector } from '@landscape/apimachinery';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const CRASH_LOOP_BACK_OFF = 'CrashLoopBackOff';

export interface EndpointSliceLike {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  endpoints?: Array<{ conditions?: { ready?: boolean | null } }> | null;
}

export interface PodLike {
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string | null;
  };
  status?: {
    containerStatuses?: Array<{ state?: { waiting?: { reason?: string } | null } | null }> | null;
    initContainerStatuses?: Array<{ state?: { waiting?: { reason?: string } | null } | null }> | null;
  };
}

/** The service an EndpointSlice belongs to (its label). */
export function serviceOfSlice(slice: EndpointSliceLike): string | undefined {
  return slice.metadata?.labels?.[SERVICE_NAME_LABEL];
}

/** Ready: at least one endpoint, and every endpoint `conditions.ready == true`. */
export function isSliceReady(slice: EndpointSliceLike): boolean {
  const endpoints = slice.endpoints ?? [];
  return endpoints.length > 0 && endpoints.every((e) => e.conditions?.ready === true);
}

export const RECOVERY_ACTIONS = ['add', 'update', 'delete', 'resync'] as const;
export type RecoveryAction = (typeof RECOVERY_ACTIONS)[number];

/**
 * Did the service just recover? `previous`: the readiness remembered from the last event of the
 * object (undefined: nothing remembered). Add (create, or the source's initial add) when ready →
 * yes, as upstream's informer reacts to its initial list; update → only not-ready → ready (with
 * nothing remembered the transition is not guessed here; decideReadiness counts such an update as
 * an add); delete and resync never open a window.
 */
export function decideRecovery(
  action: RecoveryAction,
  previous: boolean | undefined,
  ready: boolean,
): boolean {
  if (!ready) return false;
  if (action === 'add') return true;
  if (action === 'update') return previous === false;
  return false;
}

/** The readiness remembered per EndpointSlice (Redis, between invocations). */
export interface RememberedReadiness {
  /** resourceVersion of the object the readiness was read from (undefined: not a number). */
  rv?: number;
  ready: boolean;
  /** This ready state's recovery was acted on (or cannot be known): a late not-ready opens nothing. */
  handled: boolean;
}

export interface ReadinessDecision {
  /** Open the window and sweep. */
  recovery: boolean;
  /** What to remember: an object to write, null to forget, undefined to leave it as it is. */
  next?: RememberedReadiness | null;
}

/** How the event's resourceVersion compares with the remembered one ('newer' when unknown). */
function orderOf(
  remembered: RememberedReadiness | undefined,
  rv: number | undefined,
): 'same' | 'older' | 'newer' {
  if (remembered?.rv === undefined || rv === undefined) return 'newer';
  if (rv === remembered.rv) return 'same';
  return rv < remembered.rv ? 'older' : 'newer';
}

/**
 * The readiness of one event against what is remembered, whatever order the events arrive in
 * (a broker delivers concurrently and may reorder): an event older than the remembered state
 * (a lower resourceVersion) changes nothing, except that a late not-ready before a remembered,
 * not yet handled ready proves the not-ready → ready transition: that is the recovery. Newer
 * events follow `decideRecovery`, an update with nothing remembered as an add. Delete forgets.
 */
export function decideReadiness(
  remembered: RememberedReadiness | undefined,
  event: { action: RecoveryAction; rv?: number; ready: boolean },
): ReadinessDecision {
  if (event.action === 'delete') return { recovery: false, next: null };
  const order = orderOf(remembered, event.rv);
  // the same object state delivered again: nothing new (a failed sweep is redone by the caller)
  if (order === 'same') return { recovery: false };
  if (order === 'older') {
    const proves = !event.ready && remembered!.ready && !remembered!.handled;
    return proves ? { recovery: true, next: { ...remembered!, handled: true } } : { recovery: false };
  }
  // nothing remembered (Redis lost it, or the event is the first seen): a ready object counts as
  // an add, as upstream's weeder after a restart, whose informer lists every ready endpoint again
  const action = remembered === undefined && event.action === 'update' ? 'add' : event.action;
  const recovery = decideRecovery(action, remembered?.ready, event.ready);
  return { recovery, next: { rv: event.rv, ready: event.ready, handled: recovery } };
}

function waitingReasons(pod: PodLike): string[] {
  const all = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  return all.map((c) => c.state?.waiting?.reason ?? '').filter((r) => r !== '');
}

/** A pod the weeder deletes: some container waits in CrashLoopBackOff, and it is not being deleted. */
export function isCrashLooping(pod: PodLike): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  return waitingReasons(pod).includes(CRASH_LOOP_BACK_OFF);
}

/** The pods to delete: crash-looping and matching any of the selectors. */
export function podsToWeed<P extends PodLike>(pods: readonly P[], selectors: readonly LabelSelector[]): P[] {
  return pods.filter(
    (p) => isCrashLooping(p) && selectors.some((s) => matchesLabelSelector(s, p.metadata?.labels)),
  );
}

/** Bounds of the time between two sweeps of an open window. */
export const RESWEEP_MIN_MS = 1_000;
export const RESWEEP_MAX_MS = 30_000;

/** How often an open window lists its dependants again: a tenth of it, within 1 s … 30 s. */
export function resweepInterval(watchDurationMs: number): number {
  return Math.min(RESWEEP_MAX_MS, Math.max(RESWEEP_MIN_MS, Math.round(watchDurationMs / 10)));
}

/**
 * When to list the dependants of a window again (the requeue's due time), or undefined when the
 * window is closed or closes before then. `until`: the window's end (undefined: no window).
 */
export function nextSweepAt(
  now: number,
  until: number | undefined,
  watchDurationMs: number,
): number | undefined {
  if (until === undefined || until <= now) return undefined;
  const next = now + resweepInterval(watchDurationMs);
  return next < until ? next : undefined;
}
