/**
 * SelfSubjectAccessReview (authorization.k8s.io/v1), what `kubectl auth can-i` asks:
 *
 *   POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews
 *   { "spec": { "resourceAttributes": { "namespace", "verb", "group", "version", "resource",
 *               "subresource", "name" } } }   or   { "spec": { "nonResourceAttributes": { "path", "verb" } } }
 *   → 201, the review with status { allowed, reason? }
 *
 * Evaluated with the same authorizer as requests (system:masters short cut included); 422 when
 * both or neither attribute sets are given.
 */
import { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { authorize } from './authorizer.js';
import type { Attributes, RbacObjects, UserInfo } from './types.js';
import { goQuote, goStruct } from '@landscape/apimachinery';

const GROUP = 'authorization.k8s.io';

type Json = Record<string, unknown>;

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function invalidSpec(field: string, goValue: string, detail: string): StatusError {
  const rendered = `${field}: Invalid value: ${goValue}: ${detail}`;
  return new StatusError(422, 'Invalid', `SelfSubjectAccessReview.${GROUP} "" is invalid: ${rendered}`, {
    group: GROUP,
    kind: 'SelfSubjectAccessReview',
    causes: [{ reason: 'FieldValueInvalid', message: rendered.slice(field.length + 2), field }],
  });
}

/** ResourceAttributesFrom / NonResourceAttributesFrom. */
function attributesOf(user: UserInfo, spec: Json): Attributes {
  const res = spec.resourceAttributes as Json | undefined;
  const nonRes = spec.nonResourceAttributes as Json | undefined;
  if (res && nonRes)
    throw invalidSpec(
      'spec.nonResourceAttributes',
      goStruct('authorization.NonResourceAttributes', [
        ['Path', text(nonRes.path)],
        ['Verb', text(nonRes.verb)],
      ]),
      'cannot be specified in combination with resourceAttributes',
    );
  if (nonRes) return { user, verb: text(nonRes.verb), path: text(nonRes.path), resourceRequest: false };
  if (!res)
    throw invalidSpec(
      'spec.resourceAttributes',
      goQuote('null'),
      'exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  return {
    user,
    verb: text(res.verb),
    apiGroup: text(res.group),
    apiVersion: text(res.version) || '*',
    resource: text(res.resource),
    subresource: text(res.subresource) || undefined,
    name: text(res.name) || undefined,
    namespace: text(res.namespace) || undefined,
    resourceRequest: true,
  };
}

/** The namespace whose RoleBindings the review needs (for rbacObjectsFrom). */
export function accessReviewNamespace(body: KubeObject): string | undefined {
  const res = (body.spec as Json | undefined)?.resourceAttributes as Json | undefined;
  return text(res?.namespace) || undefined;
}

/** Answers a SelfSubjectAccessReview for `user`: the review with its status (send it with 201). */
export function selfSubjectAccessReview(user: UserInfo, body: KubeObject, objects: RbacObjects): KubeObject {
  const spec = (body.spec ?? {}) as Json;
  const decision = authorize(attributesOf(user, spec), objects);
  const status: Json = { allowed: decision.allowed };
  if (decision.reason) status.reason = decision.reason;
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: `${GROUP}/v1`,
    metadata: {
      ...body.metadata,
      creationTimestamp: body.metadata?.creationTimestamp ?? null,
    } as KubeObject['metadata'],
    spec,
    status,
  };
}
