/**
 * JSON values in Redis with a TTL. Every write passes the secret guard first; every failure to
 * reach Redis is a {@link RedisUnavailableError}.
 */
import type { Redis } from 'ioredis';
import { guardRedis } from './client.js';
import { CacheDecodeError } from './errors.js';
import { assertCacheable } from './guard.js';
import type { CacheKey } from './keys.js';
import { assertTtl, fromPttl } from './ttl.js';

export interface SetJsonOptions {
  /** Time to live in ms; `null` keeps the value until it is deleted (state that must not expire). */
  ttlMs: number | null;
  /** Write only when the key does not exist (SET NX); the result says whether it was written. */
  onlyIfAbsent?: boolean;
}

/** Encodes and checks a value (pure): throws SecretValueError for secret-looking values. */
export function encodeJson(value: unknown): string {
  assertCacheable(value);
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('value is not JSON-serialisable');
  return text;
}

/** Stores `value` as JSON under `key`; false only when `onlyIfAbsent` and the key existed. */
export async function setJson(
  redis: Redis,
  key: CacheKey,
  value: unknown,
  opts: SetJsonOptions,
): Promise<boolean> {
  const text = encodeJson(value);
  const ms = opts.ttlMs === null ? null : assertTtl(opts.ttlMs);
  const reply = await guardRedis(redis, () => {
    if (ms === null) return opts.onlyIfAbsent ? redis.set(key, text, 'NX') : redis.set(key, text);
    return opts.onlyIfAbsent ? redis.set(key, text, 'PX', ms, 'NX') : redis.set(key, text, 'PX', ms);
  });
  return reply === 'OK';
}

/**
 * Reads the JSON under `key`, or undefined when there is none. `parse` (e.g. a zod schema's
 * `parse`) checks the shape; a value that is not JSON or fails `parse` is a CacheDecodeError.
 */
export async function getJson<T = unknown>(
  redis: Redis,
  key: CacheKey,
  parse?: (value: unknown) => T,
): Promise<T | undefined> {
  const text = await guardRedis(redis, () => redis.get(key));
  if (text === null) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return parse ? parse(value) : (value as T);
  } catch (err) {
    throw new CacheDecodeError(key, { cause: err });
  }
}

/** Deletes keys; returns how many existed. */
export async function del(redis: Redis, ...keys: CacheKey[]): Promise<number> {
  if (keys.length === 0) return 0;
  return guardRedis(redis, () => redis.del(...keys));
}

/** Sets a new TTL on an existing key; false when the key does not exist. */
export async function touch(redis: Redis, key: CacheKey, ttlMs: number): Promise<boolean> {
  const ms = assertTtl(ttlMs);
  return (await guardRedis(redis, () => redis.pexpire(key, ms))) === 1;
}

/** The TTL left in ms, `'none'` for a key without expiry, undefined when the key does not exist. */
export async function ttlOf(redis: Redis, key: CacheKey): Promise<number | 'none' | undefined> {
  return fromPttl(await guardRedis(redis, () => redis.pttl(key)));
}
