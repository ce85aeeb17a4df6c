/**
 * The RESTMapper of the prober's scaler, pure: from a dependent's `ref` (apiVersion + kind) and the
 * seed API server's discovery document of that group version (`/api/v1` or `/apis/<group>/<version>`,
 * a metav1.APIResourceList) to the resource (plural, scope) and whether it has a `scale`
 * subresource. Imitates github.com/gardener/dependency-watchdog internal/util/k8shelper.go
 * (getGroupResource: `schema.ParseGroupVersion` + `RESTMapper().RESTMapping(groupKind, version)`
 * over a discovery-backed mapper, then the `scale` client, client-go/scale, which needs the
 * `<plural>/scale` subresource), with apimachinery's NoKindMatchError wording.
 * The discovery reads and their cache are functions/probe-tick/discovery.ts.
 */
import type { GroupVersionKind } from '../../shared/api/gvk.js';

/** One entry of a metav1.APIResourceList (what the mapper needs of it). */
export interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced?: boolean;
}

/** metav1.APIResourceList. */
export interface DiscoveredResourceList {
  groupVersion?: string;
  resources?: readonly DiscoveredResource[];
}

export interface GroupVersion {
  group: string;
  version: string;
}

/**
 * `apps/v1` → {apps, v1}; `v1` → {'', v1} (schema.ParseGroupVersion). The config schema already
 * refused anything else.
 */
export function parseGroupVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The discovery path of a group version: `/api/v1` for the core group, else `/apis/<g>/<v>`. */
export function discoveryPath(gv: GroupVersion): string {
  return gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
}

export type ScaleMapping =
  | { ok: true; gvk: GroupVersionKind }
  | { ok: false; reason: 'NoKindMatch' | 'NoScaleSubresource'; error: string };

function apiVersionOf(gv: GroupVersion): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/**
 * The mapping of `kind` in `apiVersion`, from that group version's discovery document (undefined:
 * the server does not serve the group version, a 404). A kind is matched exactly (RESTMapping);
 * subresources (`name` with a slash) are no kinds of their own.
 */
export function mapScalable(
  list: DiscoveredResourceList | undefined,
  apiVersion: string,
  kind: string,
): ScaleMapping {
  const gv = parseGroupVersion(apiVersion);
  const resources = list?.resources ?? [];
  const resource = resources.find((r) => r.kind === kind && !r.name.includes('/'));
  if (!resource) {
    const error = `no matches for kind "${kind}" in version "${apiVersionOf(gv)}"`;
    return { ok: false, reason: 'NoKindMatch', error };
  }
  if (!resources.some((r) => r.name === `${resource.name}/scale`)) {
    const error = `${resource.name}.${gv.group || 'core'} (kind "${kind}" in version "${apiVersionOf(gv)}") has no scale subresource`;
    return { ok: false, reason: 'NoScaleSubresource', error };
  }
  return {
    ok: true,
    gvk: {
      group: gv.group,
      version: gv.version,
      apiVersion: apiVersionOf(gv),
      kind,
      plural: resource.name,
      namespaced: resource.namespaced ?? true,
    },
  };
}
