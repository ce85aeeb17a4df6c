/**
 * Loading persisted state into a Store. The Store's fields are private, so restoreBody below is
 * the body of the method `Store.restore(state: PersistedState): void` to paste into store.ts
 * (README.md has it ready to paste; a unit test checks the two stay the same). Until then,
 * restoreStore() runs the same body from outside the class through a cast, so persistence
 * works, and is tested against the real Store, either way.
 *
 * After restore:
 * - `currentRV` is `state.resourceVersion` (the next write gets one more);
 * - the history holds the newest `historySize` of `state.history`;
 * - `oldestResumableRV` is `state.compactedRV`, or the rv of the newest event that did not fit
 *   in `historySize`: a watch (or a paged list) from any resourceVersion ≥ it resumes, older
 *   ones get 410 Expired, exactly as before the restart;
 * - no listener is called (nobody may be subscribed yet): the CRDs among the objects must be
 *   registered by the controllers' initial pass (README.md).
 */
import type { Store, StoreEvent } from '../store.js';
import { objectKey } from '../store.js';
import type { KubeObject } from '../types.js';
import type { PersistedState } from './index.js';

/** The private fields of Store that restore sets (store.ts, same names). */
interface StoreInternals {
  rv: number;
  tables: Map<string, Map<string, KubeObject>>;
  sortedKeys: Map<string, string[] | undefined>;
  history: StoreEvent[];
  historyStart: number;
  compactedRV: number;
  listeners: Map<string, Set<unknown>>;
  historySize: number;
}

/** Store.restore(state) for a Store that does not have the method yet (same body as below). */
export function restoreStore(store: Store, state: PersistedState): void {
  const withMethod = store as unknown as { restore?: (s: PersistedState) => void };
  if (typeof withMethod.restore === 'function') return withMethod.restore(state);
  const s = store as unknown as StoreInternals;
  const fields = [
    'rv',
    'tables',
    'sortedKeys',
    'history',
    'historyStart',
    'compactedRV',
    'listeners',
    'historySize',
  ];
  for (const field of fields)
    if (!(field in s))
      throw new Error(`restoreStore: Store has no field "${field}" any more (store.ts changed)`);
  restoreBody.call(s, state);
}

function restoreBody(this: StoreInternals, state: PersistedState): void {
  if (this.rv !== 0 || this.tables.size > 0 || this.history.length > 0 || this.listeners.size > 0)
    throw new Error('Store.restore: the store must be new (no objects, no events, no subscribers)');
  for (const [resource, objects] of state.objects) {
    if (!objects.length) continue;
    this.tables.set(
      resource,
      new Map(objects.map((o) => [objectKey(o.metadata.namespace, o.metadata.name!), o])),
    );
    this.sortedKeys.delete(resource);
  }
  const from = Math.max(0, state.history.length - this.historySize);
  this.compactedRV = from > 0 ? state.history[from - 1].rv : state.compactedRV;
  for (let i = from; i < state.history.length; i++) this.history.push(state.history[i]);
  this.historyStart = 0;
  this.rv = state.resourceVersion;
}
