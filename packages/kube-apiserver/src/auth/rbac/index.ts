/**
 * RBAC for the embedded API server: authentication of bearer tokens (the cluster's admin token,
 * ServiceAccount tokens), authorization of every request as the Kubernetes RBAC authorizer
 * decides, the 403 a real server sends, the TokenRequest subresource, and the write-time rules
 * of the RBAC kinds. The server wires these in; nothing here touches HTTP.
 */
import { internalError } from '../../api/errors.js';
import type { Store } from '../../storage/store.js';
import { authorize } from './authorizer.js';
import { forbiddenError } from './forbidden.js';
import { attributesFor, requestInfo } from './request-info.js';
import type { ObjectLookup } from './tokens.js';
import { RBAC_RESOURCES, SYSTEM_MASTERS, type RbacObjects, type UserInfo } from './types.js';

export * from './types.js';
export {
  authorize,
  ruleAllows,
  rulesFor,
  subjectMatches,
  verbMatches,
  apiGroupMatches,
  resourceMatches,
  resourceNameMatches,
  nonResourceURLMatches,
} from './authorizer.js';
export { forbiddenError, forbiddenMessage, forbiddenStatusMessage } from './forbidden.js';
export { attributesFor, requestInfo, selectedName, type RequestInfo } from './request-info.js';
export {
  adminUser,
  authenticateBearer,
  authenticateToken,
  bearerToken,
  DEFAULT_AUDIENCES,
  DEFAULT_ISSUER,
  exportTokenKey,
  importTokenKey,
  issueToken,
  jwks,
  newTokenKey,
  verifySignature,
  type AuthenticateOptions,
  type BearerAuthOptions,
  type IssuedToken,
  type IssueTokenOptions,
  type ObjectLookup,
  type TokenClaims,
  type TokenKey,
} from './tokens.js';
export {
  createTokenRequest,
  tokenRequestDef,
  type CreateTokenRequestOptions,
  type TokenRequestSpec,
} from './token-request.js';
export {
  defaultRbacObject,
  isRbacDef,
  prepareRbacWrite,
  RBAC_KINDS,
  validateRbacName,
} from './validation.js';
export { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap.js';
export { accessReviewNamespace, selfSubjectAccessReview } from './access-review.js';

/** The RBAC objects an authorization in `namespace` needs, straight from a cluster's store. */
export function rbacObjectsFrom(store: Store, namespace?: string): RbacObjects {
  return {
    roles: namespace ? store.list(RBAC_RESOURCES.roles, namespace) : [],
    clusterRoles: store.list(RBAC_RESOURCES.clusterRoles),
    roleBindings: namespace ? store.list(RBAC_RESOURCES.roleBindings, namespace) : [],
    clusterRoleBindings: store.list(RBAC_RESOURCES.clusterRoleBindings),
  };
}

/** An ObjectLookup over a cluster's store (core-group objects by plural). */
export function storeLookup(store: Store): ObjectLookup {
  return (plural, namespace, name) => store.get(`/${plural}`, namespace, name);
}

/**
 * Authorizes one HTTP request of `user` against the RBAC objects in `store`: returns when
 * allowed, throws the 403 Forbidden StatusError a real server sends otherwise.
 */
export function authorizeRequest(store: Store, user: UserInfo, method: string, url: URL): void {
  if (user.groups.includes(SYSTEM_MASTERS)) return; // the privileged-group authorizer, without reading RBAC objects
  const info = requestInfo(method, url);
  if (info.error) throw internalError(`failed to create RequestInfo: ${info.error}`);
  const attrs = attributesFor(user, info);
  const decision = authorize(attrs, rbacObjectsFrom(store, info.namespace || undefined));
  if (!decision.allowed) throw forbiddenError(attrs, decision.reason);
}
