/**
 * ServiceAccount tokens as a kube-apiserver issues them through the TokenRequest API: ES256
 * JWTs signed with the cluster's own key, carrying the `kubernetes.io` private claims
 * (namespace, service account name and uid, bound pod/secret/node), and authenticated back into
 * `system:serviceaccount:<ns>:<name>` with the groups `system:serviceaccounts`,
 * `system:serviceaccounts:<ns>` and `system:authenticated`.
 *
 * A token stops authenticating when it expires (60 s leeway, as go-jose), when its audiences do
 * not include one of the API server's, when its service account (or bound object) is gone or was
 * recreated with another uid, or when it was signed by another key.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from 'node:crypto';
import type { KubeObject } from '../../api/types.js';
import {
  serviceAccountGroups,
  serviceAccountUsername,
  SYSTEM_AUTHENTICATED,
  SYSTEM_MASTERS,
  type UserInfo,
} from './types.js';

export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const DEFAULT_AUDIENCES: readonly string[] = [DEFAULT_ISSUER];
/** go-jose's jwt.DefaultLeeway. */
const LEEWAY_SECONDS = 60;

export interface TokenKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** base64url(sha256(DER public key)), as kube-apiserver derives its key id. */
  kid: string;
}

function keyOf(privateKey: KeyObject, publicKey: KeyObject): TokenKey {
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return { privateKey, publicKey, kid: createHash('sha256').update(der).digest('base64url') };
}

/** A fresh P-256 key pair for one cluster's service account tokens. */
export function newTokenKey(): TokenKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return keyOf(privateKey, publicKey);
}

/** The private key as PKCS#8 PEM, to keep it across restarts (tokens issued before stay valid). */
export function exportTokenKey(key: TokenKey): string {
  return key.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

/** A key saved with exportTokenKey. */
export function importTokenKey(pem: string): TokenKey {
  const privateKey = createPrivateKey(pem);
  return keyOf(privateKey, createPublicKey(privateKey));
}

/** The public key as a JWK Set (what `/openid/v1/jwks` serves). */
export function jwks(key: TokenKey): { keys: Record<string, unknown>[] } {
  return {
    keys: [{ use: 'sig', kty: 'EC', kid: key.kid, alg: 'ES256', ...key.publicKey.export({ format: 'jwk' }) }],
  };
}

interface ObjectRefClaim {
  name: string;
  uid: string;
}

export interface TokenClaims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  'kubernetes.io': {
    namespace: string;
    node?: ObjectRefClaim;
    pod?: ObjectRefClaim;
    secret?: ObjectRefClaim;
    serviceaccount: ObjectRefClaim;
  };
  nbf: number;
  sub: string;
}

export interface IssueTokenOptions {
  key: TokenKey;
  namespace: string;
  serviceAccountName: string;
  /** The service account's metadata.uid (a recreated account invalidates the token). */
  uid: string;
  /** Default: the API server's audiences. */
  audiences?: readonly string[];
  /** Default 3600. */
  expirationSeconds?: number;
  now?: Date;
  issuer?: string;
  /** Objects the token is bound to (it dies with them). */
  pod?: ObjectRefClaim;
  secret?: ObjectRefClaim;
  node?: ObjectRefClaim;
}

export interface IssuedToken {
  token: string;
  /** RFC 3339, as TokenRequest status.expirationTimestamp. */
  expirationTimestamp: string;
  claims: TokenClaims;
}

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

function rfc3339(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function kubernetesClaims(o: IssueTokenOptions): TokenClaims['kubernetes.io'] {
  const claims: TokenClaims['kubernetes.io'] = { namespace: o.namespace } as TokenClaims['kubernetes.io'];
  if (o.node) claims.node = { name: o.node.name, uid: o.node.uid };
  if (o.pod) claims.pod = { name: o.pod.name, uid: o.pod.uid };
  if (o.secret) claims.secret = { name: o.secret.name, uid: o.secret.uid };
  claims.serviceaccount = { name: o.serviceAccountName, uid: o.uid };
  return claims;
}

/** Issues a signed service account token (claims in the order a real token has them). */
export function issueToken(o: IssueTokenOptions): IssuedToken {
  const now = Math.floor((o.now ?? new Date()).getTime() / 1000);
  const exp = now + (o.expirationSeconds ?? 3600);
  const claims: TokenClaims = {
    aud: [...(o.audiences ?? DEFAULT_AUDIENCES)],
    exp,
    iat: now,
    iss: o.issuer ?? DEFAULT_ISSUER,
    jti: randomUUID(),
    'kubernetes.io': kubernetesClaims(o),
    nbf: now,
    sub: serviceAccountUsername(o.namespace, o.serviceAccountName),
  };
  const input = `${b64({ alg: 'ES256', kid: o.key.kid })}.${b64(claims)}`;
  const signature = sign('sha256', Buffer.from(input), { key: o.key.privateKey, dsaEncoding: 'ieee-p1363' });
  return { token: `${input}.${signature.toString('base64url')}`, expirationTimestamp: rfc3339(exp), claims };
}

/** Verified signatures per key (tokens are re-sent on every request; claims are still checked each time). */
const verified = new WeakMap<TokenKey, Map<string, TokenClaims>>();
const CACHE_SIZE = 1024;

function parseJson(part: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function checkSignature(token: string, key: TokenKey): TokenClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const header = parseJson(parts[0]);
  if (header?.alg !== 'ES256' || (header.kid !== undefined && header.kid !== key.kid)) return undefined;
  const ok = verify(
    'sha256',
    Buffer.from(`${parts[0]}.${parts[1]}`),
    { key: key.publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(parts[2], 'base64url'),
  );
  return ok ? (parseJson(parts[1]) as TokenClaims | undefined) : undefined;
}

/** The claims of a token signed with `key`, or undefined (bad format or signature). */
export function verifySignature(token: string, key: TokenKey): TokenClaims | undefined {
  let cache = verified.get(key);
  if (!cache) {
    cache = new Map();
    verified.set(key, cache);
  }
  const hit = cache.get(token);
  if (hit) return hit;
  const claims = checkSignature(token, key);
  if (!claims) return undefined;
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(token, claims);
  return claims;
}

/** Looks up a stored object by plural (core group): the service account and the objects a token is bound to. */
export type ObjectLookup = (
  plural: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes',
  namespace: string | undefined,
  name: string,
) => KubeObject | undefined;

export interface AuthenticateOptions {
  /** Default: DEFAULT_ISSUER. */
  issuer?: string;
  /** The API server's audiences; a token must carry one of them. Default: DEFAULT_AUDIENCES. */
  audiences?: readonly string[];
  now?: Date;
}

/** jwt.Claims.ValidateWithLeeway: not expired, not before nbf, not issued in the future (60 s leeway each). */
function timesValid(c: TokenClaims, now: Date): boolean {
  const t = Math.floor(now.getTime() / 1000);
  if (typeof c.exp !== 'number' || t - LEEWAY_SECONDS > c.exp) return false;
  if (typeof c.nbf === 'number' && t + LEEWAY_SECONDS < c.nbf) return false;
  return !(typeof c.iat === 'number' && t + LEEWAY_SECONDS < c.iat);
}

/** The time checks plus the issuer and the audiences (one of the API server's must be among them). */
function claimsValid(c: TokenClaims, opts: AuthenticateOptions): boolean {
  if (!timesValid(c, opts.now ?? new Date())) return false;
  if (c.iss !== (opts.issuer ?? DEFAULT_ISSUER)) return false;
  const apiAudiences = opts.audiences ?? DEFAULT_AUDIENCES;
  return Array.isArray(c.aud) && c.aud.some((a) => apiAudiences.includes(a));
}

/** A referenced object still exists with the claimed uid and was not deleted more than the leeway ago. */
function stillThere(obj: KubeObject | undefined, uid: string, now: Date): boolean {
  if (!obj || obj.metadata.uid !== uid) return false;
  const deleted = obj.metadata.deletionTimestamp;
  return !deleted || Date.parse(deleted) >= now.getTime() - LEEWAY_SECONDS * 1000;
}

function boundObjectsValid(k: TokenClaims['kubernetes.io'], lookup: ObjectLookup, now: Date): boolean {
  if (k.pod && !stillThere(lookup('pods', k.namespace, k.pod.name), k.pod.uid, now)) return false;
  if (k.secret && !stillThere(lookup('secrets', k.namespace, k.secret.name), k.secret.uid, now)) return false;
  return !k.node || stillThere(lookup('nodes', undefined, k.node.name), k.node.uid, now);
}

function extraOf(c: TokenClaims): Record<string, string[]> {
  const k = c['kubernetes.io'];
  const extra: Record<string, string[]> = {};
  if (k.pod) {
    extra['authentication.kubernetes.io/pod-name'] = [k.pod.name];
    extra['authentication.kubernetes.io/pod-uid'] = [k.pod.uid];
  }
  if (k.node) {
    extra['authentication.kubernetes.io/node-name'] = [k.node.name];
    extra['authentication.kubernetes.io/node-uid'] = [k.node.uid];
  }
  extra['authentication.kubernetes.io/credential-id'] = [`JTI=${c.jti}`];
  return extra;
}

/** The service account (and bound objects) the claims name still exist as they were. */
function subjectValid(k: TokenClaims['kubernetes.io'] | undefined, lookup: ObjectLookup, now: Date): boolean {
  if (!k?.namespace || !k.serviceaccount?.name) return false;
  const sa = lookup('serviceaccounts', k.namespace, k.serviceaccount.name);
  return stillThere(sa, k.serviceaccount.uid, now) && boundObjectsValid(k, lookup, now);
}

/** The service account user a token stands for, or undefined when it does not authenticate. */
export function authenticateToken(
  token: string,
  key: TokenKey,
  lookup: ObjectLookup,
  opts: AuthenticateOptions = {},
): UserInfo | undefined {
  const claims = verifySignature(token, key);
  if (!claims || !claimsValid(claims, opts)) return undefined;
  const k = claims['kubernetes.io'];
  if (!subjectValid(k, lookup, opts.now ?? new Date())) return undefined;
  return {
    username: serviceAccountUsername(k.namespace, k.serviceaccount.name),
    uid: k.serviceaccount.uid,
    groups: [...serviceAccountGroups(k.namespace), SYSTEM_AUTHENTICATED],
    extra: extraOf(claims),
  };
}

/** The cluster admin (the cluster's static token): a member of system:masters. */
export function adminUser(): UserInfo {
  return { username: 'admin', groups: [SYSTEM_MASTERS, SYSTEM_AUTHENTICATED] };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), as the bearer authenticator reads it. */
export function bearerToken(header: string | undefined): string | undefined {
  const parts = (header ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

/** The admin tokens' bytes (one per cluster), kept: every request is compared with one. */
const tokenBytes = new Map<string, Buffer>();

function sameToken(token: string, admin: string): boolean {
  let y = tokenBytes.get(admin);
  if (!y) {
    if (tokenBytes.size >= 64) tokenBytes.clear(); // servers come and go in one process (tests)
    tokenBytes.set(admin, (y = Buffer.from(admin)));
  }
  const x = Buffer.from(token);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface BearerAuthOptions extends AuthenticateOptions {
  adminToken: string;
  key: TokenKey;
  lookup: ObjectLookup;
}

/** Authenticates an Authorization header: the admin token, else a service account token; undefined → 401. */
export function authenticateBearer(
  header: string | undefined,
  opts: BearerAuthOptions,
): UserInfo | undefined {
  const token = bearerToken(header);
  if (!token) return undefined;
  if (sameToken(token, opts.adminToken)) return adminUser();
  return authenticateToken(token, opts.key, opts.lookup, opts);
}
