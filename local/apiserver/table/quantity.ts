/**
 * `resource.Quantity.String()`: the canonical form of a quantity ("1500m" for "1.5", "2k" for
 * "2000", "1Gi" for "1024Mi"), as the HPA printer writes metric values.
 */

const DECIMAL_SUFFIXES: Record<string, number> = {
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
const BINARY_SUFFIXES: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/;

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** value = mantissa × 10^exp, exactly. */
interface Parsed {
  mantissa: bigint;
  exp: number;
  format: Format;
}

function suffixOf(suffix: string): { exp10: number; pow1024: number; format: Format } | undefined {
  if (suffix in BINARY_SUFFIXES) return { exp10: 0, pow1024: BINARY_SUFFIXES[suffix], format: 'BinarySI' };
  if (suffix in DECIMAL_SUFFIXES) return { exp10: DECIMAL_SUFFIXES[suffix], pow1024: 0, format: 'DecimalSI' };
  const m = /^[eE]([+-]?\d+)$/.exec(suffix);
  return m ? { exp10: Number(m[1]), pow1024: 0, format: 'DecimalExponent' } : undefined;
}

/** Values finer than nano are rounded up (away from zero) to nano. */
function roundToNano(mantissa: bigint, exp: number): [bigint, number] {
  if (exp >= -9) return [mantissa, exp];
  const unit = 10n ** BigInt(-9 - exp);
  const rounded = (abs(mantissa) + unit - 1n) / unit;
  return [mantissa < 0n ? -rounded : rounded, -9];
}

function parse(text: string): Parsed | undefined {
  const m = QUANTITY.exec(text.trim());
  if (!m || (m[2] === '' && !m[3])) return undefined;
  return fromParts(m);
}

function fromParts(m: RegExpExecArray): Parsed | undefined {
  const s = suffixOf(m[4]);
  if (!s) return undefined;
  const fraction = m[3] ?? '';
  const sign = m[1] === '-' ? -1n : 1n;
  const [mantissa, exp] = roundToNano(
    sign * BigInt(`${m[2]}${fraction}` || '0') * 1024n ** BigInt(s.pow1024),
    s.exp10 - fraction.length,
  );
  const belowOne = abs(mantissa) < 10n ** BigInt(Math.max(-exp, 0));
  return { mantissa, exp, format: s.format === 'BinarySI' && belowOne ? 'DecimalSI' : s.format };
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

/** The integer value when it is one, else undefined. */
function integral(q: Parsed): bigint | undefined {
  if (q.exp >= 0) return q.mantissa * 10n ** BigInt(q.exp);
  const unit = 10n ** BigInt(-q.exp);
  return q.mantissa % unit === 0n ? q.mantissa / unit : undefined;
}

function binary(value: bigint): string {
  let n = value;
  let power = 0;
  while (power < 6 && n % 1024n === 0n) {
    n /= 1024n;
    power++;
  }
  const suffix = Object.keys(BINARY_SUFFIXES).find((k) => BINARY_SUFFIXES[k] === power) ?? '';
  return `${n}${suffix}`;
}

function decimal(q: Parsed): string {
  let { mantissa, exp } = q;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exp++;
  }
  const rest = ((exp % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(rest);
  exp -= rest;
  if (q.format === 'DecimalExponent') return exp === 0 ? `${mantissa}` : `${mantissa}e${exp}`;
  const suffix = Object.keys(DECIMAL_SUFFIXES).find((k) => DECIMAL_SUFFIXES[k] === exp);
  return suffix === undefined ? `${mantissa}e${exp}` : `${mantissa}${suffix}`;
}

/** The canonical string of a quantity (a JSON string or number); `<nil>` for a missing one. */
export function quantityString(value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') return '<nil>';
  const q = parse(String(value));
  if (!q) return String(value);
  if (q.mantissa === 0n) return '0';
  const whole = q.format === 'BinarySI' ? integral(q) : undefined;
  if (whole !== undefined && abs(whole) >= 1024n) return binary(whole);
  return decimal(q.format === 'BinarySI' ? { ...q, format: 'DecimalSI' } : q);
}
