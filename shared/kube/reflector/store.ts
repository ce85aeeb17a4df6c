/**
 * The pure core of the reflector, in its two stores:
 * - `adapter`: Knative's ApiServerSource (knative/eventing pkg/adapter/apiserver/delegate.go). Its
 *   informer store is a `resourceDelegate` whose `Add`, `Update` and `Delete` each send one
 *   CloudEvent and whose `Replace` (what a list or a re-list hands over) and `Resync` do nothing:
 *   one watch event is at most one change (`changeForWatchEvent`), a list is none, and the source
 *   keeps no memory of objects. Label selection is the API server's there (a watch with a
 *   labelSelector reports an object leaving it as DELETED).
 * - `informer`: client-go's informer for the embedded landscape's own controllers (the fixture
 *   controller, the activator's Pod watch, the source's namespace tracker): a list hands over the
 *   differences to what is known (`changesForRelist`), watch events are deduped by
 *   resourceVersion (`changesForWatchEvent`).
 */
import { isOneOf } from '@landscape/apimachinery';
import type { Change, WatchedObject } from './types.js';

/** `namespace/name` (just `name` for cluster-scoped objects). */
export function objectKey(object: WatchedObject): string {
  const ns = object.metadata?.namespace;
  const name = object.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

export function resourceVersionOf(object: WatchedObject): string | undefined {
  return object.metadata?.resourceVersion;
}

export type Known = ReadonlyMap<string, WatchedObject>;

/** Whether an object is one the source reports (namespace selector, label selector). */
export type Accept = (object: WatchedObject) => boolean;

export const WATCH_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const;
export type WatchEventType = (typeof WATCH_EVENT_TYPES)[number];
export const isWatchEventType: (value: unknown) => value is WatchEventType = isOneOf(WATCH_EVENT_TYPES);

function upsert(known: Known, object: WatchedObject): Change[] {
  const before = known.get(objectKey(object));
  if (!before) return [{ action: 'add', object }];
  if (resourceVersionOf(before) === resourceVersionOf(object)) return [];
  return [{ action: 'update', object }];
}

const ACTION = { ADDED: 'add', MODIFIED: 'update', DELETED: 'delete' } as const;

/**
 * Adapter store: the change one ADDED/MODIFIED/DELETED watch event makes, exactly one (the
 * reflector's `store.Add/Update/Delete`), or none when the object is outside the selected
 * namespaces.
 */
export function changeForWatchEvent(
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  object: WatchedObject,
  accept: Accept,
): Change | undefined {
  return accept(object) ? { action: ACTION[type], object } : undefined;
}

/**
 * Informer store: the changes one ADDED/MODIFIED/DELETED watch event makes. An object that stops being accepted
 * (its namespace no longer selected) is a delete with its new state; a known object seen again
 * at the same resourceVersion is nothing.
 */
export function changesForWatchEvent(
  known: Known,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  object: WatchedObject,
  accept: Accept,
): Change[] {
  const key = objectKey(object);
  if (type === 'DELETED') return known.has(key) || accept(object) ? [{ action: 'delete', object }] : [];
  if (accept(object)) return upsert(known, object);
  return known.has(key) ? [{ action: 'delete', object }] : [];
}

/**
 * Informer store: the changes between what was known and a fresh list: adds for new objects, updates for
 * objects whose resourceVersion moved, deletes (with the last state known) for objects gone.
 * With nothing known this is the initial list: an add per object.
 */
export function changesForRelist(known: Known, listed: readonly WatchedObject[], accept: Accept): Change[] {
  const out: Change[] = [];
  const seen = new Set<string>();
  for (const object of listed) {
    if (!accept(object)) continue;
    seen.add(objectKey(object));
    out.push(...upsert(known, object));
  }
  for (const [key, object] of known) if (!seen.has(key)) out.push({ action: 'delete', object });
  return out;
}

/** A new map with the changes applied (inputs are not mutated). */
export function applyChanges(known: Known, changes: readonly Change[]): Map<string, WatchedObject> {
  const next = new Map(known);
  for (const c of changes) {
    if (c.action === 'delete') next.delete(objectKey(c.object));
    else next.set(objectKey(c.object), c.object);
  }
  return next;
}

/** A watch ERROR event's Status says 410 Gone / Expired: the resourceVersion is too old, re-list. */
export function isExpiredStatus(object: unknown): boolean {
  if (typeof object !== 'object' || object === null) return false;
  const s = object as { code?: unknown; reason?: unknown };
  return s.code === 410 || s.reason === 'Expired' || s.reason === 'Gone';
}
