/**
 * Wrongly duplicated effects, counted from the embedded API server's audit log of writes
 * (@landscape/kube-apiserver, src/audit/audit.ts). Pure: the records in, one line per duplicate out.
 *
 * - a shoot bound twice: `spec.seedName` set from empty more than once, or changed to another seed;
 * - an object created twice: more than one ADDED for the same cluster/resource/namespace/name among
 *   the resources created exactly once in a drill (`createdOnce`: what the work creates and what the
 *   product creates from it — ManagedSeeds and replica Shoots in `garden`, Seeds, export Secrets, the
 *   objects in the target clusters), in every cluster and namespace (a create, a delete, a create again);
 * - two final statuses for one job: a DeployItem's status entering a final phase with
 *   `jobIDFinished = J` more than once for the same J, or rewritten to another final phase for J;
 * - a pod deleted outside a weeder window: a DELETE of a pod in a watched namespace that no
 *   weeder window covers (a window opens when an EndpointSlice there turns ready and lasts the
 *   weeder's watch duration as configured for the run: `weederWindowMs`), or of a pod that was not
 *   in CrashLoopBackOff.
 */
import { loadWeederConfig } from '../../shared/watchdog/config.js';
import type { AuditRecord } from '@landscape/kube-apiserver';

export const DUPLICATE_KINDS = [
  'shoot bound twice',
  'object created twice',
  'two final statuses for one job',
  'pod deleted outside a weeder window',
] as const;
export type DuplicateKind = (typeof DUPLICATE_KINDS)[number];

export interface Duplicate {
  kind: DuplicateKind;
  /** `<cluster> <resource> <namespace>/<name>` and what was seen. */
  detail: string;
}

export interface DuplicateOptions {
  /** Created exactly once by the drill's work (e.g. `deployitems.landscaper.gardener.cloud`, `configmaps`). */
  createdOnce: (r: AuditRecord) => boolean;
  /** Namespaces whose pods only the weeder may delete. */
  weederNamespace: (namespace: string) => boolean;
  /** The weeder's watch duration (its window after an endpoint turns ready). */
  weederWindowMs: number;
}

/**
 * Resources whose objects a drill creates once, or the product creates once from them: a second
 * ADDED of one cluster/resource/namespace/name is a wrong duplicate. Not here: what comes and goes
 * by design (SyncObjects, Events, Leases, Pods, EndpointSlices, RBAC objects).
 */
export const CREATED_ONCE_RESOURCES: ReadonlySet<string> = new Set([
  'deployitems.landscaper.gardener.cloud',
  'targets.landscaper.gardener.cloud',
  'shoots.core.gardener.cloud',
  'seeds.core.gardener.cloud',
  'cloudprofiles.core.gardener.cloud',
  'managedseeds.seedmanagement.gardener.cloud',
  'managedseedsets.seedmanagement.gardener.cloud',
  'seedautoscalers.autoscaling.landscape.dev',
  'secrets',
  'configmaps',
  'namespaces',
  'deployments.apps',
]);

/** The drill's `createdOnce`: every cluster, every namespace, the resources above. */
export function createdOnceInDrill(r: AuditRecord): boolean {
  return CREATED_ONCE_RESOURCES.has(r.resource);
}

/** The weeder's watch duration in ms, read as the weeder reads its config file (Go durations). */
export function weederWindowMs(configYaml: string): number {
  const r = loadWeederConfig(configYaml, {});
  if (!r.ok) throw new Error(`weeder config: ${r.problems.join('; ')}`);
  return r.config.watchDuration;
}

const SHOOTS = 'shoots.core.gardener.cloud';
const DEPLOY_ITEMS = 'deployitems.landscaper.gardener.cloud';
const FINAL_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);

function field(obj: unknown, ...path: string[]): unknown {
  let v: unknown = obj;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

function str(obj: unknown, ...path: string[]): string {
  const v = field(obj, ...path);
  return typeof v === 'string' ? v : '';
}

function where(r: AuditRecord): string {
  return `${r.cluster} ${r.resource} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

/** Shoots whose seedName was set more than once or moved to another seed. */
export function shootsBoundTwice(records: readonly AuditRecord[]): Duplicate[] {
  const out: Duplicate[] = [];
  const bound = new Map<string, string>();
  for (const r of records) {
    if (r.resource !== SHOOTS || r.type === 'DELETED') continue;
    const seed = str(r.object, 'spec', 'seedName');
    const before = str(r.old, 'spec', 'seedName');
    if (!seed || seed === before) continue;
    const first = bound.get(r.uid);
    if (first !== undefined)
      out.push({ kind: 'shoot bound twice', detail: `${where(r)}: bound to ${first}, then to ${seed}` });
    else if (before)
      out.push({ kind: 'shoot bound twice', detail: `${where(r)}: moved from ${before} to ${seed}` });
    bound.set(r.uid, first ?? seed);
  }
  return out;
}

/** More than one ADDED for the same key among the objects created once. */
export function createdTwice(
  records: readonly AuditRecord[],
  createdOnce: DuplicateOptions['createdOnce'],
): Duplicate[] {
  const seen = new Map<string, number>();
  const out: Duplicate[] = [];
  for (const r of records) {
    if (r.type !== 'ADDED' || !createdOnce(r)) continue;
    const key = where(r);
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n > 1) out.push({ kind: 'object created twice', detail: `${key}: created ${n} times` });
  }
  return out;
}

function finalOf(obj: unknown): { job: string; phase: string } | undefined {
  const phase = str(obj, 'status', 'phase');
  const job = str(obj, 'status', 'jobIDFinished');
  if (!FINAL_PHASES.has(phase) || !job || job !== str(obj, 'status', 'jobID')) return undefined;
  return { job, phase };
}

/** The writes of one object up to `seq`, short: `#seq user type phase jobID/jobIDFinished` (what went wrong, at a glance). */
function historyOf(records: readonly AuditRecord[], uid: string, seq: number): string {
  const short = (o: unknown): string =>
    `${str(o, 'status', 'phase') || '-'} ${str(o, 'status', 'jobID') || '-'}/${str(o, 'status', 'jobIDFinished') || '-'}`;
  return records
    .filter((x) => x.uid === uid && x.seq <= seq)
    .map((x) => `#${x.seq} ${x.user ?? 'in-process'} ${x.type} ${short(x.object)}`)
    .join('; ');
}

/** DeployItem status writes that finish a job that had finished already. */
export function finalStatusesTwice(records: readonly AuditRecord[]): Duplicate[] {
  const finished = new Map<string, string>();
  const out: Duplicate[] = [];
  for (const r of records) {
    if (r.resource !== DEPLOY_ITEMS || r.type === 'DELETED') continue;
    const now = finalOf(r.object);
    if (!now) continue;
    const before = finalOf(r.old);
    if (before && before.job === now.job && before.phase === now.phase) continue;
    const key = `${r.uid}/${now.job}`;
    const first = finished.get(key);
    if (first !== undefined)
      out.push({
        kind: 'two final statuses for one job',
        detail: `${where(r)}: job ${now.job} finished ${first}, then ${now.phase}; its writes: ${historyOf(records, r.uid, r.seq)}`,
      });
    else finished.set(key, now.phase);
  }
  return out;
}

const ENDPOINT_RESOURCES: ReadonlySet<string> = new Set(['endpoints', 'endpointslices.discovery.k8s.io']);

/** Endpoints with a ready address, or an EndpointSlice with a ready endpoint (what the weeder watches). */
function endpointReady(obj: unknown): boolean {
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const slice = list(field(obj, 'endpoints')).some((e) => field(e, 'conditions', 'ready') === true);
  return slice || list(field(obj, 'subsets')).some((s) => list(field(s, 'addresses')).length > 0);
}

function crashLooping(pod: unknown): boolean {
  const statuses = field(pod, 'status', 'containerStatuses');
  return (
    Array.isArray(statuses) &&
    statuses.some((c) => str(c, 'state', 'waiting', 'reason') === 'CrashLoopBackOff')
  );
}

/** When each namespace's endpoints turned ready (each opens a weeder window). */
function windowsOpened(
  records: readonly AuditRecord[],
  inScope: (ns: string) => boolean,
): Map<string, number[]> {
  const opened = new Map<string, number[]>();
  for (const r of records) {
    const ns = r.namespace ?? '';
    if (!ENDPOINT_RESOURCES.has(r.resource) || r.type === 'DELETED' || !inScope(ns)) continue;
    if (endpointReady(r.object) && !endpointReady(r.old)) opened.set(ns, [...(opened.get(ns) ?? []), r.time]);
  }
  return opened;
}

/** Pod deletes in weeder namespaces outside every window, or of pods not crash-looping. */
export function podsDeletedOutsideWindows(
  records: readonly AuditRecord[],
  o: Pick<DuplicateOptions, 'weederNamespace' | 'weederWindowMs'>,
): Duplicate[] {
  const opened = windowsOpened(records, o.weederNamespace);
  const out: Duplicate[] = [];
  for (const r of records) {
    const ns = r.namespace ?? '';
    // in-process controllers (GC, the workload simulation) delete with no user
    if (r.resource !== 'pods' || r.type !== 'DELETED' || r.user === undefined || !o.weederNamespace(ns))
      continue;
    const inWindow = (opened.get(ns) ?? []).some((t) => r.time >= t && r.time <= t + o.weederWindowMs);
    const kind = 'pod deleted outside a weeder window';
    if (!inWindow) out.push({ kind, detail: `${where(r)} by ${r.user}` });
    else if (!crashLooping(r.old)) out.push({ kind, detail: `${where(r)}: not in CrashLoopBackOff` });
  }
  return out;
}

/** Every wrongly duplicated effect in the log. */
export function findDuplicates(records: readonly AuditRecord[], o: DuplicateOptions): Duplicate[] {
  return [
    ...shootsBoundTwice(records),
    ...createdTwice(records, o.createdOnce),
    ...finalStatusesTwice(records),
    ...podsDeletedOutsideWindows(records, o),
  ];
}
