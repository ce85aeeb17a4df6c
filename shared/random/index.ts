/**
 * A small seeded pseudo-random generator (mulberry32, Tommy Ettinger's public-domain 32-bit
 * generator), for what must come out the same from the same seed: the fuzz (FUZZ_SEED), the
 * benches' data, a drill's plan. Not for anything secret (node:crypto is for that).
 *
 * Upstream: k8s.io/apimachinery pkg/util/rand (a seedable source the tests of Kubernetes use
 * for reproducible random data); the algorithm is mulberry32.
 */

/** A generator of floats in [0, 1). */
export type Rand = () => number;

/** mulberry32 seeded with `seed` (taken as an unsigned 32-bit integer). */
export function prng(seed: number): Rand {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [0, n). */
export const intBelow = (rand: Rand, n: number): number => Math.floor(rand() * n);

/** An integer in [lo, hi]. */
export const intIn = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

/** One element of a non-empty list. */
export const pickOf = <T>(rand: Rand, list: readonly T[]): T => list[Math.floor(rand() * list.length)];

/** A lowercase base-36 token of `length` characters (what `Math.random().toString(36)` was used for). */
export function token(rand: Rand, length = 11): string {
  let out = '';
  for (let i = 0; i < length; i++) out += Math.floor(rand() * 36).toString(36);
  return out;
}

/**
 * A seed from an environment value (decimal or 0x-hex, an unsigned 32-bit integer), or the
 * fallback when unset; throws on anything else, so a mistyped seed never runs another sequence.
 */
export function parseSeed(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback >>> 0;
  const n = Number(value.trim());
  if (!Number.isInteger(n) || n < 0 || n > 0xffff_ffff)
    throw new Error(`${name} must be an integer in [0, 2^32), not ${JSON.stringify(value)}`);
  return n;
}
