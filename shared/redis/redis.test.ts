import { CacheUsageError, SecretValueError } from './errors.js';
import { assertCacheable, findSecret } from './guard.js';
import { keyspace } from './keys.js';
import { encodeJson } from './json.js';
import {
  DISCONNECT_TIMEOUT_MS,
  isConnectionError,
  redisOptions,
  safeRedisUrl,
  toRedisError,
} from './client.js';
import { RedisUnavailableError } from './errors.js';
import { expiresAt, fromPttl, ttlSeconds } from './ttl.js';

const KUBECONFIG = `apiVersion: v1
clusters:
- cluster: {server: https://x}
  name: c
users:
- name: u
  user: {}
`;
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJl';

describe('keyspace', () => {
  const ks = keyspace('dwd-prober');
  it('prefixes keys with the family', () => {
    expect(ks.key('shoot', 'garden-dev', 'a')).toBe('landscape:dwd-prober:shoot:garden-dev:a');
    expect(ks.pattern).toBe('landscape:dwd-prober:*');
  });
  it('escapes separators so parts cannot collide', () => {
    expect(ks.key('a:b', 'c')).not.toBe(ks.key('a', 'b:c'));
    expect(ks.parse(ks.key('a:b', '100%', 'c'))).toEqual(['a:b', '100%', 'c']);
  });
  it('parse refuses keys of other families', () => {
    expect(ks.parse('landscape:other:x')).toBeUndefined();
  });
  it.each([[''], ['1abc'], ['has space'], ['a'.repeat(64)]])('refuses family %j', (f) => {
    expect(() => keyspace(f)).toThrow(CacheUsageError);
  });
  it('refuses no or empty parts', () => {
    expect(() => ks.key()).toThrow(CacheUsageError);
    expect(() => ks.key('a', '')).toThrow(CacheUsageError);
  });
});

describe('ttl', () => {
  it('rounds seconds up and computes expiry', () => {
    expect(ttlSeconds(1001)).toBe(2);
    expect(expiresAt(new Date('2024-01-01T00:00:00Z'), 1500).toISOString()).toBe('2024-01-01T00:00:01.500Z');
  });
  it('reads PTTL replies', () => {
    expect(fromPttl(-2)).toBeUndefined();
    expect(fromPttl(-1)).toBe('none');
    expect(fromPttl(42)).toBe(42);
  });
});

describe('secret guard', () => {
  it.each([
    ['a kubeconfig string', { target: { config: KUBECONFIG } }, '$.target.config'],
    ['a kubeconfig key', { spec: { kubeconfig: 'anything' } }, '$.spec.kubeconfig'],
    ['a token key', { auth: { token: 'abc' } }, '$.auth.token'],
    ['a PEM key in an array', { keys: ['ok', PEM] }, '$.keys[1]'],
    ['a JWT', JWT, '$'],
    ['a Secret object', { kind: 'Secret', data: { a: 'YQ==' } }, '$.data'],
  ])('refuses %s', (_name, value, path) => {
    expect(findSecret(value)).toBe(path);
    expect(() => assertCacheable(value)).toThrow(SecretValueError);
    expect(() => encodeJson(value)).toThrow(path);
  });
  it.each([
    ['plain state', { phase: 'Succeeded', count: 3, at: '2024-01-01T00:00:00Z' }],
    [
      'references to secrets',
      { secretRef: { name: 's' }, kubeconfigSecretName: 'x', tokenFile: '/var/run/t' },
    ],
    ['empty secret fields', { token: '', password: null }],
    ['a Secret without data', { kind: 'Secret', metadata: { name: 's' } }],
  ])('accepts %s', (_name, value) => {
    expect(findSecret(value)).toBeUndefined();
    expect(JSON.parse(encodeJson(value))).toEqual(value);
  });
  it('never puts the secret in the error message', () => {
    expect(() => assertCacheable({ x: PEM })).toThrow(/at \$\.x$/);
  });
});

describe('client options', () => {
  it('fails fast', () => {
    const o = redisOptions({ url: 'redis://127.0.0.1:1' });
    expect(o).toMatchObject({ lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    expect(o.connectTimeout).toBeLessThanOrEqual(2000);
    expect(o.commandTimeout).toBeLessThanOrEqual(2000);
    expect(o.retryStrategy?.(4)).toBeNull();
    expect(o.retryStrategy?.(1)).toBe(100);
    // a failed connect's disconnect timer does not hold a process open 2 s
    expect(o.disconnectTimeout).toBe(DISCONNECT_TIMEOUT_MS);
    expect(DISCONNECT_TIMEOUT_MS).toBeLessThanOrEqual(100);
  });
  it.each([0, 4, 1.5])('refuses maxRetriesPerRequest %d', (n) => {
    expect(() => redisOptions({ url: 'redis://x', maxRetriesPerRequest: n })).toThrow(CacheUsageError);
  });
  it('prints URLs without credentials', () => {
    expect(safeRedisUrl('redis://user:hunter2@redis.svc:6380/2')).toBe('redis://redis.svc:6380/2');
    expect(() => safeRedisUrl('http://x')).toThrow(CacheUsageError);
    expect(() => safeRedisUrl('not a url')).toThrow(CacheUsageError);
  });
  it('maps connection errors', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(isConnectionError(refused)).toBe(true);
    expect(isConnectionError(new Error('Command timed out'))).toBe(true);
    expect(isConnectionError(new Error('WRONGTYPE Operation against a key'))).toBe(false);
    expect(toRedisError(refused, 'redis://h:1')).toBeInstanceOf(RedisUnavailableError);
    const other = new Error('WRONGTYPE');
    expect(toRedisError(other, 'redis://h:1')).toBe(other);
  });
});
