/**
 * The weeder's decisions (specs/dependency-watchdog.md "Weeder"), pure. A service named in
 * `servicesAndDependantSelectors` recovers when its EndpointSlice (label
 * `kubernetes.io/service-name`) or Endpoints becomes ready: on create when ready, on update only
 * on a not-ready → ready transition. Functions get no "old object" with an event, so the previous
 * readiness is state between invocations (Redis): `decideRecovery` takes it as input. A recovery
 * opens (or restarts) a `watchDuration` window in which every pod of the namespace matching one of
 * the service's `podSelectors` that is in CrashLoopBackOff (and not already being deleted) is
 * deleted — at once for pods already crash-looping, and on Pod events for those that start later.
 */
import { matchesSelector } from '../../triggers/apiserver-source/selector.js';
import type { LabelSelector } from '../../triggers/apiserver-source/types.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const CRASH_LOOP_BACK_OFF = 'CrashLoopBackOff';

export interface EndpointSliceLike {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  endpoints?: Array<{ conditions?: { ready?: boolean | null } }> | null;
}

export interface EndpointsLike {
  metadata?: { name?: string; namespace?: string };
  subsets?: Array<{ addresses?: unknown[] | null; notReadyAddresses?: unknown[] | null }> | null;
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

/** The service an EndpointSlice belongs to (its label); Endpoints are named after the service. */
export function serviceOfSlice(slice: EndpointSliceLike): string | undefined {
  return slice.metadata?.labels?.[SERVICE_NAME_LABEL];
}

/** Ready: at least one endpoint, and every endpoint `conditions.ready == true`. */
export function isSliceReady(slice: EndpointSliceLike): boolean {
  const endpoints = slice.endpoints ?? [];
  return endpoints.length > 0 && endpoints.every((e) => e.conditions?.ready === true);
}

/** Ready: at least one ready address and no not-ready address in any subset. */
export function isEndpointsReady(endpoints: EndpointsLike): boolean {
  const subsets = endpoints.subsets ?? [];
  const ready = subsets.reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  const notReady = subsets.reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);
  return ready > 0 && notReady === 0;
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

/** The readiness remembered per EndpointSlice / Endpoints (Redis, between invocations). */
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
    (p) => isCrashLooping(p) && selectors.some((s) => matchesSelector(s, p.metadata?.labels)),
  );
}

/** A window: until when (ms since epoch) pods of `service`'s selectors are weeded in `namespace`. */
export interface WeedWindow {
  namespace: string;
  service: string;
  until: number;
}

/** The windows open at `now`. */
export function openWindows(windows: readonly WeedWindow[], now: number): WeedWindow[] {
  return windows.filter((w) => w.until > now);
}

/** Whether a Pod event should delete the pod: crash-looping and selected by a service with an open window. */
export function decidePodEvent(
  pod: PodLike,
  windows: readonly WeedWindow[],
  selectorsOf: (service: string) => readonly LabelSelector[] | undefined,
  now: number,
): { delete: boolean; services: string[] } {
  if (!isCrashLooping(pod)) return { delete: false, services: [] };
  const services = openWindows(windows, now)
    .filter((w) => w.namespace === pod.metadata?.namespace)
    .map((w) => w.service)
    .filter((svc) => (selectorsOf(svc) ?? []).some((s) => matchesSelector(s, pod.metadata?.labels)));
  return { delete: services.length > 0, services };
}
