/**
 * The dependency watchdog's node-lease probe, pure (specs/dependency-watchdog.md, "One probe").
 *
 * leaseCandidates() applies every candidate rule to what the adapter listed (shoot Nodes and
 * Leases, seed Machines); decideLeaseProbe() turns the candidates into healthy / unhealthy /
 * ignored with the fraction arithmetic; decideBackoff() places the next probe (jittered interval,
 * 10 s back-off after HTTP 429). No I/O; time and randomness come in.
 */
import { isOneOf } from '@landscape/apimachinery';
import { IN_PLACE_UPDATE_CONDITION, MachineAnnotations, MachineLabels } from '../../shared/api/machine.js';
import { NODE_LEASE_NAMESPACE } from '../../shared/api/builtin.js';

/** MCM's default node condition types that mark a node unhealthy (used when a pool sets none). */
export const DEFAULT_UNHEALTHY_NODE_CONDITIONS = [
  'KernelDeadlock',
  'ReadonlyFilesystem',
  'DiskPressure',
  'NetworkUnavailable',
] as const;
/** Node label naming the node's worker pool. */
export const WORKER_POOL_LABEL = 'worker.gardener.cloud/pool';
/** InPlaceUpdate condition reasons that take a node out of the probe. */
export const IN_PLACE_UPDATE_EXCLUDING_REASONS = ['ReadyForUpdate', 'UpdateFailed'] as const;
/** Machine phases that take a node out of the probe. */
export const EXCLUDING_MACHINE_PHASES = ['Failed', 'Terminating'] as const;
/** A lease is expired once `now >= renewTime + 0.75 × kcmNodeMonitorGraceDuration`. */
export const EXPIRY_BUFFER_FRACTION = 0.75;
/** Back-off after an HTTP 429 from any probe call. */
export const THROTTLED_BACKOFF_MS = 10_000;

/** Upstream's probe error codes. */
export const PROBE_ERROR_CODES = [
  'ERR_PROBE_API_SERVER',
  'ERR_SETUP_PROBE_CLIENT',
  'ERR_PROBE_NODE_LEASE',
  'ERR_SCALE_UP',
  'ERR_SCALE_DOWN',
] as const;
export type ProbeErrorCode = (typeof PROBE_ERROR_CODES)[number];
export const isProbeErrorCode: (value: unknown) => value is ProbeErrorCode = isOneOf(PROBE_ERROR_CODES);

/** Upstream's ProbeError text: `Code: X, Message: Y[, Cause: Z]`. */
export function formatProbeError(code: ProbeErrorCode, message: string, cause?: string): string {
  return cause === undefined
    ? `Code: ${code}, Message: ${message}`
    : `Code: ${code}, Message: ${message}, Cause: ${cause}`;
}

// ---- input shapes (structural: client-node models and raw JSON both fit) ----

export interface ProbeNodeCondition {
  type: string;
  status: string;
  reason?: string;
}
export interface ProbeNode {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  status?: { conditions?: readonly ProbeNodeCondition[] };
}
export interface ProbeLease {
  metadata?: { name?: string; namespace?: string };
  /** RFC 3339 string (raw JSON) or Date (client-node models). */
  spec?: { renewTime?: string | Date | null };
}
export interface ProbeMachine {
  metadata?: { name?: string; labels?: Record<string, string> };
  status?: { currentStatus?: { phase?: string } };
}
/** A worker as far as the probe needs it: `spec.provider.workers[]`. */
export interface ProbeWorker {
  name: string;
  machineControllerManagerSettings?: { nodeConditions?: readonly string[] };
}

/**
 * Unhealthy condition types per pool: only pools with `machineControllerManagerSettings` get an
 * entry (their `nodeConditions`, or the default when empty); other pools fall back to the default.
 */
export function unhealthyConditionsByPool(
  workers: readonly ProbeWorker[],
): Readonly<Record<string, readonly string[]>> {
  const byPool: Record<string, readonly string[]> = {};
  for (const worker of workers) {
    const settings = worker.machineControllerManagerSettings;
    if (settings === undefined) continue;
    const configured = settings.nodeConditions ?? [];
    byPool[worker.name] = configured.length > 0 ? [...configured] : [...DEFAULT_UNHEALTHY_NODE_CONDITIONS];
  }
  return byPool;
}

export const NODE_EXCLUSION_REASONS = [
  'not-managed-by-mcm',
  'unhealthy-condition',
  'no-active-machine',
  'in-place-update',
] as const;
export type NodeExclusionReason = (typeof NODE_EXCLUSION_REASONS)[number];

export interface LeaseCandidatesInput {
  nodes: readonly ProbeNode[];
  leases: readonly ProbeLease[];
  machines: readonly ProbeMachine[];
  /** From unhealthyConditionsByPool(shoot.spec.provider.workers). */
  conditionsByPool: Readonly<Record<string, readonly string[]>>;
}
export interface LeaseCandidates {
  /** Leases named after candidate nodes. */
  candidates: ProbeLease[];
  candidateNodes: string[];
  excludedNodes: { node: string; reason: NodeExclusionReason; detail?: string }[];
  /** Leases of no candidate node (orphans, or of excluded nodes): ignored. */
  ignoredLeases: string[];
}

function nodeConditionsFor(
  node: ProbeNode,
  byPool: Readonly<Record<string, readonly string[]>>,
): readonly string[] {
  const pool = node.metadata?.labels?.[WORKER_POOL_LABEL];
  if (pool !== undefined && Object.prototype.hasOwnProperty.call(byPool, pool)) return byPool[pool] ?? [];
  return DEFAULT_UNHEALTHY_NODE_CONDITIONS;
}

function hasActiveMachine(nodeName: string, machines: readonly ProbeMachine[]): boolean {
  return machines.some(
    (m) =>
      m.metadata?.labels?.[MachineLabels.node] === nodeName &&
      !(EXCLUDING_MACHINE_PHASES as readonly (string | undefined)[]).includes(m.status?.currentStatus?.phase),
  );
}

function isUndergoingInPlaceUpdate(node: ProbeNode): boolean {
  return (node.status?.conditions ?? []).some(
    (c) =>
      c.type === IN_PLACE_UPDATE_CONDITION &&
      (IN_PLACE_UPDATE_EXCLUDING_REASONS as readonly (string | undefined)[]).includes(c.reason),
  );
}

/** The reason a node is not a candidate, or undefined when it is one. Rules in upstream's order. */
export function nodeExclusion(
  node: ProbeNode,
  machines: readonly ProbeMachine[],
  conditionsByPool: Readonly<Record<string, readonly string[]>>,
): { reason: NodeExclusionReason; detail?: string } | undefined {
  const annotations = node.metadata?.annotations ?? {};
  if (Object.prototype.hasOwnProperty.call(annotations, MachineAnnotations.notManagedByMcm)) {
    return { reason: 'not-managed-by-mcm' };
  }
  const bad = unhealthyCondition(node, conditionsByPool);
  if (bad !== undefined) return { reason: 'unhealthy-condition', detail: bad };
  if (!hasActiveMachine(node.metadata?.name ?? '', machines)) return { reason: 'no-active-machine' };
  if (isUndergoingInPlaceUpdate(node)) return { reason: 'in-place-update' };
  return undefined;
}

/** The first of the pool's unhealthy condition types that is True on the node. */
function unhealthyCondition(
  node: ProbeNode,
  conditionsByPool: Readonly<Record<string, readonly string[]>>,
): string | undefined {
  const unhealthyTypes = nodeConditionsFor(node, conditionsByPool);
  return (node.status?.conditions ?? []).find((c) => unhealthyTypes.includes(c.type) && c.status === 'True')
    ?.type;
}

function isNodeLease(lease: ProbeLease, candidateNodes: ReadonlySet<string>): boolean {
  const ns = lease.metadata?.namespace;
  return candidateNodes.has(lease.metadata?.name ?? '') && (ns === undefined || ns === NODE_LEASE_NAMESPACE);
}

/** Every candidate rule of the spec; see LeaseCandidates. */
export function leaseCandidates(input: LeaseCandidatesInput): LeaseCandidates {
  const candidateNodes: string[] = [];
  const excludedNodes: LeaseCandidates['excludedNodes'] = [];
  for (const node of input.nodes) {
    const name = node.metadata?.name ?? '';
    const excluded = nodeExclusion(node, input.machines, input.conditionsByPool);
    if (excluded === undefined) candidateNodes.push(name);
    else excludedNodes.push({ node: name, ...excluded });
  }
  const names = new Set(candidateNodes);
  const candidates = input.leases.filter((l) => isNodeLease(l, names));
  const ignoredLeases = input.leases.filter((l) => !isNodeLease(l, names)).map((l) => l.metadata?.name ?? '');
  return { candidates, candidateNodes, excludedNodes, ignoredLeases };
}

/** 0.75 × grace period, in ms (exact: upstream truncates at nanoseconds, which ms inputs never reach). */
export function leaseExpiryBufferMs(nodeMonitorGracePeriodMs: number): number {
  return nodeMonitorGracePeriodMs * EXPIRY_BUFFER_FRACTION;
}

/** `now >= renewTime + 0.75 × grace`. A lease never renewed (no renewTime) counts as expired. */
export function isLeaseExpired(lease: ProbeLease, now: Date, nodeMonitorGracePeriodMs: number): boolean {
  const renew = lease.spec?.renewTime;
  if (renew === undefined || renew === null) return true;
  const renewMs = new Date(renew).getTime();
  if (Number.isNaN(renewMs)) return true;
  return now.getTime() >= renewMs + leaseExpiryBufferMs(nodeMonitorGracePeriodMs);
}

export const LEASE_PROBE_OUTCOMES = ['healthy', 'unhealthy', 'ignored'] as const;
export type LeaseProbeOutcome = (typeof LEASE_PROBE_OUTCOMES)[number];

export interface LeaseProbeInput {
  candidates: readonly ProbeLease[];
  now: Date;
  /** Effective kcmNodeMonitorGraceDuration (the shoot's nodeMonitorGracePeriod, else config). */
  nodeMonitorGracePeriodMs: number;
  /** nodeLeaseFailureFraction (default 0.6). */
  nodeLeaseFailureFraction: number;
}
export interface LeaseProbeDecision {
  /** healthy → scale up; unhealthy → scale down; ignored → no scaling. */
  outcome: LeaseProbeOutcome;
  scale: 'up' | 'down' | 'none';
  total: number;
  expired: number;
  /** expired / total (0 when there are no candidates). */
  expiredLeasesFraction: number;
  /** The nodeLeaseFailureFraction the fraction was compared with. */
  expirationThreshold: number;
  message: string;
}

/**
 * One probe decides: exactly one candidate → ignored (single-node cluster); none → healthy
 * (scale up); otherwise `expired/total < fraction` → healthy, else unhealthy.
 */
export function decideLeaseProbe(input: LeaseProbeInput): LeaseProbeDecision {
  const total = input.candidates.length;
  const expired = input.candidates.filter((l) =>
    isLeaseExpired(l, input.now, input.nodeMonitorGracePeriodMs),
  ).length;
  const base = {
    total,
    expired,
    expiredLeasesFraction: total === 0 ? 0 : expired / total,
    expirationThreshold: input.nodeLeaseFailureFraction,
  };
  if (total === 1) {
    return {
      ...base,
      outcome: 'ignored',
      scale: 'none',
      message: 'Skipping scaling operation as number of candidate node leases == 1',
    };
  }
  if (total === 0) {
    return {
      ...base,
      outcome: 'healthy',
      scale: 'up',
      message: 'No owned node leases are present in the cluster, performing scale up operation if required',
    };
  }
  if (base.expiredLeasesFraction < input.nodeLeaseFailureFraction) {
    return {
      ...base,
      outcome: 'healthy',
      scale: 'up',
      message: 'Lease probe succeeded, performing scale up operation if required',
    };
  }
  return {
    ...base,
    outcome: 'unhealthy',
    scale: 'down',
    message: 'Lease probe failed, performing scale down operation if required',
  };
}

/** One probe interval with jitter: `interval × (1 + rand × jitterFactor)` (wait.Jitter), rand in [0, 1). */
export function jitteredIntervalMs(probeIntervalMs: number, jitterFactor: number, rand: number): number {
  const factor = jitterFactor > 0 ? jitterFactor : 0;
  return probeIntervalMs * (1 + rand * factor);
}

export interface BackoffInput {
  /** End of the probe just finished. */
  now: Date;
  /** Whether any call of this probe answered HTTP 429. */
  throttled: boolean;
  probeIntervalMs: number;
  backoffJitterFactor: number;
  rand: number;
  /** Back-off still pending from an earlier probe, if any. */
  backoffUntil?: Date;
}
export interface BackoffDecision {
  /** When the next probe may run: the jittered interval, but never before backoffUntil. */
  nextProbeAt: Date;
  /** now + 10 s after a 429 (replacing an older back-off, as upstream resets its timer). */
  backoffUntil?: Date;
}

/**
 * Next probe time. The interval is measured from the end of the probe (sliding); after a 429 the
 * next probe also waits until 10 s after the throttled call.
 */
export function decideBackoff(input: BackoffInput): BackoffDecision {
  const nowMs = input.now.getTime();
  const intervalAt = nowMs + jitteredIntervalMs(input.probeIntervalMs, input.backoffJitterFactor, input.rand);
  const backoffUntil = input.throttled ? new Date(nowMs + THROTTLED_BACKOFF_MS) : input.backoffUntil;
  const pending = backoffUntil !== undefined && backoffUntil.getTime() > nowMs ? backoffUntil : undefined;
  const nextMs = pending === undefined ? intervalAt : Math.max(intervalAt, pending.getTime());
  return pending === undefined
    ? { nextProbeAt: new Date(nextMs) }
    : { nextProbeAt: new Date(nextMs), backoffUntil: pending };
}
