import type { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { createTokenRequest, type CreateTokenRequestOptions } from './token-request.js';
import { authenticateToken, newTokenKey, type ObjectLookup } from './tokens.js';

const key = newTokenKey();
const NOW = new Date('2025-03-01T10:00:00Z');

const stored: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'fn', namespace: 'team', uid: 'sa-uid' } },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'runner', namespace: 'team', uid: 'pod-uid' },
    spec: { serviceAccountName: 'fn', nodeName: 'node-1' },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'other', namespace: 'team', uid: 'o' },
    spec: { serviceAccountName: 'default' },
  },
  { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'node-uid' } },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'team', uid: 'secret-uid' } },
];

const lookup: ObjectLookup = (plural, namespace, name) =>
  stored.find(
    (o) =>
      `${o.kind.toLowerCase()}s` === plural && o.metadata.name === name && o.metadata.namespace === namespace,
  );

function request(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata, spec };
}

function call(body: KubeObject, extra: Partial<CreateTokenRequestOptions> = {}): KubeObject {
  return createTokenRequest({ namespace: 'team', name: 'fn', body, key, lookup, now: NOW, ...extra });
}

function failure(body: KubeObject, extra: Partial<CreateTokenRequestOptions> = {}): StatusError {
  try {
    call(body, extra);
  } catch (e) {
    return e as StatusError;
  }
  throw new Error('expected a failure');
}

describe('createTokenRequest', () => {
  it('answers a TokenRequest with a token for the service account', () => {
    const out = call(request());
    expect(out).toEqual({
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: 'fn', namespace: 'team', creationTimestamp: '2025-03-01T10:00:00Z' },
      spec: {
        audiences: ['https://kubernetes.default.svc.cluster.local'],
        expirationSeconds: 3600,
        boundObjectRef: null,
      },
      status: { token: expect.any(String), expirationTimestamp: '2025-03-01T11:00:00Z' },
    });
    const user = authenticateToken((out.status as { token: string }).token, key, lookup, { now: NOW });
    expect(user?.username).toBe('system:serviceaccount:team:fn');
  });

  it('keeps the requested audiences and expiration', () => {
    const out = call(request({ audiences: ['vault'], expirationSeconds: 7200 }));
    expect(out.spec).toMatchObject({ audiences: ['vault'], expirationSeconds: 7200 });
    expect(out.status).toMatchObject({ expirationTimestamp: '2025-03-01T12:00:00Z' });
    expect(
      authenticateToken((out.status as { token: string }).token, key, lookup, { now: NOW }),
    ).toBeUndefined();
  });

  it('binds a token to a pod (and its node)', () => {
    const ref = { kind: 'Pod', apiVersion: 'v1', name: 'runner', uid: 'pod-uid' };
    const out = call(request({ boundObjectRef: ref }));
    expect(out.spec).toMatchObject({ boundObjectRef: ref });
    const user = authenticateToken((out.status as { token: string }).token, key, lookup, { now: NOW });
    expect(user?.extra).toMatchObject({
      'authentication.kubernetes.io/pod-name': ['runner'],
      'authentication.kubernetes.io/node-name': ['node-1'],
      'authentication.kubernetes.io/node-uid': ['node-uid'],
    });
  });

  const cases: [string, KubeObject, Partial<CreateTokenRequestOptions>, number, string][] = [
    ['an unknown service account', request(), { name: 'ghost' }, 404, 'serviceaccounts "ghost" not found'],
    [
      'a body naming another service account',
      request({}, { name: 'default' }),
      {},
      422,
      'TokenRequest.authentication.k8s.io "fn" is invalid: metadata.name: Invalid value: "default": must match the service account name if specified',
    ],
    [
      'a body in another namespace',
      request({}, { namespace: 'default' }),
      {},
      422,
      'TokenRequest.authentication.k8s.io "fn" is invalid: metadata.namespace: Invalid value: "default": must match the service account namespace if specified',
    ],
    [
      'an expiration under ten minutes',
      request({ expirationSeconds: 500 }),
      {},
      422,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 500: may not specify a duration less than 10 minutes',
    ],
    [
      'an expiration over 2^32 seconds',
      request({ expirationSeconds: 2 ** 32 + 1 }),
      {},
      422,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
    ],
    [
      'a bound object of an unsupported kind',
      request({ boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'c' } }),
      {},
      400,
      'cannot bind token to object of type /v1, Kind=ConfigMap',
    ],
    [
      'a missing bound pod',
      request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'gone' } }),
      {},
      404,
      'pods "gone" not found',
    ],
    [
      'a pod running as another service account',
      request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other' } }),
      {},
      400,
      'cannot bind token for serviceaccount "fn" to pod running with different serviceaccount name.',
    ],
    [
      'a bound secret of another uid',
      request({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'old' } }),
      {},
      409,
      'Operation cannot be fulfilled on Secret "s": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated',
    ],
  ];
  it.each(cases)('refuses %s', (_name, body, extra, code, message) => {
    const err = failure(body, extra);
    expect({ code: err.code, message: err.message }).toEqual({ code, message });
  });
});
