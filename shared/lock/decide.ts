/**
 * The pure core of the locker (specs/landscaper.md, "SyncObject lock"): what to do next given
 * the SyncObject just read from the API server, and the SyncObjects to write. No I/O.
 */
import { isOneOf } from '@landscape/apimachinery';
import type { SyncObject } from '../api/landscaper.js';
import { metaTime } from './names.js';

/** The object a lock is for; `uid` names the SyncObject, `kind`/`name` are recorded in its spec. */
export interface LockTarget {
  kind: string;
  name: string;
  namespace: string;
  uid: string;
}

export const ACQUIRE_ACTIONS = ['create', 'mine', 'checkLiveness', 'takeOver', 'notLocked'] as const;
export type AcquireAction = (typeof ACQUIRE_ACTIONS)[number];
export const isAcquireAction: (value: unknown) => value is AcquireAction = isOneOf(ACQUIRE_ACTIONS);

export type AcquireStep =
  /** No SyncObject: create one owned by me (AlreadyExists → not locked). */
  | { action: 'create' }
  /** I own it already: locked, nothing to write. */
  | { action: 'mine' }
  /** Someone else owns it: ask the liveness check, then decide again with the answer. */
  | { action: 'checkLiveness'; owner: string }
  /** Unlocked or a dead owner: optimistic update with this resourceVersion (Conflict → not locked). */
  | { action: 'takeOver'; resourceVersion: string; previousOwner: string; reason: string }
  | { action: 'notLocked'; reason: string };

/**
 * The next step of acquiring the lock. `existing` is the SyncObject as just read (undefined when
 * NotFound), `me` the owner identity, `ownerAlive` the liveness answer once asked for.
 */
export function decideAcquire(
  existing: SyncObject | undefined,
  me: string,
  ownerAlive?: boolean,
): AcquireStep {
  if (me === '') return { action: 'notLocked', reason: 'no owner identity' };
  if (existing === undefined) return { action: 'create' };
  if (existing.metadata?.deletionTimestamp) {
    return { action: 'notLocked', reason: 'the SyncObject is being deleted' };
  }
  const owner = existing.spec?.podName ?? '';
  if (owner === me) return { action: 'mine' };
  return decideOther(owner, existing.metadata?.resourceVersion, ownerAlive);
}

/** Someone else's (or nobody's) SyncObject. */
function decideOther(owner: string, resourceVersion: string | undefined, ownerAlive?: boolean): AcquireStep {
  if (!resourceVersion) return { action: 'notLocked', reason: 'the SyncObject has no resourceVersion' };
  if (owner === '') return { action: 'takeOver', resourceVersion, previousOwner: '', reason: 'unlocked' };
  if (ownerAlive === undefined) return { action: 'checkLiveness', owner };
  if (ownerAlive) return { action: 'notLocked', reason: `locked by ${owner}` };
  return { action: 'takeOver', resourceVersion, previousOwner: owner, reason: `owner ${owner} is gone` };
}

export type ReleaseStep = { action: 'release'; resourceVersion: string } | { action: 'none'; reason: string };

/** Whether to unlock: only a SyncObject I still own, optimistically. Never a delete. */
export function decideRelease(existing: SyncObject | undefined, me: string): ReleaseStep {
  if (existing === undefined) return { action: 'none', reason: 'the SyncObject is gone' };
  const owner = existing.spec?.podName ?? '';
  if (me === '' || owner !== me) {
    return { action: 'none', reason: owner === '' ? 'not locked' : `locked by ${owner}` };
  }
  const resourceVersion = existing.metadata?.resourceVersion;
  if (!resourceVersion) return { action: 'none', reason: 'the SyncObject has no resourceVersion' };
  return { action: 'release', resourceVersion };
}

export interface NewSyncObjectInput {
  name: string;
  prefix: string;
  target: LockTarget;
  owner: string;
  now: Date;
}

/** The SyncObject to create: owned by `owner`, in the target's namespace. */
export function newSyncObject(input: NewSyncObjectInput): SyncObject {
  return {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'SyncObject',
    metadata: { name: input.name, namespace: input.target.namespace },
    spec: {
      podName: input.owner,
      kind: input.target.kind,
      name: input.target.name,
      lastUpdateTime: metaTime(input.now),
      prefix: input.prefix,
    },
  };
}

/** `existing` with a new owner (`""` unlocks) and lastUpdateTime; metadata (resourceVersion) kept. */
export function withOwner(existing: SyncObject, owner: string, now: Date): SyncObject {
  return {
    ...existing,
    metadata: { ...existing.metadata },
    spec: { ...existing.spec, podName: owner, lastUpdateTime: metaTime(now) },
  };
}
