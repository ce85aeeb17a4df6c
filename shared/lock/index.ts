export { cleanupSyncObjects } from './cleanup.js';
export type { CleanupClient, CleanupCounts, CleanupOptions } from './cleanup.js';
export { CLEANUP_ACTIONS, cleanupPrecheck, decideCleanup, isCleanupAction } from './cleanup-decide.js';
export type { CleanupAction, CleanupDecision, CleanupObservation } from './cleanup-decide.js';
export {
  ACQUIRE_ACTIONS,
  decideAcquire,
  decideRelease,
  isAcquireAction,
  newSyncObject,
  withOwner,
} from './decide.js';
export type { AcquireAction, AcquireStep, LockTarget, NewSyncObjectInput, ReleaseStep } from './decide.js';
export { DEFAULT_HEARTBEAT_TTL_MS, HEARTBEAT_FAMILY, heartbeatLiveness, podLiveness } from './liveness.js';
export type {
  HeartbeatLiveness,
  HeartbeatOptions,
  IntervalTimers,
  Liveness,
  LivenessHold,
  PodMetadataReader,
} from './liveness.js';
export { createLocker } from './locker.js';
export type { LockClient, Locker, LockerOptions, LockHint, LockResult, WithLockResult } from './locker.js';
export {
  expectedSyncObjectName,
  MAX_NAME_LENGTH,
  metaTime,
  nameProblem,
  SyncObjectNameError,
  syncObjectName,
} from './names.js';
export { instanceId, isLivenessKind, LIVENESS_KINDS, livenessFor, lockOwner } from './owner.js';
export type { LivenessDeps, LivenessKind, LockOwner, LockOwnerEnv } from './owner.js';
