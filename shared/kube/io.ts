/**
 * Small reads and writes the seed-management functions share: a get that gives undefined for a
 * missing object, lists of every page, and a finalizer added or removed by an optimistic merge
 * patch (resourceVersion) redone on conflict.
 */
import type { GroupVersionKind } from '../api/gvk.js';
import type { ObjectMeta, PartialObjectMetadata } from '@landscape/apimachinery';
import type { KubeClient, ObjectLike } from './client.js';
import { isNotFound } from './errors.js';
import { updateWithConflictRetry } from './retry.js';

const PAGE = 500;

/** What `read` resolves with, or undefined when it fails with NotFound. */
async function unlessNotFound<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The object, or undefined when it does not exist. */
export function getOptional<T extends ObjectLike>(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace: string | undefined,
  name: string,
): Promise<T | undefined> {
  return unlessNotFound(() => client.get<T>(gvk, namespace, name));
}

/** The object's metadata, or undefined when it does not exist. */
export function getMetadataOptional(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace: string | undefined,
  name: string,
): Promise<PartialObjectMetadata | undefined> {
  return unlessNotFound(() => client.getMetadata(gvk, namespace, name));
}

/** One page of a list: its items and, unless it is the last, the token of the next. */
export interface ListPage<T> {
  items: T[];
  metadata?: { continue?: string };
}

/**
 * Fetches a list page by page (`limit` PAGE each, `continue` from the page before) and hands each
 * page's items to `visit` before fetching the next; resolves with how many items there were.
 */
export async function forEachPage<T>(
  fetch: (page: { limit: number; continue: string | undefined }) => Promise<ListPage<T>>,
  visit: (items: T[]) => unknown,
): Promise<number> {
  let next: string | undefined;
  let count = 0;
  do {
    const page = await fetch({ limit: PAGE, continue: next });
    await visit(page.items);
    count += page.items.length;
    next = page.metadata?.continue || undefined;
  } while (next);
  return count;
}

/**
 * Every object of a kind (page by page); across all namespaces when `namespace` is omitted, only
 * those matching `labelSelector` when one is given.
 */
export async function listAll<T extends ObjectLike>(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace?: string,
  labelSelector?: string,
): Promise<T[]> {
  const out: T[] = [];
  const selector = labelSelector ? { labelSelector } : {};
  await forEachPage(
    (page) => client.list<T>(gvk, namespace, { ...selector, ...page }),
    (items) => out.push(...items),
  );
  return out;
}

/** The metadata of every object of a kind (page by page). */
export async function listAllMetadata(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace?: string,
): Promise<PartialObjectMetadata[]> {
  const out: PartialObjectMetadata[] = [];
  await forEachPage(
    (page) => client.listMetadata(gvk, namespace, page),
    (items) => out.push(...items),
  );
  return out;
}

/** The finalizer list with `finalizer` present or absent; undefined when it already is so. */
export function finalizersWith(
  current: readonly string[] | undefined,
  finalizer: string,
  present: boolean,
): string[] | undefined {
  const list = current ?? [];
  if (list.includes(finalizer) === present) return undefined;
  return present ? [...list, finalizer] : list.filter((f) => f !== finalizer);
}

/**
 * Adds or removes `finalizer` (metadata read, merge patch with its resourceVersion, read again on
 * 409). Nothing is written when it already is so or the object is gone; true when written.
 */
export async function setFinalizer(
  client: KubeClient,
  gvk: GroupVersionKind,
  ref: { namespace?: string; name: string },
  finalizer: string,
  present: boolean,
): Promise<boolean> {
  let wrote = false;
  const namespace = gvk.namespaced ? ref.namespace : undefined;
  await updateWithConflictRetry<{ metadata: ObjectMeta } | undefined>(
    () => getMetadataOptional(client, gvk, namespace, ref.name),
    (current) => {
      const finalizers = current && finalizersWith(current.metadata.finalizers, finalizer, present);
      return finalizers ? { metadata: { ...current.metadata, finalizers } } : undefined;
    },
    async (next) => {
      const { finalizers, resourceVersion } = next?.metadata ?? {};
      await client.mergePatch(
        gvk,
        { namespace, name: ref.name },
        { metadata: { finalizers, resourceVersion } },
      );
      wrote = true;
      return next;
    },
  );
  return wrote;
}
