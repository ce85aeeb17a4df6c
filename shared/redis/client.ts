/**
 * The ioredis client of a function instance (eventing spec: one client per instance, created
 * lazily, reused across invocations, failing fast). Nothing connects at import time: the URL
 * (REDIS_URL) is passed in by the caller, which reads the environment.
 *
 * Fail fast: `lazyConnect` with an explicit `connect()`, no offline queue (a command while the
 * connection is down fails at once instead of waiting), `maxRetriesPerRequest` 1, short
 * connect and command timeouts, and a bounded reconnect: after a few failed attempts the client
 * ends and the next `get()` builds a new one. Every failure to reach Redis surfaces as a
 * {@link RedisUnavailableError} (transient: the handler throws and the event is retried).
 */
import { Redis, type RedisOptions } from 'ioredis';
import { CacheUsageError, RedisUnavailableError } from './errors.js';

export type { Redis } from 'ioredis';

export interface RedisClientOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://...` (the REDIS_URL value). */
  url: string;
  /** CLIENT SETNAME, e.g. the function name and POD_NAME. */
  connectionName?: string;
  /** Default 2000 ms. */
  connectTimeoutMs?: number;
  /** Default 2000 ms. */
  commandTimeoutMs?: number;
  /** 1–3; default 1. */
  maxRetriesPerRequest?: number;
  /** Reconnect attempts before the client gives up and ends; default 3. */
  maxReconnects?: number;
  /** Called with connection errors the client reports in the background (e.g. to log them). */
  onError?: (err: RedisUnavailableError) => void;
}

const URL_PROTOCOLS = ['redis:', 'rediss:'] as const;

/** The URL without credentials, safe to print. Throws {@link CacheUsageError} when it is not a Redis URL. */
export function safeRedisUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new CacheUsageError('REDIS_URL is not a URL (want redis://host:port)');
  }
  if (!(URL_PROTOCOLS as readonly string[]).includes(u.protocol)) {
    throw new CacheUsageError(`REDIS_URL must start with redis:// or rediss://, got ${u.protocol}//`);
  }
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
}

/** How long a disconnect waits for the socket to close before destroying it (ioredis: 2 s). */
export const DISCONNECT_TIMEOUT_MS = 100;

/** The ioredis options for these client options (pure). */
export function redisOptions(opts: RedisClientOptions): RedisOptions {
  const maxRetries = opts.maxRetriesPerRequest ?? 1;
  if (!Number.isInteger(maxRetries) || maxRetries < 1 || maxRetries > 3) {
    throw new CacheUsageError(`maxRetriesPerRequest must be 1, 2 or 3, got ${maxRetries}`);
  }
  const maxReconnects = opts.maxReconnects ?? 3;
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: maxRetries,
    connectTimeout: opts.connectTimeoutMs ?? 2000,
    commandTimeout: opts.commandTimeoutMs ?? 2000,
    retryStrategy: (times: number) => (times > maxReconnects ? null : Math.min(times * 100, 500)),
    // ioredis's disconnect() ends the socket and arms a timer (2 s by default) that destroys it
    // unless it closes first; a socket whose connect failed has closed already, so the timer stayed
    // armed for its 2 s and held the process open that long (jest's "worker failed to exit"). Our
    // disconnects follow a failed connect, or a QUIT already answered (the server closes then).
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    ...(opts.connectionName ? { connectionName: opts.connectionName } : {}),
  };
}

const CONNECTION_CODES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  'EAI_AGAIN',
];
const CONNECTION_MESSAGES = [
  'Connection is closed',
  "Stream isn't writeable",
  'Command timed out',
  'connect ETIMEDOUT',
  'Reached the max retries per request limit',
  'None of the sentinels are available',
];

/** Whether an error from ioredis means Redis could not be reached (rather than a command error). */
export function isConnectionError(err: unknown): boolean {
  if (err instanceof RedisUnavailableError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.includes(code)) return true;
  return CONNECTION_MESSAGES.some((m) => err.message.includes(m));
}

/** Maps a connection failure to {@link RedisUnavailableError}; other errors are returned as they are. */
export function toRedisError(err: unknown, url: string): unknown {
  if (err instanceof RedisUnavailableError || !isConnectionError(err)) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new RedisUnavailableError(`Redis at ${url} is unavailable: ${msg}`, url, { cause: err });
}

/** The safe URL of a client (host and port, never a password). */
export function describeClient(redis: Redis): string {
  const o = redis.options;
  return `redis://${o.host ?? '127.0.0.1'}:${o.port ?? 6379}`;
}

/** Runs `fn` and turns a failure to reach Redis into {@link RedisUnavailableError}. */
export async function guardRedis<T>(redis: Redis, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toRedisError(err, describeClient(redis));
  }
}

/** The lazily created client of one instance. */
export interface RedisHandle {
  /** The connected client; connects (or reconnects after the client ended) on demand. */
  get(): Promise<Redis>;
  /** Disconnects; a later `get()` connects again. */
  close(): Promise<void>;
}

/** A lazy, per-instance client holder for `opts.url`. Does no I/O until `get()`. */
export function lazyRedis(opts: RedisClientOptions): RedisHandle {
  const safeUrl = safeRedisUrl(opts.url);
  const options = redisOptions(opts);
  let client: Redis | undefined;
  let connecting: Promise<Redis> | undefined;

  const open = async (): Promise<Redis> => {
    const c = new Redis(opts.url, options);
    c.on('error', (err: unknown) => {
      const mapped = toRedisError(err, safeUrl);
      if (mapped instanceof RedisUnavailableError) opts.onError?.(mapped);
    });
    client = c;
    try {
      await c.connect();
      return c;
    } catch (err) {
      c.disconnect();
      if (client === c) client = undefined;
      const mapped = toRedisError(err, safeUrl);
      throw mapped instanceof RedisUnavailableError
        ? mapped
        : new RedisUnavailableError(`Redis at ${safeUrl} is unavailable: ${String(err)}`, safeUrl, {
            cause: err,
          });
    }
  };

  return {
    async get(): Promise<Redis> {
      if (client && client.status !== 'end' && !connecting) return client;
      if (!connecting) {
        connecting = open().finally(() => {
          connecting = undefined;
        });
      }
      return connecting;
    },
    async close(): Promise<void> {
      const c = client;
      client = undefined;
      if (!c || c.status === 'end') return;
      await c.quit().catch(() => undefined);
      c.disconnect();
    },
  };
}
