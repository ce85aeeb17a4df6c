/**
 * `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews` (what `kubectl auth can-i` asks):
 * may the requesting user do this? Answered from the cluster's RBAC objects; where RBAC is not
 * enforced every authenticated user may do everything, and the answer says so.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, methodNotAllowed } from '../api/errors.js';
import { parseJson } from '../endpoints/decode.js';
import {
  accessReviewNamespace,
  rbacObjectsFrom,
  selfSubjectAccessReview,
  type UserInfo,
} from './rbac/index.js';
import { readBody } from '../endpoints/request.js';
import type { Store } from '../storage/store.js';
import type { KubeObject } from '../api/types.js';

export const ACCESS_REVIEW_PATH = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

export interface ReviewContext {
  store: Store;
  rbac: boolean;
}

export async function accessReview(
  ctx: ReviewContext,
  req: IncomingMessage,
  user: UserInfo,
): Promise<KubeObject> {
  if (req.method !== 'POST') throw methodNotAllowed();
  const body = parseJson(await readBody(req)) as KubeObject;
  if (typeof body !== 'object' || body === null || body.kind !== 'SelfSubjectAccessReview') {
    throw badRequest('the body must be a SelfSubjectAccessReview of authorization.k8s.io/v1');
  }
  const review = selfSubjectAccessReview(user, body, rbacObjectsFrom(ctx.store, accessReviewNamespace(body)));
  if (ctx.rbac) return review;
  return {
    ...review,
    status: {
      allowed: true,
      reason: 'RBAC is not enforced in this cluster: every authenticated user may do everything',
    },
  };
}

export function sendReview(res: ServerResponse, review: KubeObject): void {
  res.writeHead(201, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(review));
}
