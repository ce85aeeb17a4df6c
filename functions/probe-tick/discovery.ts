/**
 * The scaler's RESTMapper over the seed API server's discovery, as upstream's
 * (github.com/gardener/dependency-watchdog internal/util/k8shelper.go: a DeferredDiscoveryRESTMapper
 * over a memory-cached discovery client, client-go restmapper + discovery/cached/memory): a
 * dependent of any kind with a scale subresource is found by reading its group version's
 * APIResourceList once and mapping it with ./restmapper.ts.
 *
 * Cache: per function instance, in memory, one entry per group version for `ttlMs` (default 60 s).
 * A kind missing from a cached list reads the list again once (the deferred mapper resets its
 * cache on a NoKindMatch and retries), so a CRD installed after the first read is found at once.
 * Absent group versions (404) are not cached. Discovery is public metadata, no secret.
 */
import type { GroupVersionKind } from '../../shared/api/gvk.js';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import { discoveryPath, mapScalable, parseGroupVersion, type DiscoveredResourceList } from './restmapper.js';

export const DEFAULT_DISCOVERY_TTL_MS = 60_000;

/** A dependent's kind → its resource with a scale subresource; throws when there is none. */
export type ScaleMapper = (ref: { apiVersion?: string; kind: string }) => Promise<GroupVersionKind>;

interface Entry {
  at: number;
  list: Promise<DiscoveredResourceList | undefined>;
}

/** The kinds whose apiVersion may be left out (the scaler's old default for a bare ref). */
const DEFAULT_API_VERSION: Readonly<Record<string, string>> = {
  Deployment: 'apps/v1',
  StatefulSet: 'apps/v1',
};

export function createDiscoveryMapper(
  seed: KubeClient,
  opts: { now: () => number; ttlMs?: number },
): ScaleMapper {
  const ttl = opts.ttlMs ?? DEFAULT_DISCOVERY_TTL_MS;
  const cache = new Map<string, Entry>();

  async function fetchList(path: string): Promise<DiscoveredResourceList | undefined> {
    try {
      const res = await seed.request({ method: 'GET', path });
      return JSON.parse(res.body) as DiscoveredResourceList;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  function cachedList(path: string): Entry['list'] | undefined {
    const hit = cache.get(path);
    return hit && opts.now() - hit.at < ttl ? hit.list : undefined;
  }

  function read(path: string): Promise<DiscoveredResourceList | undefined> {
    const list = fetchList(path);
    cache.set(path, { at: opts.now(), list });
    // neither a failed read nor an absent group version is kept
    list.then(
      (l) => (l ? undefined : cache.delete(path)),
      () => cache.delete(path),
    );
    return list;
  }

  return async (ref) => {
    const apiVersion = ref.apiVersion ?? DEFAULT_API_VERSION[ref.kind] ?? 'v1';
    const path = discoveryPath(parseGroupVersion(apiVersion));
    const cached = cachedList(path);
    let mapping = mapScalable(await (cached ?? read(path)), apiVersion, ref.kind);
    if (!mapping.ok && mapping.reason === 'NoKindMatch' && cached) {
      mapping = mapScalable(await read(path), apiVersion, ref.kind);
    }
    if (!mapping.ok) throw new Error(mapping.error);
    return mapping.gvk;
  };
}
