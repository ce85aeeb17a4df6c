/**
 * Time helpers of the deployer contract: Kubernetes timestamps (metav1.Time, RFC 3339 with second
 * precision) and Go duration strings (`10m`, `1h30m`, `1.5s`, `none`). Pure.
 */
import type { Time } from '@landscape/apimachinery';

/** A duration string that Go's time.ParseDuration (or the `none` keyword, where allowed) refuses. */
export class DurationError extends Error {
  override readonly name = 'DurationError';
  constructor(
    readonly value: string,
    reason: string,
  ) {
    super(`invalid duration ${JSON.stringify(value)}: ${reason}`);
  }
}

/** `now` as a metav1.Time: RFC 3339, UTC, whole seconds (`2023-07-13T11:33:30Z`). */
export function formatTime(now: Date): Time {
  return now.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Milliseconds since the epoch of a metav1.Time; undefined when absent or unparsable. */
export function parseTime(value: Time | undefined | null): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Milliseconds per unit, as Go's time.ParseDuration knows them. */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const COMPONENT = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)?/y;

/**
 * Go's `time.ParseDuration` in milliseconds (fractions of a millisecond kept): an optional sign and
 * one or more `<decimal><unit>` components; `0` alone needs no unit.
 */
export function parseGoDuration(value: string): number {
  let rest = value;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new DurationError(value, 'empty');
  let total = 0;
  COMPONENT.lastIndex = 0;
  while (COMPONENT.lastIndex < rest.length) {
    const start = COMPONENT.lastIndex;
    const match = COMPONENT.exec(rest);
    if (!match || match.index !== start) throw new DurationError(value, 'expected a number');
    const [, number, unit] = match;
    if (unit === undefined) throw new DurationError(value, `missing unit after ${number}`);
    total += Number(number) * UNIT_MS[unit];
  }
  return sign * total;
}

/** A timeout setting: a duration in milliseconds, or `none` (switched off). */
export type TimeoutSetting = { ms: number } | 'none';

/**
 * A timeout as written in specs and configs: a Go duration or `none`; undefined or `''` gives
 * `fallback`. Throws DurationError for anything else.
 */
export function parseTimeout(value: string | undefined, fallback: TimeoutSetting): TimeoutSetting {
  if (value === undefined || value === '') return fallback;
  if (value === 'none') return 'none';
  return { ms: parseGoDuration(value) };
}
