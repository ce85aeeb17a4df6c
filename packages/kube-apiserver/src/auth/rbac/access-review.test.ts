import type { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { selfSubjectAccessReview } from './access-review.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap.js';
import { objects, plainUser, role, roleBinding, sa, saUser } from './rbac.fixtures.js';

const fn = saUser('team', 'fn');
const policy = objects({
  roles: [role('team', 'reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }])],
  roleBindings: [roleBinding('team', 'rb', { kind: 'Role', name: 'reader' }, [sa('fn')])],
  clusterRoles: bootstrapClusterRoles(),
  clusterRoleBindings: bootstrapClusterRoleBindings(),
});

function review(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: {}, spec };
}

describe('selfSubjectAccessReview', () => {
  it.each([
    [{ resourceAttributes: { namespace: 'team', verb: 'list', resource: 'configmaps' } }, true],
    [{ resourceAttributes: { namespace: 'team', verb: 'create', resource: 'configmaps' } }, false],
    [{ resourceAttributes: { namespace: 'other', verb: 'list', resource: 'configmaps' } }, false],
    [{ resourceAttributes: { verb: 'list', resource: 'configmaps' } }, false],
    [{ nonResourceAttributes: { verb: 'get', path: '/version' } }, true],
    [{ nonResourceAttributes: { verb: 'get', path: '/metrics' } }, false],
  ])('%j → allowed %s', (spec, allowed) => {
    expect((selfSubjectAccessReview(fn, review(spec), policy).status as { allowed: boolean }).allowed).toBe(
      allowed,
    );
  });

  it('answers with the review, its status and the reason of an allowance', () => {
    const spec = {
      resourceAttributes: { namespace: 'team', verb: 'get', resource: 'configmaps', name: 'x' },
    };
    expect(selfSubjectAccessReview(fn, review(spec), policy)).toEqual({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec,
      status: {
        allowed: true,
        reason: 'RBAC: allowed by RoleBinding "rb/team" of Role "reader" to ServiceAccount "fn/team"',
      },
    });
    expect(
      selfSubjectAccessReview(
        fn,
        review({ resourceAttributes: { verb: 'delete', resource: 'nodes' } }),
        policy,
      ).status,
    ).toEqual({
      allowed: false,
    });
  });

  it('allows system:masters everything', () => {
    const admin = plainUser('admin', ['system:masters']);
    const out = selfSubjectAccessReview(
      admin,
      review({ resourceAttributes: { verb: '*', group: '*', resource: '*' } }),
      objects({}),
    );
    expect(out.status).toEqual({ allowed: true });
  });

  it.each([
    [
      {},
      'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    ],
    [
      { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { verb: 'get', path: '/' } },
      'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    ],
  ])('refuses %j', (spec, detail) => {
    let err: StatusError | undefined;
    try {
      selfSubjectAccessReview(fn, review(spec), policy);
    } catch (e) {
      err = e as StatusError;
    }
    expect(err?.code).toBe(422);
    expect(err?.message).toBe(`SelfSubjectAccessReview.authorization.k8s.io "" is invalid: ${detail}`);
  });
});
