/**
 * The routing the seed-management functions share (managedseed, deletion-protection): an event of
 * the seed-management API-server source (Reference mode), the requeue ticker's
 * `dev.landscape.requeue`, and the resync (the family's resync PingSource, `isResyncEvent`), each
 * to its own handling.
 */
import { EventTypes } from '../events/index.js';
import type { Logger } from '../log/index.js';
import { eventKind, eventTarget, isResyncEvent } from './event-attrs.js';
import { eventObjectRef, eventType, type EventObjectRef } from './index.js';

/** What a function does with each kind of event; each gives the results of what it looked at. */
export interface ObjectEventRoutes<T> {
  /** A resync: list and reconcile every object the function owns. */
  resync(): Promise<T[]>;
  /** `dev.landscape.requeue` for this function, of the object `ref`. */
  requeue(kind: string, ref: EventObjectRef): Promise<T[]>;
  /** An API-server event (`dev.knative.apiserver.*`) of the object `ref`. */
  apiServer(kind: string, type: string, ref: EventObjectRef): Promise<T[]>;
}

/**
 * Hands the event to its route: a requeue for another function is ignored; an event that names no
 * object (other than a resync) or is of another type is logged and ignored.
 */
export async function routeObjectEvent<T>(
  ce: unknown,
  target: string,
  log: Logger,
  routes: ObjectEventRoutes<T>,
): Promise<T[]> {
  if (isResyncEvent(ce)) return routes.resync();
  const type = eventType(ce);
  const kind = eventKind(ce);
  const ref = eventObjectRef(ce, { kind });
  if (!ref) {
    log.warn('event names no object; ignored', { type, kind });
    return [];
  }
  if (type === EventTypes.requeue) return eventTarget(ce) === target ? routes.requeue(kind, ref) : [];
  if (type.startsWith('dev.knative.apiserver.')) return routes.apiServer(kind, type, ref);
  log.warn('not an event for this function; ignored', { type, kind });
  return [];
}
