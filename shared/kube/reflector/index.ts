/**
 * List/watch of the Kubernetes client library (client-go's tools/cache Reflector, trimmed): one
 * list-then-watch loop per resource with its store, `informer` (the differences a list makes are
 * handed over, so no change is lost) or `adapter` (Knative's ApiServerSource store: a list hands
 * over nothing); the list and watch I/O; kind resolution by the GVK table or discovery.
 */
export { Reflector } from './reflector.js';
export type { ReflectorOptions } from './reflector.js';
export {
  applyChanges,
  changeForWatchEvent,
  changesForRelist,
  changesForWatchEvent,
  isExpiredStatus,
  isWatchEventType,
  objectKey,
  resourceVersionOf,
  WATCH_EVENT_TYPES,
} from './store.js';
export type { Accept, Known, WatchEventType } from './store.js';
export { collectionPath, listAll, resolveKind, UnknownKindError, watchOnce } from './listwatch.js';
export type { ListResult, WatchLine, WatchRequest } from './listwatch.js';
export { abortableSleep } from './sleep.js';
export { CHANGE_ACTIONS, isChangeAction } from './types.js';
export type { Change, ChangeAction, ResolvedKind, Sleep, WatchedObject } from './types.js';
