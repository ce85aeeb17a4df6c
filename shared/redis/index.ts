export {
  describeClient,
  guardRedis,
  isConnectionError,
  lazyRedis,
  redisOptions,
  safeRedisUrl,
  toRedisError,
} from './client.js';
export type { Redis, RedisClientOptions, RedisHandle } from './client.js';
export { CacheDecodeError, CacheUsageError, RedisUnavailableError, SecretValueError } from './errors.js';
export { assertCacheable, findSecret } from './guard.js';
export { del, encodeJson, getJson, setJson, touch, ttlOf } from './json.js';
export type { SetJsonOptions } from './json.js';
export { evalScript } from './script.js';
export { acquireLease, releaseLease, RELEASE_LEASE_SCRIPT, renewLease, RENEW_LEASE_SCRIPT } from './lease.js';
export { escapeKeyPart, FAMILY_NAME, isFamilyName, KEY_ROOT, keyspace, unescapeKeyPart } from './keys.js';
export type { CacheKey, KeySpace } from './keys.js';
export { assertTtl, DAY, expiresAt, fromPttl, HOUR, MINUTE, SECOND, ttlSeconds } from './ttl.js';
