import type { KubeObject } from '../../api/types.js';
import {
  authenticateBearer,
  authenticateToken,
  bearerToken,
  exportTokenKey,
  importTokenKey,
  issueToken,
  jwks,
  newTokenKey,
  type ObjectLookup,
} from './tokens.js';

const key = newTokenKey();
const NOW = new Date('2025-03-01T10:00:00Z');
const at = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000);

function obj(
  kind: string,
  name: string,
  uid: string,
  namespace?: string,
  extra: Partial<KubeObject['metadata']> = {},
): KubeObject {
  return { apiVersion: 'v1', kind, metadata: { name, namespace, uid, ...extra } };
}

function lookupOf(objects: KubeObject[]): ObjectLookup {
  return (plural, namespace, name) =>
    objects.find(
      (o) =>
        `${o.kind.toLowerCase()}s` === plural &&
        o.metadata.name === name &&
        o.metadata.namespace === namespace,
    );
}

const fnSa = obj('ServiceAccount', 'fn', 'sa-uid', 'team');
const lookup = lookupOf([fnSa]);

function token(extra: Partial<Parameters<typeof issueToken>[0]> = {}): string {
  return issueToken({ key, namespace: 'team', serviceAccountName: 'fn', uid: 'sa-uid', now: NOW, ...extra })
    .token;
}

describe('issueToken', () => {
  it('issues an ES256 JWT with the claims of a real service account token', () => {
    const issued = issueToken({ key, namespace: 'team', serviceAccountName: 'fn', uid: 'sa-uid', now: NOW });
    const [header, payload, signature] = issued.token.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'ES256', kid: key.kid });
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    expect(Object.keys(claims)).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    expect(claims).toMatchObject({
      aud: ['https://kubernetes.default.svc.cluster.local'],
      iss: 'https://kubernetes.default.svc.cluster.local',
      sub: 'system:serviceaccount:team:fn',
      iat: NOW.getTime() / 1000,
      nbf: NOW.getTime() / 1000,
      exp: NOW.getTime() / 1000 + 3600,
      'kubernetes.io': { namespace: 'team', serviceaccount: { name: 'fn', uid: 'sa-uid' } },
    });
    expect(Buffer.from(signature, 'base64url')).toHaveLength(64);
    expect(issued.expirationTimestamp).toBe('2025-03-01T11:00:00Z');
  });

  it('keeps a key across restarts through PEM', () => {
    const again = importTokenKey(exportTokenKey(key));
    expect(again.kid).toBe(key.kid);
    expect(authenticateToken(token(), again, lookup, { now: NOW })?.username).toBe(
      'system:serviceaccount:team:fn',
    );
  });

  it('publishes the verification key as a JWK set', () => {
    expect(jwks(key).keys[0]).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      alg: 'ES256',
      use: 'sig',
      kid: key.kid,
    });
    expect(jwks(key).keys[0]).not.toHaveProperty('d');
  });
});

describe('authenticateToken', () => {
  it('authenticates a valid token as the service account', () => {
    expect(authenticateToken(token(), key, lookup, { now: at(10) })).toEqual({
      username: 'system:serviceaccount:team:fn',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [expect.stringMatching(/^JTI=[0-9a-f-]{36}$/)] },
    });
  });

  const pod = obj('Pod', 'p', 'pod-uid', 'team');
  const cases: [string, () => string | undefined, ObjectLookup, Date][] = [
    ['expired (beyond the 60 s leeway)', () => token({ expirationSeconds: 600 }), lookup, at(661)],
    ['issued in the future', () => token({ now: at(120) }), lookup, NOW],
    [
      'signed by another key',
      () =>
        issueToken({
          key: newTokenKey(),
          namespace: 'team',
          serviceAccountName: 'fn',
          uid: 'sa-uid',
          now: NOW,
        }).token,
      lookup,
      NOW,
    ],
    ['tampered with', () => token().replace(/\.(.)/, '.x'), lookup, NOW],
    ['not a JWT', () => 'abc', lookup, NOW],
    ['for another audience', () => token({ audiences: ['vault'] }), lookup, NOW],
    ['from another issuer', () => token({ issuer: 'https://elsewhere' }), lookup, NOW],
    ['of a deleted service account', () => token(), lookupOf([]), NOW],
    [
      'of a recreated service account',
      () => token(),
      lookupOf([obj('ServiceAccount', 'fn', 'new-uid', 'team')]),
      NOW,
    ],
    [
      'of a service account deleted over a minute ago',
      () => token(),
      lookupOf([
        obj('ServiceAccount', 'fn', 'sa-uid', 'team', { deletionTimestamp: '2025-03-01T09:58:00Z' }),
      ]),
      NOW,
    ],
    ['bound to a deleted pod', () => token({ pod: { name: 'p', uid: 'pod-uid' } }), lookup, NOW],
    [
      'bound to a recreated pod',
      () => token({ pod: { name: 'p', uid: 'pod-uid' } }),
      lookupOf([fnSa, obj('Pod', 'p', 'other', 'team')]),
      NOW,
    ],
  ];
  it.each(cases)('rejects a token %s', (_name, make, look, now) => {
    expect(authenticateToken(make()!, key, look, { now })).toBeUndefined();
  });

  it('accepts a token within the expiry leeway and bound to a live pod', () => {
    const bound = token({ expirationSeconds: 600, pod: { name: 'p', uid: 'pod-uid' } });
    const user = authenticateToken(bound, key, lookupOf([fnSa, pod]), { now: at(650) });
    expect(user?.extra).toMatchObject({
      'authentication.kubernetes.io/pod-name': ['p'],
      'authentication.kubernetes.io/pod-uid': ['pod-uid'],
    });
  });

  it('accepts a token for the API server among other audiences', () => {
    const t = token({ audiences: ['vault', 'https://kubernetes.default.svc.cluster.local'] });
    expect(authenticateToken(t, key, lookup, { now: NOW })?.username).toBe('system:serviceaccount:team:fn');
  });

  it('checks the service account on every use, not only the first', () => {
    const t = token();
    expect(authenticateToken(t, key, lookup, { now: NOW })).toBeDefined();
    expect(authenticateToken(t, key, lookupOf([]), { now: NOW })).toBeUndefined();
  });
});

describe('authenticateBearer', () => {
  const opts = { adminToken: 'admin-secret', key, lookup, now: NOW };
  it.each([
    ['Bearer admin-secret', 'admin'],
    ['bearer admin-secret', 'admin'],
    ['  Bearer admin-secret  ', 'admin'],
    ['Bearer wrong', undefined],
    ['Basic YWRtaW4=', undefined],
    ['Bearer', undefined],
    ['', undefined],
  ])('%j → %s', (header, username) => {
    expect(authenticateBearer(header, opts)?.username).toBe(username);
  });

  it('maps the admin token to system:masters', () => {
    expect(authenticateBearer('Bearer admin-secret', opts)).toEqual({
      username: 'admin',
      groups: ['system:masters', 'system:authenticated'],
    });
  });

  it('authenticates service account tokens', () => {
    expect(authenticateBearer(`Bearer ${token()}`, opts)?.username).toBe('system:serviceaccount:team:fn');
  });

  it('reads the token as the bearer authenticator does', () => {
    expect(bearerToken('Bearer a b')).toBe('a');
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
