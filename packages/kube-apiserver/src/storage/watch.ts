/**
 * A watch stream: initial state (when asked), then every matching change, with selector
 * transitions as the watch cache reports them (an object leaving the selector is DELETED for
 * this watcher, one entering it is ADDED), bookmarks, and 410 Expired for a resourceVersion
 * older than the kept history.
 */
import { expired } from '../api/errors.js';
import { toPartialMetadata } from '../api/objects.js';
import type { ListOptions, Operations, Scope } from '../registry/operations.js';
import { apiVersionOf, resourceKey } from '../registry/kinds.js';
import type { Store, StoreEvent } from './store.js';
import type { KubeObject } from '../api/types.js';
import { toWatchTable, type IncludeObject, type TableGroupVersion } from '../endpoints/table/index.js';

export interface WatchOptions extends ListOptions {
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  metadataOnly?: boolean;
  bookmarkIntervalMs?: number;
  /** Events as one-row Tables (kubectl get -w). */
  table?: { includeObject: IncludeObject; groupVersion: TableGroupVersion };
}

/** Each event as the client asked: the object, its metadata, or a one-row Table (columns on the first only). */
function eventView(def: Scope['def'], opts: WatchOptions): (o: KubeObject) => unknown {
  const table = opts.table;
  if (table) {
    let first = true;
    return (o) => {
      const row = toWatchTable(def, o, { now: new Date(), ...table }, first);
      first = false;
      return row;
    };
  }
  return (o) => (opts.metadataOnly ? toPartialMetadata(o) : o);
}

export interface WatchSink {
  write(line: string): void;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Serialized objects, shared by every watcher of an event (stored objects never change). */
const serialized = new WeakMap<object, string>();

function line(type: EventType, object: unknown): string {
  if (typeof object !== 'object' || object === null) return `${JSON.stringify({ type, object })}\n`;
  let json = serialized.get(object);
  if (json === undefined) {
    json = JSON.stringify(object);
    serialized.set(object, json);
  }
  return `{"type":"${type}","object":${json}}\n`;
}

/** Decides what one watcher sees of a store event, given its selector. */
export function transition(
  event: StoreEvent,
  matches: (o: KubeObject) => boolean,
): { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject } | undefined {
  const now = matches(event.object);
  if (event.type !== 'MODIFIED') return now ? { type: event.type, object: event.object } : undefined;
  const before = event.previous ? matches(event.previous) : now;
  if (now && before) return { type: 'MODIFIED', object: event.object };
  if (now) return { type: 'ADDED', object: event.object };
  if (before) {
    // the watcher last saw the previous state: it is told of its deletion at this resourceVersion
    const prev = event.previous!;
    return {
      type: 'DELETED',
      object: {
        ...prev,
        metadata: { ...prev.metadata, resourceVersion: event.object.metadata.resourceVersion },
      },
    };
  }
  return undefined;
}

/**
 * Starts a watch; returns the function that stops it. Writes an ERROR event (410 Expired) and
 * returns undefined when the requested resourceVersion is too old.
 */
/** Sends the current state as ADDED events (watch without a resourceVersion, or sendInitialEvents). */
function sendInitialState(
  store: Store,
  scope: Scope,
  opts: WatchOptions,
  selects: (o: KubeObject) => boolean,
  write: (o: KubeObject) => void,
): number | undefined {
  const rv = opts.resourceVersion;
  if (rv && rv !== '0' && !opts.sendInitialEvents)
    return Number.isFinite(Number(rv)) ? Number(rv) : undefined;
  for (const obj of store.list(resourceKey(scope.def), scope.namespace)) if (selects(obj)) write(obj);
  return store.currentRV;
}

export function startWatch(
  ops: Operations,
  store: Store,
  scope: Scope,
  opts: WatchOptions,
  sink: WatchSink,
): (() => void) | undefined {
  const { def, namespace } = scope;
  const rv = opts.resourceVersion;
  const selects = ops.matcher(def, opts);
  const matches = (o: KubeObject): boolean =>
    (!namespace || o.metadata.namespace === namespace) && selects(o);
  const view = eventView(def, opts);
  const startRV = sendInitialState(store, scope, opts, selects, (o) => sink.write(line('ADDED', view(o))));
  if (opts.sendInitialEvents) {
    sink.write(line('BOOKMARK', bookmark(def.kind, apiVersionOf(def), store.currentRV, true)));
  }
  const unsubscribe = store.subscribe(
    resourceKey(def),
    (event) => {
      const seen = transition(event, matches);
      if (seen) sink.write(line(seen.type, view(seen.object)));
    },
    startRV,
  );
  if (!unsubscribe) {
    sink.write(
      line('ERROR', expired(`too old resource version: ${rv} (${store.oldestResumableRV})`).toStatus()),
    );
    return undefined;
  }
  let timer: NodeJS.Timeout | undefined;
  if (opts.allowWatchBookmarks) {
    timer = setInterval(
      () => sink.write(line('BOOKMARK', bookmark(def.kind, apiVersionOf(def), store.currentRV, false))),
      opts.bookmarkIntervalMs ?? 60_000,
    );
    timer.unref();
  }
  return () => {
    unsubscribe();
    if (timer) clearInterval(timer);
  };
}

function bookmark(kind: string, apiVersion: string, rv: number, initialEnd: boolean): KubeObject {
  const metadata: KubeObject['metadata'] = { resourceVersion: String(rv) };
  if (initialEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return { kind, apiVersion, metadata };
}
