/**
 * What the DeployItem-event functions (job trigger, responsibility check) share: visiting every
 * DeployItem page by page with bounded concurrency (a resync: the ping of the deployers' resync
 * PingSource), and the handler shape — API-server events name one item, a resync means all of
 * them, delete events are nothing to do (the item is gone; a deletion with finalizers arrives as
 * an update).
 */
import pLimit from 'p-limit';
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

type ReadyOk<C, D> = Extract<Ready<C, D>, { ok: true }>;

/** A CloudEvent handler for DeployItem events (returns nothing; a throw means retry). */
export function deployItemEventHandler<C, D>(
  instance: FunctionInstance<C, D>,
  one: (r: ReadyOk<C, D>, ref: ItemKey) => Promise<unknown>,
  all: (r: ReadyOk<C, D>) => Promise<unknown>,
  enabled: (r: ReadyOk<C, D>) => boolean = () => true,
): (ce: unknown) => Promise<void> {
  return async (ce: unknown): Promise<void> => {
    const r = await instance.ready();
    if (!enabled(r)) return;
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
    await one(r, ref);
  };
}
