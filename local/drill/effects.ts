/**
 * The drill's operations, counted from what happened: the effects the product made, read from the
 * embedded API server's audit log of writes (@landscape/kube-apiserver, src/audit/audit.ts), not from the plan. Pure:
 * the records in, a count per kind of effect out. Each effect is counted once (an item's job
 * finished, a shoot bound, an object created), so a duplicate shows in duplicates.ts, not here.
 *
 * The drill's own writes never make one of these effects: it creates DeployItems, Shoots, Seeds,
 * Pods and Deployments without owner references, never sets a DeployItem's final status, a
 * Shoot's seedName, a Deployment's or ManagedSeedSet's replicas, and writes no ConfigMap outside
 * the main cluster. In-process controllers (GC, the workload simulation) write with no user.
 */
import type { AuditRecord } from '@landscape/kube-apiserver';

export const EFFECT_KINDS = [
  'items finished',
  'items deleted',
  'shoots bound',
  'objects created',
  'target objects deleted',
  'dependents scaled',
  'sets scaled',
  'pods weeded',
] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];
export type Effects = Record<EffectKind, number>;

const DEPLOY_ITEMS = 'deployitems.landscaper.gardener.cloud';
const SHOOTS = 'shoots.core.gardener.cloud';
const SETS = 'managedseedsets.seedmanagement.gardener.cloud';
const DEPLOYMENTS = 'deployments.apps';
/** Owners whose children the product creates: replica Shoots and ManagedSeeds, Seeds, export Secrets. */
const PRODUCT_OWNERS: ReadonlySet<string> = new Set(['ManagedSeedSet', 'ManagedSeed', 'DeployItem']);
const MAIN = 'main';

function field(obj: unknown, ...path: string[]): unknown {
  let v: unknown = obj;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

const str = (obj: unknown, ...path: string[]): string => {
  const v = field(obj, ...path);
  return typeof v === 'string' ? v : '';
};

/** `job/phase` of a DeployItem whose job is finished (final phase, jobIDFinished == jobID), else ''. */
function finished(obj: unknown): string {
  const phase = str(obj, 'status', 'phase');
  const job = str(obj, 'status', 'jobIDFinished');
  if ((phase !== 'Succeeded' && phase !== 'Failed') || !job || job !== str(obj, 'status', 'jobID')) return '';
  return job;
}

function ownedByProduct(obj: unknown): boolean {
  const owners = field(obj, 'metadata', 'ownerReferences');
  return Array.isArray(owners) && owners.some((o) => PRODUCT_OWNERS.has(str(o, 'kind')));
}

const replicasChanged = (r: AuditRecord): boolean =>
  r.type === 'MODIFIED' &&
  r.user !== undefined &&
  field(r.old, 'spec', 'replicas') !== field(r.object, 'spec', 'replicas');

type Effect = { kind: EffectKind; key: string } | undefined;
type Matcher = (r: AuditRecord, weederNamespace: (namespace: string) => boolean) => Effect;

const idOf = (r: AuditRecord): string => r.uid || `${r.cluster}/${r.resource}/${r.namespace ?? ''}/${r.name}`;

/** A DeployItem's job finished (once per job), or the item gone. */
const itemEffect: Matcher = (r) => {
  if (r.resource !== DEPLOY_ITEMS) return undefined;
  if (r.type === 'DELETED') return { kind: 'items deleted', key: r.uid };
  const job = finished(r.object);
  return job && finished(r.old) !== job ? { kind: 'items finished', key: `${r.uid}/${job}` } : undefined;
};

/** A Shoot's seedName set from empty (the binding). */
const shootEffect: Matcher = (r) =>
  r.resource === SHOOTS &&
  r.type !== 'DELETED' &&
  str(r.object, 'spec', 'seedName') !== '' &&
  str(r.old, 'spec', 'seedName') === ''
    ? { kind: 'shoots bound', key: r.uid }
    : undefined;

/** An object the product created (owned by a set, a ManagedSeed or an item; a target's objects) or deleted in a target. */
const objectEffect: Matcher = (r) => {
  const inTarget = r.cluster !== MAIN && r.resource === 'configmaps';
  if (r.type === 'ADDED' && (inTarget || ownedByProduct(r.object)))
    return { kind: 'objects created', key: idOf(r) };
  if (r.type === 'DELETED' && inTarget && r.user !== undefined)
    return { kind: 'target objects deleted', key: idOf(r) };
  return undefined;
};

/** A Deployment's or ManagedSeedSet's replicas changed by a client (the prober, the autoscaler). */
const scaleEffect: Matcher = (r) => {
  if (!replicasChanged(r)) return undefined;
  if (r.resource === DEPLOYMENTS) return { kind: 'dependents scaled', key: String(r.seq) };
  return r.resource === SETS ? { kind: 'sets scaled', key: String(r.seq) } : undefined;
};

/** A pod deleted by a client in a namespace only the weeder deletes pods in. */
const weedEffect: Matcher = (r, weederNamespace) =>
  r.resource === 'pods' && r.type === 'DELETED' && r.user !== undefined && weederNamespace(r.namespace ?? '')
    ? { kind: 'pods weeded', key: idOf(r) }
    : undefined;

const MATCHERS: readonly Matcher[] = [itemEffect, shootEffect, objectEffect, scaleEffect, weedEffect];

/** The effect one record makes, with the key it is counted once under; undefined: none. */
export function effectOf(r: AuditRecord, weederNamespace: (namespace: string) => boolean): Effect {
  for (const m of MATCHERS) {
    const e = m(r, weederNamespace);
    if (e) return e;
  }
  return undefined;
}

/** Every effect in the log, each counted once, per kind. */
export function countEffects(
  records: readonly AuditRecord[],
  weederNamespace: (namespace: string) => boolean,
): Effects {
  const seen = new Set<string>();
  const out = Object.fromEntries(EFFECT_KINDS.map((k) => [k, 0])) as Effects;
  for (const r of records) {
    const e = effectOf(r, weederNamespace);
    if (!e || seen.has(`${e.kind} ${e.key}`)) continue;
    seen.add(`${e.kind} ${e.key}`);
    out[e.kind]++;
  }
  return out;
}

/** The sum over every kind. */
export function totalEffects(e: Effects): number {
  return EFFECT_KINDS.reduce((n, k) => n + e[k], 0);
}
