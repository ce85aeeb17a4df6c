/**
 * Which resource serves an apiVersion/kind on the target cluster: API discovery
 * (`/api/v1`, `/apis/<group>/<version>`), one request per group version and step, and, for kinds
 * the cluster does not serve yet, the CRDs in the same manifest list (as upstream, so a list may
 * bring a CRD and objects of it together).
 */
import type { GroupVersionKind } from '../../shared/api/gvk.js';
import { groupVersionPath, isNotFound, type KubeClient } from '../../shared/kube/index.js';
import { groupOf, isCrd, versionOf } from './objects.js';
import { isRecord } from '@landscape/apimachinery';

export interface ResolvedKind {
  gvk: GroupVersionKind;
  /** False when only a CRD in the manifest list defines it (not served yet: no dry run, no GET). */
  served: boolean;
}

interface ApiResource {
  name?: string;
  kind?: string;
  namespaced?: boolean;
}

function gvkOf(apiVersion: string, kind: string, plural: string, namespaced: boolean): GroupVersionKind {
  return { group: groupOf(apiVersion), version: versionOf(apiVersion), apiVersion, kind, plural, namespaced };
}

/** The kind's entry in an APIResourceList (subresources skipped). */
export function fromResourceList(
  resources: readonly ApiResource[],
  apiVersion: string,
  kind: string,
): GroupVersionKind | undefined {
  const r = resources.find((x) => x.kind === kind && typeof x.name === 'string' && !x.name.includes('/'));
  return r ? gvkOf(apiVersion, kind, r.name!, r.namespaced === true) : undefined;
}

function crdDefines(
  crd: Record<string, unknown>,
  apiVersion: string,
  kind: string,
): GroupVersionKind | undefined {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const versions = Array.isArray(spec.versions) ? (spec.versions as { name?: unknown }[]) : [];
  const matches =
    spec.group === groupOf(apiVersion) &&
    names.kind === kind &&
    typeof names.plural === 'string' &&
    versions.some((v) => v.name === versionOf(apiVersion));
  return matches ? gvkOf(apiVersion, kind, names.plural as string, spec.scope === 'Namespaced') : undefined;
}

/** The kind as a CRD among the manifests defines it. */
export function fromCrdManifests(
  manifests: readonly Record<string, unknown>[],
  apiVersion: string,
  kind: string,
): GroupVersionKind | undefined {
  for (const m of manifests) {
    if (typeof m.apiVersion !== 'string' || !isCrd(m.apiVersion, String(m.kind))) continue;
    const gvk = crdDefines(m, apiVersion, kind);
    if (gvk) return gvk;
  }
  return undefined;
}

/** Resolves kinds for one step (results are not kept across steps: CRDs come and go). */
export class KindResolver {
  private readonly lists = new Map<string, Promise<ApiResource[] | undefined>>();

  constructor(
    private readonly client: KubeClient,
    private readonly crdManifests: readonly Record<string, unknown>[] = [],
  ) {}

  private async fetchList(apiVersion: string): Promise<ApiResource[] | undefined> {
    const path = groupVersionPath({ group: groupOf(apiVersion), version: versionOf(apiVersion) });
    try {
      const res = await this.client.request({ method: 'GET', path });
      const body = JSON.parse(res.body) as { resources?: ApiResource[] };
      return body.resources ?? [];
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private list(apiVersion: string): Promise<ApiResource[] | undefined> {
    let p = this.lists.get(apiVersion);
    if (!p) {
      p = this.fetchList(apiVersion);
      this.lists.set(apiVersion, p);
      p.catch(() => this.lists.delete(apiVersion));
    }
    return p;
  }

  /** Whether discovery knows the group version at all. */
  async groupVersionServed(apiVersion: string): Promise<boolean> {
    return (await this.list(apiVersion)) !== undefined;
  }

  /** The kind on the cluster, else as a listed CRD defines it, else undefined. */
  async resolve(apiVersion: string, kind: string): Promise<ResolvedKind | undefined> {
    const served = fromResourceList((await this.list(apiVersion)) ?? [], apiVersion, kind);
    if (served) return { gvk: served, served: true };
    const pending = fromCrdManifests(this.crdManifests, apiVersion, kind);
    return pending ? { gvk: pending, served: false } : undefined;
  }
}
