/**
 * User impersonation (`Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid`,
 * `Impersonate-Extra-<key>` headers; kubectl --as, --as-group, --as-uid), as kube-apiserver's
 * filter does it (k8s.io/apiserver pkg/endpoints/filters/impersonation.go): the acting user needs
 * the `impersonate` verb on `users` (or `serviceaccounts` in the account's namespace), on each
 * of `groups`, on `uids` and `userextras/<key>` of authentication.k8s.io; else 403 with the
 * authorizer's message (`users "bob" is forbidden: User "x" cannot impersonate resource "users"
 * in API group "" at the cluster scope`). Allowed, the request runs as the impersonated user: a
 * ServiceAccount gets its groups when none are asked for, and everyone `system:authenticated`.
 * With RBAC off every authenticated user may do everything, impersonation included: the request
 * then runs as the impersonated user too (not ignored), as behind kube's AlwaysAllow authorizer.
 */
import type { IncomingMessage } from 'node:http';
import { badRequest } from '../api/errors.js';
import type { Store } from '../storage/store.js';
import { authorize } from './rbac/authorizer.js';
import { forbiddenError } from './rbac/forbidden.js';
import { rbacObjectsFrom } from './rbac/index.js';
import {
  SERVICE_ACCOUNT_PREFIX,
  SYSTEM_AUTHENTICATED,
  SYSTEM_MASTERS,
  serviceAccountGroups,
  type Attributes,
  type UserInfo,
} from './rbac/types.js';

const EXTRA_PREFIX = 'impersonate-extra-';
const AUTHN_GROUP = 'authentication.k8s.io';

interface Requested {
  user?: string;
  groups: string[];
  uid?: string;
  extra: Record<string, string[]>;
}

/** Whether any `Impersonate-*` header came (req.headers is parsed anyway; headersDistinct is not). */
function asksImpersonation(req: IncomingMessage): boolean {
  for (const name in req.headers) if (name.startsWith('impersonate-')) return true;
  return false;
}

function requested(req: IncomingMessage): Requested {
  if (!asksImpersonation(req)) return { groups: [], extra: {} };
  const h = req.headersDistinct;
  const extra: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(h))
    if (name.startsWith(EXTRA_PREFIX) && values)
      extra[decodeURIComponent(name.slice(EXTRA_PREFIX.length))] = values;
  return {
    user: h['impersonate-user']?.[0],
    groups: h['impersonate-group'] ?? [],
    uid: h['impersonate-uid']?.[0],
    extra,
  };
}

/** The authorizations the impersonation needs, one per thing impersonated. */
function checks(actor: UserInfo, r: Requested, user: string): Attributes[] {
  const base = { user: actor, verb: 'impersonate', resourceRequest: true };
  const out: Attributes[] = [];
  if (user.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [namespace, name] = user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    out.push({ ...base, apiGroup: '', resource: 'serviceaccounts', namespace, name });
  } else out.push({ ...base, apiGroup: '', resource: 'users', name: user });
  for (const g of r.groups) out.push({ ...base, apiGroup: '', resource: 'groups', name: g });
  if (r.uid) out.push({ ...base, apiGroup: AUTHN_GROUP, resource: 'uids', name: r.uid });
  for (const [key, values] of Object.entries(r.extra))
    for (const v of values)
      out.push({ ...base, apiGroup: AUTHN_GROUP, resource: 'userextras', subresource: key, name: v });
  return out;
}

function impersonatedGroups(r: Requested, user: string): string[] {
  const groups = [...r.groups];
  if (!groups.length && user.startsWith(SERVICE_ACCOUNT_PREFIX))
    groups.push(...serviceAccountGroups(user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':')[0]));
  if (!groups.includes(SYSTEM_AUTHENTICATED)) groups.push(SYSTEM_AUTHENTICATED);
  return groups;
}

/** 403 unless `actor` may impersonate everything asked for (system:masters may, without reading RBAC). */
function checkAllowed(actor: UserInfo, r: Requested, user: string, store: Store): void {
  if (actor.groups.includes(SYSTEM_MASTERS)) return;
  for (const attrs of checks(actor, r, user)) {
    const decision = authorize(attrs, rbacObjectsFrom(store, attrs.namespace));
    if (!decision.allowed) throw forbiddenError(attrs, decision.reason);
  }
}

/** The user a request runs as: `actor`, or whom it impersonates (checked when `rbac`). */
export function impersonate(req: IncomingMessage, actor: UserInfo, store: Store, rbac: boolean): UserInfo {
  const r = requested(req);
  const user = r.user;
  if (!user) {
    if (r.groups.length || r.uid || Object.keys(r.extra).length)
      throw badRequest('requested impersonation without impersonating a user');
    return actor;
  }
  if (rbac) checkAllowed(actor, r, user, store);
  return {
    username: user,
    groups: impersonatedGroups(r, user),
    ...(r.uid ? { uid: r.uid } : {}),
    ...(Object.keys(r.extra).length ? { extra: r.extra } : {}),
  };
}
