export {
  after,
  backoffDelay,
  decodeMember,
  encodeMember,
  isDue,
  isRequeueMode,
  mergeScore,
  queueKey,
  REQUEUE_KEYS,
  REQUEUE_MODES,
  RequeueError,
  scoreOf,
  TARGETS_KEY,
  validateRef,
} from './model.js';
export type { BackoffOptions, ObjectRef, RequeueItem, RequeueMode } from './model.js';
export { cancel, decodeDue, due, knownTargets, pending, requeue, restore } from './queue.js';
export type { DueItem, RequeueOptions } from './queue.js';
