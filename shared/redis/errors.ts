/** Typed errors of the Redis cache layer. */

/** Redis cannot be reached (down, refused, timed out): transient, the caller throws so the event is retried. */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
  readonly transient = true;
  constructor(
    message: string,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A value that looks like a secret was about to be stored: a programming error, never retried. */
export class SecretValueError extends Error {
  override readonly name = 'SecretValueError';
  readonly transient = false;
  /** Where in the value the secret was found (e.g. `$.spec.config.kubeconfig`); never the value itself. */
  constructor(readonly path: string) {
    super(`refusing to cache a value that looks like a secret at ${path}`);
  }
}

/** A cache key, TTL or REDIS_URL that is not acceptable: a programming or configuration error. */
export class CacheUsageError extends Error {
  override readonly name = 'CacheUsageError';
  readonly transient = false;
}

/** A cached value that is not the JSON the caller expected. */
export class CacheDecodeError extends Error {
  override readonly name = 'CacheDecodeError';
  readonly transient = false;
  constructor(
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(`cached value under ${key} is not valid JSON of the expected shape`, options);
  }
}
