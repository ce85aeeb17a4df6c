/**
 * The drill workloads' one retry helper: every write (and the reads that decide it) goes through
 * `retry`, which repeats the call after a short pause while the error is transient — 409 Conflict
 * (the call re-reads, so an update is redone on the fresh object), 429, 5xx, timeouts and network
 * errors (no HTTP status at all). Anything else (400, 403, 404, 422) is thrown at once. The
 * idempotent wrappers give the answers a dropped response needs: AlreadyExists on a create and
 * NotFound on a delete count as done.
 */
import type { GroupVersionKind } from '../../../shared/api/gvk.js';
import { GVK } from '../../../shared/api/gvk.js';
import {
  createKubeClient,
  isAlreadyExists,
  isNotFound,
  isRetryableWrite,
  kubeConfigFromYaml,
  type KubeClient,
  type ObjectLike,
} from '../../../shared/kube/index.js';
import { getOptional, listAll as listEvery } from '../../../shared/kube/io.js';
import type { Landscape } from '../../landscape.js';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface RetryOptions {
  /** Give up (throw the last error) after this long; default 5 min. */
  deadlineMs?: number;
  /** First pause; doubles up to 2 s. Default 100 ms. */
  pauseMs?: number;
}

/** Errors worth another try: Conflict, 429, 5xx, and everything without an HTTP status (network, timeout). */
export const isTransient = isRetryableWrite;

/** Calls `fn` until it resolves, pausing after each transient error; throws other errors at once. */
export async function retry<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.deadlineMs ?? 300_000);
  let pause = options.pauseMs ?? 100;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransient(err) || Date.now() > deadline) throw err;
      await sleep(pause + Math.floor(Math.random() * pause));
      pause = Math.min(pause * 2, 2_000);
    }
  }
}

/** Creates the object; AlreadyExists (maybe our own create whose answer was lost) counts as done. */
export async function createOnce<T extends ObjectLike>(
  client: KubeClient,
  gvk: GroupVersionKind,
  object: T,
): Promise<void> {
  await retry(async () => {
    try {
      await client.create(gvk, object);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  });
}

/** Deletes the object; NotFound (already gone, or our own delete whose answer was lost) counts as done. */
export async function deleteOnce(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace: string | undefined,
  name: string,
): Promise<void> {
  await retry(async () => {
    try {
      await client.delete(gvk, { namespace, name });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  });
}

/** The object, or undefined when it does not exist (transient errors retried). */
export function readOptional<T extends ObjectLike>(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace: string | undefined,
  name: string,
): Promise<T | undefined> {
  return retry(() => getOptional<T>(client, gvk, namespace, name));
}

/** Every object of the kind in the namespace (all namespaces when undefined), retried. */
export async function listAll<T extends ObjectLike>(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace?: string,
  labelSelector?: string,
): Promise<T[]> {
  return retry(() => listEvery<T>(client, gvk, namespace, labelSelector));
}

/** Read, change, replace; a Conflict reads again. `mutate` returns undefined when nothing needs writing. */
export async function updateOnce<T extends ObjectLike>(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace: string | undefined,
  name: string,
  mutate: (current: T) => T | undefined,
): Promise<T> {
  return retry(async () => {
    const current = await client.get<T>(gvk, namespace, name);
    const next = mutate(current);
    return next === undefined ? current : client.replace<T>(gvk, next);
  });
}

/** Creates the namespace (labels optional); AlreadyExists is fine. */
export function ensureNamespace(
  client: KubeClient,
  name: string,
  labels?: Record<string, string>,
): Promise<void> {
  return createOnce(client, GVK.Namespace, { metadata: { name, ...(labels ? { labels } : {}) } });
}

/**
 * An embedded cluster by name, added when it does not exist yet, and an admin client of it (built
 * from the cluster's own kubeconfig, so it works for clusters the drill context does not know).
 */
export async function embeddedCluster(
  landscape: Landscape,
  name: string,
): Promise<{ client: KubeClient; kubeconfig: string }> {
  const api = landscape.api;
  if (!api) throw new Error('the drill needs the embedded API server');
  const existing = api.clusters().find((c) => c.name === name);
  const cluster = existing ?? (await api.addCluster({ name }));
  const kubeconfig = cluster.kubeconfigYaml();
  return { client: createKubeClient(kubeConfigFromYaml(kubeconfig), { keepAlive: true }), kubeconfig };
}

/** Polls `probe` every `everyMs` until it returns true or `timeoutMs` passed; whether it did. */
export async function waitFor(
  probe: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 500,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/** A DNS label from parts: lowercase, at most 63 characters. */
export function label(...parts: string[]): string {
  return parts
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63)
    .replace(/-+$/, '');
}
