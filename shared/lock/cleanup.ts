/**
 * The SyncObject cleanup routine (run periodically by a cron function): lists SyncObjects, reads
 * the metadata of each one's `spec.kind`/`spec.name` in its namespace, and deletes those whose
 * object is gone or was recreated (see decideCleanup). Upstream reads from an informer cache; a
 * function has none, so where a page holds `listAt` or more SyncObjects of one kind in one
 * namespace, that kind's metadata is read with one (paged) list there instead of a read per
 * SyncObject: the same observation, since a locked object exists before its SyncObject and the
 * list begins after the SyncObjects' page (a list that fails falls back to the reads). A delete carries uid and resourceVersion
 * preconditions, so a SyncObject changed in between (locked again) is left for the next run. With
 * a liveness, a kept one still locked by a gone owner is unlocked (optimistically, by its
 * resourceVersion).
 */
import pLimit from 'p-limit';
import { GVK, gvkForKind } from '../api/gvk.js';
import type { SyncObject } from '../api/landscaper.js';
import type { KubeClient } from '../kube/client.js';
import { isConflict, isNotFound } from '../kube/errors.js';
import { forEachPage } from '../kube/io.js';
import type { PartialObjectMetadata } from '@landscape/apimachinery';
import type { Logger } from '../log/index.js';
import type { CleanupDecision, CleanupObservation } from './cleanup-decide.js';
import { cleanupPrecheck, decideCleanup, lockedLongerThan, UNLOCK_GRACE_MS } from './cleanup-decide.js';
import { withOwner } from './decide.js';
import type { Liveness } from './liveness.js';

/** What the cleanup needs of a KubeClient. */
export type CleanupClient = Pick<KubeClient, 'list' | 'getMetadata' | 'listMetadata' | 'delete' | 'replace'>;

export interface CleanupOptions {
  /** Only this namespace; default all namespaces. */
  namespace?: string;
  /** Only SyncObjects of this controller (`spec.prefix`); default all. */
  prefix?: string;
  log: Logger;
  /** List page size; default 500. */
  pageSize?: number;
  /** Objects looked at in parallel; default 8. */
  concurrency?: number;
  /** SyncObjects of one kind in one namespace on a page from which that kind's metadata is listed; default 16. */
  listAt?: number;
  /**
   * How lock owners are known to be alive (the deployers' Pods); when given, a kept SyncObject
   * locked for longer than `unlockGraceMs` by an owner that is gone is unlocked. Default none.
   */
  liveness?: Liveness;
  /** Default UNLOCK_GRACE_MS. */
  unlockGraceMs?: number;
  now?: () => Date;
}

export interface CleanupCounts {
  /** SyncObjects looked at (after the prefix filter). */
  checked: number;
  deleted: number;
  kept: number;
  /** Kept, and unlocked: its owner was gone. */
  unlocked: number;
  /** Unknown kinds and malformed SyncObjects (logged as errors). */
  skipped: number;
  /** Reads or deletes that failed (logged; the next run tries again). */
  failed: number;
}

type Outcome = keyof CleanupCounts;

const DEFAULT_PAGE_SIZE = 500;
const DEFAULT_CONCURRENCY = 8;
const DEFAULT_LIST_AT = 16;

/** The metadata listed per `<namespace>\0<kind>`, by name. */
type Listed = Map<string, Map<string, PartialObjectMetadata>>;

function groupKey(so: SyncObject): string | undefined {
  const gvk = gvkForKind(so.spec?.kind ?? '');
  if (!gvk) return undefined;
  return `${gvk.namespaced ? (so.metadata?.namespace ?? '') : ''}\0${so.spec.kind}`;
}

/** One metadata list per kind and namespace that `listAt` or more of the page's SyncObjects lock. */
async function listGroups(client: CleanupClient, page: SyncObject[], opts: CleanupOptions): Promise<Listed> {
  const sizes = new Map<string, number>();
  for (const so of page) {
    const key = groupKey(so);
    if (key !== undefined) sizes.set(key, (sizes.get(key) ?? 0) + 1);
  }
  const listed: Listed = new Map();
  for (const [key, size] of sizes) {
    if (size < (opts.listAt ?? DEFAULT_LIST_AT)) continue;
    const [namespace, kind] = key.split('\0');
    const gvk = gvkForKind(kind)!;
    const byName = new Map<string, PartialObjectMetadata>();
    try {
      await forEachPage(
        (p) => client.listMetadata(gvk, gvk.namespaced ? namespace : undefined, p),
        (items) => items.forEach((m) => byName.set(m.metadata?.name ?? '', m)),
      );
      listed.set(key, byName);
    } catch (err) {
      opts.log.debug('listing for the cleanup failed; reading one by one', {
        kind,
        namespace,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return listed;
}

async function observe(client: CleanupClient, so: SyncObject, listed: Listed): Promise<CleanupObservation> {
  const gvk = gvkForKind(so.spec.kind);
  if (!gvk) return 'UnknownKind';
  const byName = listed.get(groupKey(so) ?? '');
  if (byName) return byName.get(so.spec.name) ?? 'NotFound';
  try {
    return await client.getMetadata(gvk, gvk.namespaced ? so.metadata?.namespace : undefined, so.spec.name);
  } catch (err) {
    if (isNotFound(err)) return 'NotFound';
    throw err;
  }
}

async function deleteSyncObject(client: CleanupClient, so: SyncObject): Promise<'deleted' | 'kept'> {
  const { namespace, name, uid, resourceVersion } = so.metadata ?? {};
  try {
    await client.delete(
      GVK.SyncObject,
      { namespace, name: name ?? '' },
      { preconditions: { uid, resourceVersion } },
    );
    return 'deleted';
  } catch (err) {
    // Gone already (another run), or changed since the list (the next run judges it again).
    if (isNotFound(err) || isConflict(err)) return 'kept';
    throw err;
  }
}

async function apply(
  client: CleanupClient,
  so: SyncObject,
  decision: CleanupDecision,
  log: Logger,
): Promise<Outcome> {
  const fields = {
    syncObject: `${so.metadata?.namespace}/${so.metadata?.name}`,
    kind: so.spec?.kind,
    name: so.spec?.name,
  };
  if (decision.action === 'skip') {
    log.error('SyncObject skipped by cleanup', { ...fields, error: decision.error });
    return 'skipped';
  }
  if (decision.action === 'keep') return 'kept';
  const outcome = await deleteSyncObject(client, so);
  if (outcome === 'deleted') log.info('deleted SyncObject', { ...fields, reason: decision.reason });
  return outcome;
}

/** Whether a kept SyncObject is locked, for longer than the grace, by an owner that is gone. */
async function ownerGone(so: SyncObject, opts: CleanupOptions, now: Date): Promise<boolean> {
  if (!opts.liveness || !lockedLongerThan(so, now, opts.unlockGraceMs ?? UNLOCK_GRACE_MS)) return false;
  return !(await opts.liveness.isAlive(so.spec.podName));
}

/** A kept SyncObject whose owner is gone: unlocked (optimistic: one locked again since stays). */
async function unlockIfOwnerGone(
  client: CleanupClient,
  so: SyncObject,
  opts: CleanupOptions,
): Promise<Outcome> {
  const now = opts.now?.() ?? new Date();
  if (!(await ownerGone(so, opts, now))) return 'kept';
  try {
    await client.replace(GVK.SyncObject, withOwner(so, '', now));
  } catch (err) {
    if (isNotFound(err) || isConflict(err)) return 'kept';
    throw err;
  }
  opts.log.info('unlocked SyncObject of a gone owner', {
    syncObject: `${so.metadata?.namespace}/${so.metadata?.name}`,
    owner: so.spec.podName,
  });
  return 'unlocked';
}

async function cleanupOne(
  client: CleanupClient,
  so: SyncObject,
  opts: CleanupOptions,
  listed: Listed,
): Promise<Outcome> {
  const log = opts.log;
  try {
    const decision = cleanupPrecheck(so) ?? decideCleanup(so, await observe(client, so, listed));
    const outcome = await apply(client, so, decision, log);
    return outcome === 'kept' && decision.action === 'keep'
      ? await unlockIfOwnerGone(client, so, opts)
      : outcome;
  } catch (err) {
    log.error('SyncObject cleanup failed', {
      syncObject: `${so.metadata?.namespace}/${so.metadata?.name}`,
      error: err instanceof Error ? err.message : String(err),
    });
    return 'failed';
  }
}

/** Deletes the SyncObjects whose object is gone or was recreated; returns what it did. */
export async function cleanupSyncObjects(
  client: CleanupClient,
  opts: CleanupOptions,
): Promise<CleanupCounts> {
  const counts: CleanupCounts = { checked: 0, deleted: 0, kept: 0, unlocked: 0, skipped: 0, failed: 0 };
  const limit = pLimit(opts.concurrency ?? DEFAULT_CONCURRENCY);
  let cont: string | undefined;
  do {
    const page = await client.list<SyncObject>(GVK.SyncObject, opts.namespace, {
      limit: opts.pageSize ?? DEFAULT_PAGE_SIZE,
      continue: cont,
    });
    const mine = page.items.filter((so) => opts.prefix === undefined || so.spec?.prefix === opts.prefix);
    const listed = await listGroups(client, mine, opts);
    const outcomes = await Promise.all(mine.map((so) => limit(() => cleanupOne(client, so, opts, listed))));
    for (const o of outcomes) counts[o] += 1;
    counts.checked += mine.length;
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return counts;
}
