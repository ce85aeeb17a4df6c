/**
 * TTL helpers (pure). TTLs are milliseconds in code; in config files they are Go durations
 * (@landscape/apimachinery's parseGoDuration, through shared/config's durationSchema).
 */
import { CacheUsageError } from './errors.js';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

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
