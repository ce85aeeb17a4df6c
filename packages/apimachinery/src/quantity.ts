/**
 * Kubernetes resource quantities (apimachinery `resource.Quantity`), pure: one parser of the
 * syntax (`250`, `1.5k`, `500m`, `2Ki`, `1e3`; the API server's own refusal message) and the
 * readings of it the product needs:
 *
 * - parseQuantity: Go's `Value()`, a whole number rounded up (seed capacity, the scheduler);
 * - quantityNumber: a JS number (the SeedAutoscaler's metric arithmetic);
 * - quantityString: `String()`, the canonical form ("1500m" for "1.5", "2k" for "2000", "1Gi" for
 *   "1024Mi"), as the table printers write metric values;
 * - formatQuantity: a whole number in that canonical decimal form (`1000` → `1k`), as the API
 *   server stores the quantities the seed controller writes.
 */
import type { Quantity } from './meta.js';

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** A quantity string taken apart; value = mantissa × 10^exp, exactly. */
export interface QuantityParts {
  /** The number as written, without its suffix (`-1.5`). */
  number: string;
  /** Sign and digits, a binary suffix multiplied in. */
  mantissa: bigint;
  exp: number;
  /** The suffix: × 10^exp10 × 1024^pow1024. */
  exp10: number;
  pow1024: number;
  format: QuantityFormat;
}

export type QuantityParse =
  | { ok: true; /** Go's `Quantity.Value()`: rounded up to a whole number. */ value: number; whole: boolean }
  | { ok: false; message: string };

/** apimachinery's `ErrFormatWrong`, the message for a string that is no quantity. */
export const QUANTITY_FORMAT_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)([a-zA-Z]*|[eE][+-]?\d+)$/;
const DECIMAL_EXP: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_POW: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

function suffixScale(suffix: string): Pick<QuantityParts, 'exp10' | 'pow1024' | 'format'> | undefined {
  if (suffix in BINARY_POW) return { exp10: 0, pow1024: BINARY_POW[suffix], format: 'BinarySI' };
  if (suffix in DECIMAL_EXP) return { exp10: DECIMAL_EXP[suffix], pow1024: 0, format: 'DecimalSI' };
  const exponent = /^[eE]([+-]?\d+)$/.exec(suffix);
  return exponent ? { exp10: Number(exponent[1]), pow1024: 0, format: 'DecimalExponent' } : undefined;
}

/** The parts of a quantity string (surrounding white space ignored); undefined when it is none. */
export function quantityParts(text: string): QuantityParts | undefined {
  const m = QUANTITY.exec(text.trim());
  const scale = m ? suffixScale(m[3]) : undefined;
  if (!m || !scale) return undefined;
  const [integer, fraction = ''] = m[2].split('.');
  const sign = m[1] === '-' ? -1n : 1n;
  return {
    number: `${m[1]}${m[2]}`,
    mantissa: sign * BigInt(`${integer}${fraction}` || '0') * 1024n ** BigInt(scale.pow1024),
    exp: scale.exp10 - fraction.length,
    ...scale,
  };
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator > 0n ? quotient + 1n : quotient;
}

const MAX_VALUE = BigInt(Number.MAX_SAFE_INTEGER);

/** A Kubernetes quantity (`"250"`, `250`, `"1k"`, `"1.5k"`, `"2Ki"`) as a whole number, rounded up. */
export function parseQuantity(quantity: Quantity): QuantityParse {
  if (typeof quantity === 'number' && Number.isSafeInteger(quantity)) {
    return { ok: true, value: quantity, whole: true };
  }
  const parts = quantityParts(String(quantity));
  if (!parts) return { ok: false, message: QUANTITY_FORMAT_MESSAGE };
  const denominator = 10n ** BigInt(Math.max(-parts.exp, 0));
  const value = ceilDiv(parts.mantissa * 10n ** BigInt(Math.max(parts.exp, 0)), denominator);
  if (value > MAX_VALUE || value < -MAX_VALUE) return { ok: false, message: 'quantity is too large' };
  return { ok: true, value: Number(value), whole: parts.mantissa % denominator === 0n };
}

/** A Kubernetes quantity as a number (`"100"`, `100`, `"1.5k"`, `"500m"`); undefined when not one. */
export function quantityNumber(value: Quantity | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  const parts = typeof value === 'string' ? quantityParts(value) : undefined;
  if (!parts) return undefined;
  if (parts.format === 'DecimalExponent') return Number(`${parts.number}e${parts.exp10}`);
  return Number(parts.number) * Number(`1e${parts.exp10}`) * 2 ** (10 * parts.pow1024);
}

/** Values finer than nano are rounded up (away from zero) to nano. */
function roundToNano(mantissa: bigint, exp: number): [bigint, number] {
  if (exp >= -9) return [mantissa, exp];
  const unit = 10n ** BigInt(-9 - exp);
  const rounded = (abs(mantissa) + unit - 1n) / unit;
  return [mantissa < 0n ? -rounded : rounded, -9];
}

/** The integer value when it is one, else undefined. */
function integral(mantissa: bigint, exp: number): bigint | undefined {
  if (exp >= 0) return mantissa * 10n ** BigInt(exp);
  const unit = 10n ** BigInt(-exp);
  return mantissa % unit === 0n ? mantissa / unit : undefined;
}

function binary(value: bigint): string {
  let n = value;
  let power = 0;
  while (power < 6 && n % 1024n === 0n) {
    n /= 1024n;
    power++;
  }
  const suffix = Object.keys(BINARY_POW).find((k) => BINARY_POW[k] === power) ?? '';
  return `${n}${suffix}`;
}

function decimal(value: bigint, exponent: number, format: QuantityFormat): string {
  let mantissa = value;
  let exp = exponent;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exp++;
  }
  const rest = ((exp % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(rest);
  exp -= rest;
  if (format === 'DecimalExponent') return exp === 0 ? `${mantissa}` : `${mantissa}e${exp}`;
  const suffix = Object.keys(DECIMAL_EXP).find((k) => DECIMAL_EXP[k] === exp);
  return suffix === undefined ? `${mantissa}e${exp}` : `${mantissa}${suffix}`;
}

/** The canonical string of a quantity (a JSON string or number); `<nil>` for a missing one. */
export function quantityString(value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') return '<nil>';
  const parts = quantityParts(String(value));
  if (!parts) return String(value);
  const [mantissa, exp] = roundToNano(parts.mantissa, parts.exp);
  if (mantissa === 0n) return '0';
  // binary only for a whole number of at least 1Ki; below, and with a fraction, decimal
  const whole = parts.format === 'BinarySI' ? integral(mantissa, exp) : undefined;
  if (whole !== undefined && abs(whole) >= 1024n) return binary(whole);
  return decimal(mantissa, exp, parts.format === 'BinarySI' ? 'DecimalSI' : parts.format);
}

/** A whole number in the API server's canonical decimal form: `250`, `1k`, `1200k`, `2M`. */
export function formatQuantity(value: number): string {
  return value === 0 ? '0' : decimal(BigInt(value), 0, 'DecimalSI');
}
