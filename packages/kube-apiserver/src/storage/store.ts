/**
 * One cluster's storage: objects by group-resource and `namespace/name`, a single increasing
 * resourceVersion, and a bounded event history so watches can resume from a resourceVersion
 * (older than the history → 410 Expired, as after an etcd compaction).
 *
 * Stored objects are never mutated: every write stores a new object, so a reader may hold on
 * to what it got.
 */
import type { KubeObject } from '../api/types.js';

export const WATCH_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED'] as const;
export type WatchEventType = (typeof WATCH_EVENT_TYPES)[number];

export interface StoreEvent {
  rv: number;
  type: WatchEventType;
  /** Group-resource key (`apps/deployments`). */
  resource: string;
  object: KubeObject;
  /** The object before a MODIFIED (to decide selector transitions). */
  previous?: KubeObject;
}

export type StoreListener = (event: StoreEvent) => void;

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** What a restarted store needs (Store.restore's argument). */
export interface PersistedState {
  /** Objects per group-resource key (`apps/deployments`, `/configmaps`). */
  objects: Map<string, KubeObject[]>;
  /** The last resourceVersion written: the store's next write gets a larger one. */
  resourceVersion: number;
  /** Every event with an rv in (compactedRV, resourceVersion], oldest first, `previous` filled in. */
  history: StoreEvent[];
  /** Watches from this resourceVersion or newer can resume (Store.oldestResumableRV after restore). */
  compactedRV: number;
}

export interface StoreOptions {
  /** How many events are kept for watch resumption. */
  historySize?: number;
}

export class Store {
  private rv = 0;
  private readonly tables = new Map<string, Map<string, KubeObject>>();
  private readonly sortedKeys = new Map<string, string[] | undefined>();
  private readonly history: StoreEvent[] = [];
  private historyStart = 0;
  /** resourceVersion of the newest event dropped from history: watches must start at or after it. */
  private compactedRV = 0;
  private readonly listeners = new Map<string, Set<StoreListener>>();
  private readonly historySize: number;

  constructor(opts: StoreOptions = {}) {
    this.historySize = opts.historySize ?? 10_000;
  }

  get currentRV(): number {
    return this.rv;
  }

  get oldestResumableRV(): number {
    return this.compactedRV;
  }

  /** Takes the next resourceVersion (for a write about to happen). */
  nextRV(): number {
    return ++this.rv;
  }

  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.tables.get(resource)?.get(objectKey(namespace, name));
  }

  /** Objects of a resource, in etcd key order (`namespace/name`), optionally from one namespace. */
  list(resource: string, namespace?: string): KubeObject[] {
    const table = this.tables.get(resource);
    if (!table) return [];
    let keys = this.sortedKeys.get(resource);
    if (!keys) {
      keys = [...table.keys()].sort(compareKeys);
      this.sortedKeys.set(resource, keys);
    }
    const out: KubeObject[] = [];
    const prefix = namespace ? `${namespace}/` : undefined;
    for (const key of keys) {
      if (prefix && !key.startsWith(prefix)) continue;
      out.push(table.get(key)!);
    }
    return out;
  }

  resources(): string[] {
    return [...this.tables.keys()];
  }

  count(resource: string): number {
    return this.tables.get(resource)?.size ?? 0;
  }

  /** Stores an object whose metadata.resourceVersion is already set, and tells watchers. */
  put(resource: string, object: KubeObject, type: 'ADDED' | 'MODIFIED', previous?: KubeObject): void {
    let table = this.tables.get(resource);
    if (!table) {
      table = new Map();
      this.tables.set(resource, table);
    }
    const key = objectKey(object.metadata.namespace, object.metadata.name!);
    if (!table.has(key)) this.sortedKeys.delete(resource);
    table.set(key, object);
    this.emit({ rv: Number(object.metadata.resourceVersion), type, resource, object, previous });
  }

  /** Removes an object; `object` is its last state, carrying the deletion's resourceVersion. */
  remove(resource: string, object: KubeObject): void {
    const table = this.tables.get(resource);
    const key = objectKey(object.metadata.namespace, object.metadata.name!);
    const previous = table?.get(key);
    if (!previous) return;
    table!.delete(key);
    this.sortedKeys.delete(resource);
    this.emit({ rv: Number(object.metadata.resourceVersion), type: 'DELETED', resource, object, previous });
  }

  /**
   * The objects of a resource as they were at resourceVersion `rv` (for paging through a
   * consistent snapshot), rebuilt from the current state and the kept history; undefined when
   * the history no longer reaches back to `rv`.
   */
  listAt(resource: string, namespace: string | undefined, rv: number): KubeObject[] | undefined {
    if (rv < this.compactedRV) return undefined;
    if (rv >= this.rv) return this.list(resource, namespace);
    const state = new Map(
      this.list(resource, namespace).map((o) => [objectKey(o.metadata.namespace, o.metadata.name!), o]),
    );
    for (let i = this.history.length - 1; i >= this.historyStart && this.history[i].rv > rv; i--) {
      const e = this.history[i];
      if (e.resource !== resource || (namespace && e.object.metadata.namespace !== namespace)) continue;
      const key = objectKey(e.object.metadata.namespace, e.object.metadata.name!);
      if (e.type === 'ADDED') state.delete(key);
      else state.set(key, e.previous!);
    }
    return [...state.keys()].sort(compareKeys).map((k) => state.get(k)!);
  }

  /**
   * Loads persisted state into a new store, before anyone subscribes or writes: the objects,
   * the resourceVersion to continue from, and the kept events (every event after
   * state.compactedRV, oldest first, previous filled in). Calls no listener.
   */
  restore(state: PersistedState): void {
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

  /** Drops a whole resource (a deleted CRD), without events for each object. */
  dropResource(resource: string): void {
    this.tables.delete(resource);
    this.sortedKeys.delete(resource);
  }

  /**
   * Subscribes to a resource's events. With `fromRV`, first replays every kept event newer than
   * it; returns undefined when events after `fromRV` are no longer kept (the caller answers 410).
   */
  subscribe(resource: string, listener: StoreListener, fromRV?: number): (() => void) | undefined {
    if (fromRV !== undefined && fromRV < this.compactedRV) return undefined;
    if (fromRV !== undefined) {
      for (let i = this.historyStart; i < this.history.length; i++) {
        const e = this.history[i];
        if (e.rv > fromRV && e.resource === resource) listener(e);
      }
    }
    let set = this.listeners.get(resource);
    if (!set) {
      set = new Set();
      this.listeners.set(resource, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Every event, whatever the resource (the cluster's own controllers use it). */
  subscribeAll(listener: StoreListener): () => void {
    return this.subscribe('*', listener)!;
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length - this.historyStart > this.historySize) {
      this.compactedRV = this.history[this.historyStart].rv;
      this.historyStart++;
      if (this.historyStart > 4096) {
        this.history.splice(0, this.historyStart);
        this.historyStart = 0;
      }
    }
    for (const l of this.listeners.get(event.resource) ?? []) l(event);
    for (const l of this.listeners.get('*') ?? []) l(event);
  }
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Subscribes `listener` to the events of `resources` only (store keys): a controller that cares
 * about a few kinds is not called for every write of every other kind. Returns the stop.
 */
export function subscribeResources(
  store: Pick<Store, 'subscribe'>,
  resources: readonly string[],
  listener: StoreListener,
): () => void {
  const stops = resources.map((resource) => store.subscribe(resource, listener)!);
  return () => stops.forEach((stop) => stop());
}
