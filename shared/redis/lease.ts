/**
 * A Redis lease: mutual exclusion that expires on its own, the single-instance pattern of
 * redis.io's "Distributed Locks with Redis": take it with `SET key holder NX PX ttl`, renew and
 * release it with a Lua compare-and-pexpire / compare-and-delete, so that only the holder (a
 * value unique to it) touches it and a lease that has expired and been taken by another is left
 * alone.
 */
import type { Redis } from './client.js';
import { evalScript } from './script.js';

/** Deletes the key only when it still holds ARGV[1]. */
export const RELEASE_LEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
/** Sets the key's expiry to ARGV[2] ms only when it still holds ARGV[1]. */
export const RENEW_LEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

/** Takes the lease for `ttlMs` when nobody holds it; true when taken. */
export async function acquireLease(
  redis: Redis,
  key: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  return (await redis.set(key, holder, 'PX', ttlMs, 'NX')) === 'OK';
}

/** Extends the lease to `ttlMs` from now when `holder` still has it; true when extended. */
export async function renewLease(redis: Redis, key: string, holder: string, ttlMs: number): Promise<boolean> {
  return Number(await evalScript(redis, RENEW_LEASE_SCRIPT, [key], [holder, ttlMs])) === 1;
}

/**
 * Gives the lease up when `holder` still has it. Best effort: an error is swallowed (the lease
 * expires anyway); true when deleted.
 */
export async function releaseLease(redis: Redis, key: string, holder: string): Promise<boolean> {
  try {
    return Number(await evalScript(redis, RELEASE_LEASE_SCRIPT, [key], [holder])) === 1;
  } catch {
    return false;
  }
}
