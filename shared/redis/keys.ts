/**
 * Typed cache keys (pure). Every key is `landscape:<family>:<part>:<part>...`, one family per
 * function or function family (`dwd-prober`, `requeue`, ...), so functions never collide and
 * `SCAN landscape:<family>:*` lists one family's state. Parts are escaped (`%` → `%25`,
 * `:` → `%3A`) so that `a:b` + `c` and `a` + `b:c` are different keys.
 */
import { CacheUsageError } from './errors.js';

export const KEY_ROOT = 'landscape';

/** A Redis key built by {@link keyspace}; a plain string is not accepted where a CacheKey is. */
export type CacheKey = string & { readonly __cacheKey: unique symbol };

/** Family names follow the Functions Framework's function-name rule. */
export const FAMILY_NAME = /^[A-Za-z](?:[-_A-Za-z0-9]{0,61}[A-Za-z0-9])?$/;

export function isFamilyName(value: unknown): value is string {
  return typeof value === 'string' && FAMILY_NAME.test(value);
}

export function escapeKeyPart(part: string): string {
  return part.replace(/%/g, '%25').replace(/:/g, '%3A');
}

export function unescapeKeyPart(part: string): string {
  return part.replace(/%3A/gi, ':').replace(/%25/g, '%');
}

export interface KeySpace {
  readonly family: string;
  /** `landscape:<family>:` — the prefix of every key of this family. */
  readonly prefix: string;
  /** The key for these parts; at least one part, none empty. */
  key(...parts: readonly string[]): CacheKey;
  /** The parts of a key of this family, or undefined when it is not one. */
  parse(key: string): string[] | undefined;
  /** A SCAN/KEYS pattern matching every key of this family. */
  readonly pattern: string;
}

/** The key space of one family. */
export function keyspace(family: string): KeySpace {
  if (!isFamilyName(family)) throw new CacheUsageError(`invalid cache key family ${JSON.stringify(family)}`);
  const prefix = `${KEY_ROOT}:${family}:`;
  return {
    family,
    prefix,
    pattern: `${prefix}*`,
    key(...parts: readonly string[]): CacheKey {
      if (parts.length === 0 || parts.some((p) => p === '')) {
        throw new CacheUsageError(
          `cache key of ${family} needs non-empty parts, got ${JSON.stringify(parts)}`,
        );
      }
      return (prefix + parts.map(escapeKeyPart).join(':')) as CacheKey;
    },
    parse(key: string): string[] | undefined {
      if (!key.startsWith(prefix) || key.length === prefix.length) return undefined;
      return key.slice(prefix.length).split(':').map(unescapeKeyPart);
    },
  };
}
