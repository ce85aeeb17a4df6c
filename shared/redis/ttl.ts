/**
 * TTL helpers (pure). TTLs are milliseconds in code; durations in config may be written as
 * `1500ms`, `30s`, `5m`, `2h`, `1d` or a number of milliseconds.
 */
import { CacheUsageError } from './errors.js';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

const UNITS = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/** Parses `30s`, `5m`, `250ms`, ... (or a number of milliseconds) into milliseconds. */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') return assertTtl(value);
  const m = DURATION.exec(value.trim());
  if (!m)
    throw new CacheUsageError(`invalid duration ${JSON.stringify(value)} (want e.g. 250ms, 30s, 5m, 2h, 1d)`);
  return assertTtl(Math.round(Number(m[1]) * UNITS[m[2] as keyof typeof UNITS]));
}

/** A TTL must be a positive, finite, whole number of milliseconds. */
export function assertTtl(ttlMs: number): number {
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) {
    throw new CacheUsageError(`TTL must be a positive whole number of milliseconds, got ${ttlMs}`);
  }
  return ttlMs;
}

/** Whole seconds for commands that take seconds (rounded up: never expire early). */
export function ttlSeconds(ttlMs: number): number {
  return Math.ceil(assertTtl(ttlMs) / SECOND);
}

/** When a value written at `now` with `ttlMs` expires. */
export function expiresAt(now: Date, ttlMs: number): Date {
  return new Date(now.getTime() + assertTtl(ttlMs));
}

/**
 * Reads Redis's PTTL reply: a number of ms left, `'none'` for a key without expiry (-1), or
 * undefined when the key does not exist (-2).
 */
export function fromPttl(reply: number): number | 'none' | undefined {
  if (reply === -2) return undefined;
  if (reply === -1) return 'none';
  return reply;
}
