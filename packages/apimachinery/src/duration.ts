/**
 * Go durations, the one duration format of every config file: Go's time.ParseDuration and
 * Duration.String (go/src/time/format.go), in milliseconds (fractions of a millisecond kept).
 * `1m30s`, `0s`, `0`, `300ms`, `1.5h`, `-2m` parse; `1d`, `10` (no unit) and `1 h` do not.
 *
 * Where this differs: values are JavaScript numbers of milliseconds (exact to the nanosecond up to
 * about 104 days), so Go's overflow error past ~292 years is not reproduced.
 */

/** What an accepted duration looks like, for error messages. */
export const GO_DURATION_FORMAT = 'a Go duration such as 300ms, 45s, 1m30s or 2h (units ns, us, ms, s, m, h)';

/** A string time.ParseDuration refuses; the message names the value and the reason (not the format: see GO_DURATION_FORMAT). */
export class DurationError extends Error {
  override readonly name = 'DurationError';
  constructor(
    readonly value: string,
    readonly reason: string,
  ) {
    super(`invalid duration ${JSON.stringify(value)}: ${reason}`);
  }
}

/** Milliseconds per unit, as time.ParseDuration knows them. */
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

const NUMBER = /(\d*)(?:\.(\d*))?/y;
const UNIT = /[^\d.]*/y;

/** One `<decimal><unit>` component at `pos`: its milliseconds and where the next one starts. */
function component(value: string, rest: string, pos: number): [number, number] {
  NUMBER.lastIndex = pos;
  const number = NUMBER.exec(rest)!;
  const [text, whole, fraction] = number;
  if (whole === '' && (fraction === undefined || fraction === ''))
    throw new DurationError(value, 'expected a number');
  UNIT.lastIndex = pos + text.length;
  const unit = UNIT.exec(rest)![0];
  if (unit === '') throw new DurationError(value, `missing unit after ${text}`);
  const ms = UNIT_MS[unit];
  if (ms === undefined || !Object.prototype.hasOwnProperty.call(UNIT_MS, unit)) {
    throw new DurationError(value, `unknown unit ${JSON.stringify(unit)}`);
  }
  return [Number(`${whole || '0'}.${fraction ?? ''}0`) * ms, UNIT.lastIndex];
}

/** time.ParseDuration in milliseconds: an optional sign and `<decimal><unit>` components; `0` needs no unit. */
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
  for (let pos = 0; pos < rest.length;) {
    const [ms, next] = component(value, rest, pos);
    total += ms;
    pos = next;
  }
  return sign * total;
}

function trimFraction(digits: string): string {
  const trimmed = digits.replace(/0+$/, '');
  return trimmed === '' ? '' : `.${trimmed}`;
}

/** Below one second: the largest of ns, µs, ms that is not zero (`1.5ms`, `300µs`, `7ns`). */
function subSecond(ns: number): string {
  if (ns < 1000) return `${ns}ns`;
  if (ns < 1_000_000) return `${Math.floor(ns / 1000)}${trimFraction(String(ns % 1000).padStart(3, '0'))}µs`;
  return `${Math.floor(ns / 1_000_000)}${trimFraction(String(ns % 1_000_000).padStart(6, '0'))}ms`;
}

/** Duration.String of `ms` milliseconds: `1h0m0s`, `1m30s`, `1.5s`, `300ms`, `0s`. */
export function formatGoDuration(ms: number): string {
  const ns = Math.round(Math.abs(ms) * 1e6);
  const sign = ms < 0 && ns !== 0 ? '-' : '';
  if (ns === 0) return '0s';
  if (ns < 1e9) return sign + subSecond(ns);
  const seconds = Math.floor(ns / 1e9);
  const text = `${seconds % 60}${trimFraction(String(ns % 1e9).padStart(9, '0'))}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes === 0) return sign + text;
  const hours = Math.floor(minutes / 60);
  return sign + (hours > 0 ? `${hours}h${minutes % 60}m${text}` : `${minutes}m${text}`);
}
