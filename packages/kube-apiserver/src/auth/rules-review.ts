/**
 * `POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews` (what `kubectl auth can-i --list`
 * asks): the rules the requesting user has in a namespace, from the cluster's RBAC objects
 * (pkg/registry/authorization/selfsubjectrulesreview/rest.go over the RBAC authorizer's
 * RulesFor: every ClusterRoleBinding, then the namespace's RoleBindings; a binding to a missing
 * role makes the answer `incomplete` with the error). With RBAC off, what kube's AlwaysAllow
 * authorizer answers: everything (`*`).
 */
import type { IncomingMessage } from 'node:http';
import { badRequest, methodNotAllowed } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { parseJson } from '../endpoints/decode.js';
import { readBody } from '../endpoints/request.js';
import type { Store } from '../storage/store.js';
import { rulesFor } from './rbac/authorizer.js';
import { rbacObjectsFrom } from './rbac/index.js';
import type { PolicyRule, UserInfo } from './rbac/types.js';

export const RULES_REVIEW_PATH = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';

const ALL = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

function status(user: UserInfo, namespace: string, store: Store, rbac: boolean): Record<string, unknown> {
  if (!rbac) return { ...ALL, incomplete: false };
  const { rules, errors } = rulesFor(user, namespace, rbacObjectsFrom(store, namespace || undefined));
  const resource = (r: PolicyRule): boolean => !r.nonResourceURLs?.length;
  const out: Record<string, unknown> = {
    resourceRules: rules.filter(resource).map((r) => ({
      verbs: r.verbs,
      apiGroups: r.apiGroups ?? [],
      resources: r.resources ?? [],
      ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
    })),
    nonResourceRules: rules
      .filter((r) => !resource(r))
      .map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
    incomplete: errors.length > 0,
  };
  if (errors.length) out.evaluationError = errors.join(', ');
  return out;
}

/** Answers a SelfSubjectRulesReview for `user` (send it with 201). */
export async function rulesReview(
  ctx: { store: Store; rbac: boolean },
  req: IncomingMessage,
  user: UserInfo,
): Promise<KubeObject> {
  if (req.method !== 'POST') throw methodNotAllowed();
  const body = parseJson(await readBody(req)) as KubeObject;
  if (typeof body !== 'object' || body === null || body.kind !== 'SelfSubjectRulesReview')
    throw badRequest('the body must be a SelfSubjectRulesReview of authorization.k8s.io/v1');
  const ns = (body.spec as { namespace?: unknown } | undefined)?.namespace;
  const namespace = typeof ns === 'string' ? ns : '';
  return {
    kind: 'SelfSubjectRulesReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null } as unknown as KubeObject['metadata'],
    spec: { ...(namespace ? { namespace } : {}) },
    status: status(user, namespace, ctx.store, ctx.rbac),
  };
}
