/**
 * Value formatting as the Go code behind Kubernetes tables does it: apimachinery's
 * `duration.HumanDuration`, metav1.Time parsing, `fmt` printing of JSON values (what client-go's
 * JSONPath `PrintResults` writes), label and label-selector strings.
 */
import { asRecord, isInt64, labelSelectorAsSelector } from '@landscape/apimachinery';

/** `duration.HumanDuration`: ~2-3 significant figures; up to 2s in the future counts as now. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) return withRest(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  return humanHours(Math.trunc(ms / 3_600_000), minutes % 60);
}

function withRest(major: number, unit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major}${unit}` : `${major}${unit}${minor}${minorUnit}`;
}

function humanHours(hours: number, minutes: number): string {
  if (hours < 8) return withRest(hours, 'h', minutes, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return withRest(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return withRest(years, 'y', days % 365, 'd');
  return `${years}y`;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function inRange(p: number[]): boolean {
  const [year, month, day, hour, minute, second, tzHour, tzMinute] = p;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  return hour < 24 && minute < 60 && second < 60 && tzHour < 24 && tzMinute < 60;
}

/** Go's `time.Parse(time.RFC3339, s)`: milliseconds since the epoch, undefined when it does not parse. */
export function parseRFC3339(s: string): number | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const p = [1, 2, 3, 4, 5, 6, 9, 10].map((i) => Number(m[i] ?? 0));
  if (!inRange(p)) return undefined;
  const [year, month, day, hour, minute, second, tzHour, tzMinute] = p;
  const frac = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  const offset = m[8] === 'Z' ? 0 : (m[8].startsWith('-') ? -1 : 1) * (tzHour * 60 + tzMinute) * 60_000;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, frac);
  return utc.getTime() - offset;
}

/** A metav1.Time / MicroTime field: undefined for a missing, null or empty (zero) time. */
export function timeOf(value: unknown): number | undefined {
  return typeof value === 'string' && value !== '' ? parseRFC3339(value) : undefined;
}

/** `translateTimestampSince`: the age of a timestamp, `<unknown>` for the zero time. */
export function ageOf(value: unknown, now: Date): string {
  const t = timeOf(value);
  return t === undefined ? '<unknown>' : humanDuration(now.getTime() - t);
}

/** `t.UTC().Format(time.RFC3339)` (the zero time for a missing one). */
export function rfc3339UTC(value: unknown): string {
  const t = timeOf(value);
  if (t === undefined) return '0001-01-01T00:00:00Z';
  return new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** `fmt.Sprint(float64)`: %g with the shortest digits, exponent form below 1e-4 and from 1e6. */
export function goFloat(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const [mantissa, exp] = n.toExponential().split('e');
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return String(n);
}

/** `fmt.Sprint` of a JSON scalar as Go decoded it (int64 or float64). */
export function goNumber(n: number): string {
  return isInt64(n) ? BigInt(n).toString() : goFloat(n);
}

/** Go's `json.Marshal`: sorted object keys, HTML-safe escapes. */
export function goJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJSON).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${goJSON(k)}:${goJSON(v)}`).join(',')}}`;
  }
  if (typeof value === 'number') return isInt64(value) ? BigInt(value).toString() : JSON.stringify(value);
  return (JSON.stringify(value ?? null) ?? 'null').replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * What client-go's JSONPath `PrintResults` writes for one value: strings raw, maps and lists as
 * JSON, other scalars through `fmt.Fprint`, a JSON null as `<no value>`.
 */
export function printJSONPathValue(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return goJSON(value);
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `labels.FormatLabels`: sorted `k=v` pairs joined with ",", `<none>` when empty. */
export function formatLabels(map: unknown): string {
  const entries = Object.entries(asRecord(map)).sort(([a], [b]) => byCodePoint(a, b));
  return entries.length ? entries.map(([k, v]) => `${k}=${str(v)}`).join(',') : '<none>';
}

/** `metav1.LabelSelectorAsSelector(s).String()`; `<invalid>` where Go returns an error. */
export function formatLabelSelector(selector: unknown): string {
  const s = asRecord(selector);
  const matchLabels = Object.fromEntries(
    Object.entries(asRecord(s.matchLabels)).map(([k, v]) => [k, String(v)]),
  );
  const matchExpressions = asArray(s.matchExpressions).map((e) => {
    const expr = asRecord(e);
    return { key: str(expr.key), operator: str(expr.operator), values: asArray(expr.values).map(str) };
  });
  const converted = labelSelectorAsSelector({ matchLabels, matchExpressions });
  return converted.ok ? converted.text : '<invalid>';
}

export { asRecord };

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function int(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0;
}
