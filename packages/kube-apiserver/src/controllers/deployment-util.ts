/**
 * Pure helpers of the simulated Deployment controller: the pod-template-hash, revisions, and the
 * Available/Progressing conditions with kube's reasons and messages.
 * Upstream: pkg/controller/controller_utils.go (ComputeHash: FNV-32a, then rand.SafeEncodeString —
 * here over the template's JSON with sorted keys rather than Go's deep-hash printing),
 * pkg/controller/deployment/util/deployment_util.go (Revision, EqualIgnoreHash, the reasons
 * NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated, NewReplicaSetAvailable,
 * MinimumReplicasAvailable, MinimumReplicasUnavailable, MaxUnavailable).
 */
import type { KubeObject } from '../api/types.js';

export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
const HASH = 'pod-template-hash';

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; [k: string]: unknown };
  spec?: unknown;
}

export interface DeploymentSpec {
  replicas?: number;
  paused?: boolean;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  template?: PodTemplate;
  strategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string } };
}

export interface RSStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
}

const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * JSON with object keys sorted and null members left out (a Go struct decodes a null and an
 * absent field alike, e.g. the `creationTimestamp: null` kubectl sends in a template): the same
 * template always gives the same text.
 */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined && x !== null);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** ComputeHash: the pod-template-hash of a template (its own hash label left out). */
export function templateHash(template: PodTemplate | undefined): string {
  const digits = String(fnv32a(canonical(withoutHash(template))));
  return [...digits].map((c) => ALPHANUMS[c.charCodeAt(0) % ALPHANUMS.length]).join('');
}

function withoutHash(template: PodTemplate | undefined): PodTemplate {
  const labels = { ...template?.metadata?.labels };
  delete labels[HASH];
  return { ...template, metadata: { ...template?.metadata, labels } };
}

/** EqualIgnoreHash: the ReplicaSet's template is the Deployment's. */
export function replicaSetOf(dep: KubeObject, rs: KubeObject): boolean {
  const a = (dep.spec as { template?: PodTemplate } | undefined)?.template;
  const b = (rs.spec as { template?: PodTemplate } | undefined)?.template;
  return canonical(withoutHash(a)) === canonical(withoutHash(b));
}

export function revisionOf(rs: KubeObject): number {
  const n = Number(rs.metadata.annotations?.[REVISION] ?? 0);
  return Number.isInteger(n) ? n : 0;
}

/** MaxUnavailable of a RollingUpdate Deployment (25% by default, rounded down); 0 for Recreate. */
export function maxUnavailable(spec: DeploymentSpec, n: number): number {
  if (spec.strategy?.type === 'Recreate') return 0;
  const v = spec.strategy?.rollingUpdate?.maxUnavailable ?? '25%';
  const m = typeof v === 'number' ? v : Math.floor((n * Number(String(v).replace('%', ''))) / 100);
  return Math.min(Number.isFinite(m) ? m : 0, n);
}

interface Counts {
  replicas: number;
  updatedReplicas: number;
  availableReplicas: number;
}

interface Context {
  rsName?: string;
  created: boolean;
  previous: Record<string, unknown>[];
  now: string;
}

function progressing(n: number, c: Counts, ctx: Context): [string, string] {
  const rs = ctx.rsName ?? '';
  if (ctx.created) return ['NewReplicaSetCreated', `Created new replica set "${rs}"`];
  if (c.updatedReplicas === n && c.replicas === n && c.availableReplicas >= n)
    return ['NewReplicaSetAvailable', `ReplicaSet "${rs}" has successfully progressed.`];
  return ['ReplicaSetUpdated', `ReplicaSet "${rs}" is progressing.`];
}

/** A condition; the previous one of its type is kept when nothing in it changed. */
function condition(
  ctx: Context,
  type: string,
  status: string,
  reason: string,
  message: string,
): Record<string, unknown> {
  const prev = ctx.previous.find((c) => c.type === type);
  if (prev && prev.status === status && prev.reason === reason && prev.message === message) return prev;
  const since = prev && prev.status === status ? prev.lastTransitionTime : ctx.now;
  return { type, status, lastUpdateTime: ctx.now, lastTransitionTime: since, reason, message };
}

/** The Available and Progressing conditions (in that order, as a cluster lists them). */
export function deploymentConditions(
  spec: DeploymentSpec,
  n: number,
  counts: Counts,
  ctx: Context,
): Record<string, unknown>[] {
  const available = counts.availableReplicas >= n - maxUnavailable(spec, n);
  const [reason, message] = progressing(n, counts, ctx);
  return [
    available
      ? condition(
          ctx,
          'Available',
          'True',
          'MinimumReplicasAvailable',
          'Deployment has minimum availability.',
        )
      : condition(
          ctx,
          'Available',
          'False',
          'MinimumReplicasUnavailable',
          'Deployment does not have minimum availability.',
        ),
    ctx.rsName ? condition(ctx, 'Progressing', 'True', reason, message) : undefined,
  ].filter((c): c is Record<string, unknown> => c !== undefined);
}
