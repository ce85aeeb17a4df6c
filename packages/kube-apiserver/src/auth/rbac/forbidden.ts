/**
 * The 403 a kube-apiserver answers when no authorizer allows a request
 * (responsewriters.Forbidden → apierrors.NewForbidden), e.g.
 *
 *   configmaps is forbidden: User "system:serviceaccount:default:fn" cannot list resource
 *   "configmaps" in API group "" in the namespace "default"
 *
 * `<resource>.<group> "<name>" is forbidden: ...` when the request names an object, `... at the
 * cluster scope` without a namespace, `resource "deployments/scale"` for a subresource (the
 * prefix and details name the resource without it), and `forbidden: User "x" cannot get path
 * "/foo"` for non-resource requests. A non-empty authorizer reason is appended after `: `.
 */
import { StatusError, type StatusDetails } from '../../api/errors.js';
import { isResourceRequest } from './authorizer.js';
import type { Attributes } from './types.js';
import { goQuote } from '@landscape/apimachinery';

/** Avoid emitting errors that look like valid HTML (quotes are kept). */
function sanitize(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** forbiddenMessage: what the user may not do, without the `<resource> is forbidden: ` prefix. */
export function forbiddenMessage(attrs: Attributes): string {
  const user = goQuote(attrs.user.username);
  if (!isResourceRequest(attrs)) return `User ${user} cannot ${attrs.verb} path ${goQuote(attrs.path ?? '')}`;
  const resource = attrs.subresource
    ? `${attrs.resource ?? ''}/${attrs.subresource}`
    : (attrs.resource ?? '');
  const what = `User ${user} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup ?? '')}`;
  return attrs.namespace
    ? `${what} in the namespace ${goQuote(attrs.namespace)}`
    : `${what} at the cluster scope`;
}

/** The whole Status message of the 403. */
export function forbiddenStatusMessage(attrs: Attributes, reason = ''): string {
  const msg = sanitize(forbiddenMessage(attrs));
  const err = reason ? `${msg}: ${reason}` : msg;
  const group = attrs.apiGroup ?? '';
  const resource = isResourceRequest(attrs) ? (attrs.resource ?? '') : '';
  if (!resource && !group) return `forbidden: ${err}`; // an empty GroupResource
  const qualified = group ? `${resource}.${group}` : resource;
  return attrs.name
    ? `${qualified} ${goQuote(attrs.name)} is forbidden: ${err}`
    : `${qualified} is forbidden: ${err}`;
}

/** StatusDetails as Go serialises them: empty name and group are omitted. */
function details(attrs: Attributes): StatusDetails {
  if (!isResourceRequest(attrs)) return {};
  const out: StatusDetails = {};
  if (attrs.name) out.name = attrs.name;
  if (attrs.apiGroup) out.group = attrs.apiGroup;
  out.kind = attrs.resource;
  return out;
}

/** The 403 Forbidden StatusError for a denied request (`reason`: the authorizer's, often empty). */
export function forbiddenError(attrs: Attributes, reason = ''): StatusError {
  return new StatusError(403, 'Forbidden', forbiddenStatusMessage(attrs, reason), details(attrs));
}
