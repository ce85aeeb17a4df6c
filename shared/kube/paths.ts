/** URL paths and query strings of the Kubernetes REST API, from the GVK table (pure). */
import { isOneOf } from '@landscape/apimachinery';
import type { GroupVersionKind } from '../api/gvk.js';
import { KubeRequestError } from './errors.js';

/** `binding`: gardener-apiserver's shoots/binding (a PUT of the whole Shoot). */
export const SUBRESOURCES = ['status', 'scale', 'binding'] as const;
export type Subresource = (typeof SUBRESOURCES)[number];
export const isSubresource: (value: unknown) => value is Subresource = isOneOf(SUBRESOURCES);

export interface ResourcePathOptions {
  /** Required for a namespaced kind when a name is given; omitted for a list across namespaces. */
  namespace?: string;
  name?: string;
  subresource?: Subresource;
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(gvk: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return gvk.group === '' ? `/api/${gvk.version}` : `/apis/${gvk.group}/${gvk.version}`;
}

function scopePath(gvk: GroupVersionKind, namespace: string | undefined, name: string | undefined): string {
  if (!gvk.namespaced) {
    if (namespace) throw new KubeRequestError(`${gvk.kind} is cluster-scoped; got namespace ${namespace}`);
    return '';
  }
  if (namespace) return `/namespaces/${encodeURIComponent(namespace)}`;
  if (name !== undefined) throw new KubeRequestError(`${gvk.kind} is namespaced; a namespace is required`);
  return '';
}

/** The path of a collection (no name) or an object (with name), optionally a subresource. */
export function resourcePath(gvk: GroupVersionKind, options: ResourcePathOptions = {}): string {
  const { namespace, name, subresource } = options;
  if (name === '') throw new KubeRequestError(`${gvk.kind}: empty name`);
  if (subresource && name === undefined)
    throw new KubeRequestError(`${gvk.kind}: a subresource needs a name`);
  const base = `${groupVersionPath(gvk)}${scopePath(gvk, namespace, name)}/${gvk.plural}`;
  const object = name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
  return subresource ? `${object}/${subresource}` : object;
}

export type QueryValue = string | number | boolean | undefined;

/** `?a=1&b=x` with undefined and empty values left out; '' when nothing is left. */
export function queryString(query: Readonly<Record<string, QueryValue>> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== '') params.append(k, String(v));
  }
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}
