/**
 * The pure core of the SyncObject cleanup (specs/landscaper.md): a SyncObject whose object is
 * gone, or whose object's UID no longer gives the SyncObject's name (the object was deleted and
 * recreated under the same name), is deleted; unknown kinds are skipped with an error. One kept
 * while still locked by an owner that is gone (a replica killed between finishing its item and
 * unlocking it) is unlocked once the lock is older than a grace period, as the next take-over
 * would do: no lock is left to a dead owner.
 */
import { isOneOf } from '@landscape/apimachinery';
import type { SyncObject } from '../api/landscaper.js';
import type { PartialObjectMetadata } from '@landscape/apimachinery';
import { expectedSyncObjectName } from './names.js';

/** What reading `spec.kind`/`spec.name` gave: its metadata, NotFound, or a kind the product does not know. */
export type CleanupObservation = PartialObjectMetadata | 'NotFound' | 'UnknownKind';

export const CLEANUP_ACTIONS = ['delete', 'keep', 'skip'] as const;
export type CleanupAction = (typeof CLEANUP_ACTIONS)[number];
export const isCleanupAction: (value: unknown) => value is CleanupAction = isOneOf(CLEANUP_ACTIONS);

export type CleanupDecision =
  | { action: 'delete'; reason: 'object gone' | 'object recreated' }
  | { action: 'keep'; reason: string }
  /** Cannot judge: logged as an error, the SyncObject stays. */
  | { action: 'skip'; error: string };

/** Why the SyncObject cannot be judged at all (before anything is read), or undefined. */
export function cleanupPrecheck(so: SyncObject): CleanupDecision | undefined {
  if (so.metadata?.deletionTimestamp) return { action: 'keep', reason: 'already being deleted' };
  if (!so.spec?.kind || !so.spec.name) return { action: 'skip', error: 'spec.kind or spec.name is empty' };
  if (!so.spec.prefix) return { action: 'skip', error: 'spec.prefix is empty' };
  return undefined;
}

/** Delete, keep or skip `so` given what reading its object gave. */
export function decideCleanup(so: SyncObject, observed: CleanupObservation): CleanupDecision {
  const pre = cleanupPrecheck(so);
  if (pre) return pre;
  if (observed === 'UnknownKind') return { action: 'skip', error: `unknown kind ${so.spec.kind}` };
  if (observed === 'NotFound') return { action: 'delete', reason: 'object gone' };
  const uid = observed.metadata?.uid;
  if (!uid) return { action: 'skip', error: 'the object has no UID' };
  if (expectedSyncObjectName(so.spec.prefix, uid) !== so.metadata?.name) {
    return { action: 'delete', reason: 'object recreated' };
  }
  return { action: 'keep', reason: 'object exists' };
}

/** A lock is this old before its dead owner's lock is given back (a new replica's Pod may lag). */
export const UNLOCK_GRACE_MS = 30_000;

/** Whether to check the owner of a kept SyncObject: it is locked, for longer than the grace. */
export function lockedLongerThan(so: SyncObject, now: Date, graceMs: number): boolean {
  if (!so.spec?.podName) return false;
  const since = Date.parse(so.spec.lastUpdateTime ?? '');
  return !Number.isNaN(since) && now.getTime() - since >= graceMs;
}
