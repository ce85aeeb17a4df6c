/**
 * What the DeployItem-event functions (responsibility-check with its job hand-out) share: visiting every
 * DeployItem page by page with bounded concurrency (a resync: the ping of the deployers' resync
 * PingSource), and the handler shape — API-server events name one item, a resync means all of
 * them, delete events are nothing to do (the item is gone; a deletion with finalizers arrives as
 * an update).
 *
 * An event of the source in Resource mode carries the whole object as its data (Knative's adapter:
 * knative/eventing pkg/adapter/apiserver/events/events.go, `MakeAddEvent`/`MakeUpdateEvent` with
 * `ref == false`: `data` = the object the watch delivered, whatever its size); in Reference mode
 * the data is an ObjectReference. `eventDeployItem` hands the handlers the carried object, so that
 * they decide from it without a read; it may be older than the server's (events of one item can
 * overtake each other on the way), so every write decided from it is optimistic (its
 * resourceVersion), and a Conflict means: read, decide again.
 */
import pLimit from 'p-limit';
import { isRecord } from '@landscape/apimachinery';
import { GVK } from '../api/gvk.js';
import type { DeployItem } from '../api/landscaper.js';
import type { ObjectMeta } from '@landscape/apimachinery';
import { isResyncEvent } from '../function/event-attrs.js';
import { eventObjectRef, eventType, type FunctionInstance, type Ready } from '../function/index.js';
import type { KubeClient } from '../kube/index.js';
import { forEachPage } from '../kube/io.js';

export interface ItemKey {
  namespace: string;
  name: string;
}

/** A DeployItem as a metadata-only list has it (PartialObjectMetadata). */
export interface ListedItem extends ItemKey {
  metadata: ObjectMeta;
}

/**
 * Visits every DeployItem (metadata-only lists, page by page); resolves with how many were
 * visited. The visitor gets the listed metadata too, so it can decide without a read of its own.
 */
export function forEachDeployItem(
  client: KubeClient,
  visit: (ref: ItemKey, listed: ListedItem) => Promise<unknown>,
  concurrency = 8,
): Promise<number> {
  const limit = pLimit(concurrency);
  return forEachPage(
    (page) => client.listMetadata(GVK.DeployItem, undefined, page),
    (items) =>
      Promise.all(
        items.map((m) => {
          const key = { namespace: m.metadata?.namespace ?? '', name: m.metadata?.name ?? '' };
          return limit(() => visit(key, { ...key, metadata: m.metadata }));
        }),
      ),
  );
}

/**
 * Visits every DeployItem as a full list has it (page by page, one page in memory at a time),
 * for a function that decides from spec or status; resolves with how many were visited.
 */
export function forEachFullDeployItem(
  client: KubeClient,
  visit: (item: DeployItem) => Promise<unknown>,
  concurrency = 8,
): Promise<number> {
  const limit = pLimit(concurrency);
  return forEachPage(
    (page) => client.list<DeployItem>(GVK.DeployItem, undefined, page),
    (items) => Promise.all(items.map((item) => limit(() => visit(item)))),
  );
}

/**
 * The DeployItem a Resource-mode event carries as its data, when it is one (kind DeployItem, the
 * event's namespace/name, a resourceVersion and a spec); undefined for Reference-mode data
 * (an ObjectReference) or anything else: then the handler reads the item.
 */
export function eventDeployItem(ce: unknown, ref: ItemKey): DeployItem | undefined {
  if (!isRecord(ce)) return undefined;
  const data = ce.data;
  if (!isRecord(data) || data.kind !== 'DeployItem' || !isRecord(data.spec)) return undefined;
  const meta = data.metadata;
  if (!isRecord(meta) || meta.name !== ref.name || meta.namespace !== ref.namespace) return undefined;
  if (typeof meta.resourceVersion !== 'string' || meta.resourceVersion === '') return undefined;
  return data as unknown as DeployItem;
}

/** `uid@resourceVersion`: one version of one item. */
export function versionKey(item: DeployItem): string {
  return `${item.metadata?.uid ?? ''}@${item.metadata?.resourceVersion ?? ''}`;
}

/**
 * A bounded set of keys (oldest forgotten first): what an instance remembers of its own work, e.g.
 * item versions its own later writes superseded. Forgetting only costs a read again.
 */
export class BoundedSet {
  private readonly keys = new Set<string>();

  constructor(private readonly max = 10_000) {}

  add(key: string): void {
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > this.max) this.keys.delete(this.keys.values().next().value as string);
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  delete(key: string): void {
    this.keys.delete(key);
  }
}

type ReadyOk<C, D> = Extract<Ready<C, D>, { ok: true }>;

/** A CloudEvent handler for DeployItem events (returns nothing; a throw means retry). */
export function deployItemEventHandler<C, D>(
  instance: FunctionInstance<C, D>,
  /**
   * One item; `item` is the object the event carries (Resource mode), else undefined; `id` the
   * event's id (a redelivery has the same one; '' when it has none).
   */
  one: (r: ReadyOk<C, D>, ref: ItemKey, item: DeployItem | undefined, id: string) => Promise<unknown>,
  all: (r: ReadyOk<C, D>) => Promise<unknown>,
): (ce: unknown) => Promise<void> {
  return async (ce: unknown): Promise<void> => {
    const r = await instance.ready();
    if (isResyncEvent(ce)) {
      await all(r);
      return;
    }
    const type = eventType(ce);
    if (type.endsWith('.delete')) return;
    const ref = eventObjectRef(ce, { namespaced: true });
    if (!ref) {
      r.log.warn('event names no DeployItem; ignored', { type });
      return;
    }
    const id = (ce as { id?: unknown } | null)?.id;
    await one(r, ref, eventDeployItem(ce, ref), typeof id === 'string' ? id : '');
  };
}
