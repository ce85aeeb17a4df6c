/**
 * The activator's scaling decision (pure): how many replicas a function needs for what is in
 * flight and queued (Knative's KPA in its simplest form: desired = ⌈(in flight + queued) / target⌉,
 * within min-scale and max-scale), which idle replicas to stop (idle for the window: scale to
 * zero), and which replica takes the next request (least in flight, under containerConcurrency).
 */

export const REPLICA_STATES = ['starting', 'ready', 'stopping'] as const;
export type ReplicaState = (typeof REPLICA_STATES)[number];

export interface ReplicaView {
  id: string;
  state: ReplicaState;
  inFlight: number;
  /** When in-flight last dropped to 0 (or the replica became ready), ms since the epoch. */
  idleSince: number;
}

export interface ScaleLimits {
  /** 0: no hard limit per replica. */
  containerConcurrency: number;
  /** 0: no limit (the activator's own cap applies). */
  maxScale: number;
  minScale: number;
  target: number;
  /** Idle time after which a replica is stopped. */
  idleMs: number;
  /** Cap when maxScale is 0. */
  localCap: number;
}

export interface ScaleInput {
  queued: number;
  replicas: readonly ReplicaView[];
  now: number;
}

export interface ScaleDecision {
  desired: number;
  spawn: number;
  stop: string[];
}

/** Requests one replica takes before another is wanted. */
export function perReplica(l: ScaleLimits): number {
  return l.containerConcurrency > 0 ? Math.min(l.containerConcurrency, l.target) : l.target;
}

export function desiredReplicas(inFlight: number, queued: number, l: ScaleLimits): number {
  const wanted = Math.ceil((inFlight + queued) / Math.max(1, perReplica(l)));
  const cap = l.maxScale > 0 ? l.maxScale : l.localCap;
  return Math.min(cap, Math.max(l.minScale, wanted));
}

export function decideScale(input: ScaleInput, l: ScaleLimits): ScaleDecision {
  const alive = input.replicas.filter((r) => r.state !== 'stopping');
  const inFlight = alive.reduce((n, r) => n + r.inFlight, 0);
  const desired = desiredReplicas(inFlight, input.queued, l);
  const spawn = Math.max(0, desired - alive.length);
  if (spawn > 0 || input.queued > 0) return { desired, spawn, stop: [] };
  const idle = alive
    .filter((r) => r.state === 'ready' && r.inFlight === 0 && input.now - r.idleSince >= l.idleMs)
    .sort((a, b) => a.idleSince - b.idleSince);
  const removable = Math.max(0, alive.length - Math.max(desired, l.minScale));
  return { desired, spawn: 0, stop: idle.slice(0, removable).map((r) => r.id) };
}

/**
 * When the next idle window ends (ms since the epoch): the earliest `idleSince + idleMs` still to
 * come among the ready replicas with nothing in flight; undefined when none is pending, so a pool
 * with no replica (or only busy ones) keeps no timer. A window already over is not waited for:
 * decideScale stopped that replica, or min-scale keeps it, and only a request or an exit (each of
 * which decides again) changes that.
 */
export function nextIdleDeadline(
  replicas: readonly ReplicaView[],
  now: number,
  idleMs: number,
): number | undefined {
  let next: number | undefined;
  for (const r of replicas) {
    if (r.state !== 'ready' || r.inFlight > 0) continue;
    const end = r.idleSince + idleMs;
    if (end > now && (next === undefined || end < next)) next = end;
  }
  return next;
}

/** The ready replica with the fewest requests in flight and room for one more; undefined: none. */
export function pickReplica(
  replicas: readonly ReplicaView[],
  containerConcurrency: number,
): ReplicaView | undefined {
  let best: ReplicaView | undefined;
  for (const r of replicas) {
    if (r.state !== 'ready') continue;
    if (containerConcurrency > 0 && r.inFlight >= containerConcurrency) continue;
    if (best === undefined || r.inFlight < best.inFlight) best = r;
  }
  return best;
}
