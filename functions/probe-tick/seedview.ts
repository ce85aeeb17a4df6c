/**
 * What probe-tick reads of the seed for every shoot at once: one list per kind, instead of reads
 * per shoot per probe. Upstream's prober reads the same objects through controller-runtime's
 * cached client (dependency-watchdog cmd/probercmd.go `mgr.GetClient()`: the probe Secret, the
 * Machines and the dependents' metadata come from informer caches; only the scale subresource is
 * read live, internal/prober/scaler/scale.go); a function has no informer between ticks, so a
 * view is a snapshot taken lazily (each list on first use) and renewed with the Cluster list,
 * every 5 s (./tick.ts): no older than the Clusters the pass decides on.
 *
 * - The probe Secret: one list across namespaces with the field selector `metadata.name=<name>`
 *   (RBAC: `list` with `resourceNames`, the same Secrets `get` by name reached). The parsed
 *   kubeconfig is kept per namespace by the Secret's resourceVersion (`KubeConfigCache`, in
 *   memory only: no credential goes to Redis), so a view re-parses only Secrets that changed. A
 *   list refused with 403 (an older ClusterRole) leaves each shoot to read its Secret by name.
 * - Machines: one list across namespaces, grouped by namespace.
 * - Dependents whose scale subresource is their own `spec.replicas` (apps/v1 Deployment,
 *   StatefulSet, ReplicaSet): one list per dependent across namespaces with the field selector
 *   `metadata.name=<name>`. ./scale.ts uses a listed object only when it shows nothing to do
 *   (already at the target, ready, no annotation to clean up); anything to do is read again, object
 *   and scale subresource, right before it runs, as before. A namespace this view has written to
 *   is not served from the list again. Other kinds, or a failed list: read per resource.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { GVK } from '../../shared/api/gvk.js';
import { kubeConfigFromTargetKubeconfig, statusReason, type KubeClient } from '../../shared/kube/index.js';
import type { ScaleMapper } from './discovery.js';
import type { ProbeMachine } from './lease.js';

/** A dependent as listed (what the scaler reads of it). */
export interface ListedWorkload {
  metadata?: { name?: string; namespace?: string; uid?: string; annotations?: Record<string, string> };
  spec?: { replicas?: number };
  status?: { readyReplicas?: number };
}

/** The probe Secret of a namespace is not in the list. */
export class SecretAbsentError extends Error {}

export interface SeedView {
  /**
   * The shoot's kubeconfig from the listed probe Secret; throws SecretAbsentError when there is
   * none, the parse error when it is unusable, the list's error when it failed; undefined when
   * the Secret is not listable (403): read it by name.
   */
  kubeConfig(namespace: string): Promise<KubeConfig | undefined>;
  /** The namespace's Machines; throws when the list failed. */
  machines(namespace: string): Promise<ProbeMachine[]>;
  /**
   * The dependent as listed: null when the list has none of that name in the namespace;
   * undefined when the view does not know (a kind it does not list, a failed list, a namespace
   * written to since).
   */
  dependent(
    ref: { apiVersion?: string; kind: string; name: string },
    namespace: string,
  ): Promise<ListedWorkload | null | undefined>;
  /** This invocation wrote to a dependent in `namespace`: its listed dependents are stale. */
  written(namespace: string): void;
}

/** Parsed kubeconfigs (or the parse error) by namespace, kept while the Secret's resourceVersion holds. */
export type KubeConfigCache = Map<string, { resourceVersion: string; result: KubeConfig | Error }>;

interface ProbeSecret {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

/** Kinds whose scale subresource's spec.replicas is the object's own spec.replicas. */
const SPEC_REPLICAS_KINDS = new Set(['apps/Deployment', 'apps/StatefulSet', 'apps/ReplicaSet']);

/** A lazy read shared by every caller; a failed one is dropped so the next caller reads again. */
function lazy<T>(read: () => Promise<T>): () => Promise<T> {
  let memo: Promise<T> | undefined;
  return () => {
    memo ??= read().catch((err: unknown) => {
      memo = undefined;
      throw err;
    });
    return memo;
  };
}

function byNamespace<T extends { metadata?: { namespace?: string } }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const ns = item.metadata?.namespace ?? '';
    const list = out.get(ns);
    if (list) list.push(item);
    else out.set(ns, [item]);
  }
  return out;
}

/** The kubeconfig of a probe Secret, or the error a probe reports for it. */
export function parseProbeSecret(secret: ProbeSecret, namespace: string, name: string): KubeConfig | Error {
  const encoded = secret.data?.['kubeconfig'];
  if (!encoded) return new Error(`secret ${namespace}/${name} has no key "kubeconfig"`);
  try {
    return kubeConfigFromTargetKubeconfig(
      Buffer.from(encoded, 'base64').toString('utf8'),
      `secret ${namespace}/${name}`,
    );
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

export interface SeedViewOptions {
  seed: KubeClient;
  mapper: ScaleMapper;
  secretName: string;
  cache: KubeConfigCache;
}

function secretsView(o: SeedViewOptions): (namespace: string) => Promise<KubeConfig | undefined> {
  const listed = lazy(async (): Promise<Map<string, ProbeSecret> | undefined> => {
    try {
      const list = await o.seed.list<ProbeSecret>(GVK.Secret, undefined, {
        fieldSelector: `metadata.name=${o.secretName}`,
      });
      return new Map(list.items.map((s) => [s.metadata?.namespace ?? '', s]));
    } catch (err) {
      if (statusReason(err) === 'Forbidden') return undefined;
      throw err;
    }
  });
  return async (namespace) => {
    const secrets = await listed();
    if (secrets === undefined) return undefined;
    const secret = secrets.get(namespace);
    if (!secret) {
      o.cache.delete(namespace);
      throw new SecretAbsentError(`secret ${namespace}/${o.secretName} not found`);
    }
    const rv = secret.metadata?.resourceVersion ?? '';
    let hit = o.cache.get(namespace);
    if (hit?.resourceVersion !== rv || rv === '') {
      hit = { resourceVersion: rv, result: parseProbeSecret(secret, namespace, o.secretName) };
      o.cache.set(namespace, hit);
    }
    if (hit.result instanceof Error) throw hit.result;
    return hit.result;
  };
}

/** One view of the seed (lists taken on first use). */
export function createSeedView(o: SeedViewOptions): SeedView {
  const machines = lazy(async () =>
    byNamespace((await o.seed.list<ProbeMachine & { metadata?: { namespace?: string } }>(GVK.Machine)).items),
  );
  const dependents = new Map<string, () => Promise<Map<string, ListedWorkload> | undefined>>();
  const dirty = new Set<string>();

  function dependentList(ref: {
    apiVersion?: string;
    kind: string;
    name: string;
  }): Promise<Map<string, ListedWorkload> | undefined> {
    const key = `${ref.apiVersion ?? ''}/${ref.kind}/${ref.name}`;
    let read = dependents.get(key);
    if (!read) {
      read = lazy(async () => {
        try {
          const gvk = await o.mapper(ref);
          if (!SPEC_REPLICAS_KINDS.has(`${gvk.group}/${gvk.kind}`)) return undefined;
          const list = await o.seed.list<ListedWorkload>(gvk, undefined, {
            fieldSelector: `metadata.name=${ref.name}`,
          });
          return new Map(list.items.map((d) => [d.metadata?.namespace ?? '', d]));
        } catch {
          return undefined; // read per resource instead
        }
      });
      dependents.set(key, read);
    }
    return read();
  }

  return {
    kubeConfig: secretsView(o),
    machines: async (namespace) => (await machines()).get(namespace) ?? [],
    async dependent(ref, namespace) {
      if (dirty.has(namespace)) return undefined;
      const listed = await dependentList(ref);
      if (listed === undefined || dirty.has(namespace)) return undefined;
      return listed.get(namespace) ?? null;
    },
    written: (namespace) => void dirty.add(namespace),
  };
}
