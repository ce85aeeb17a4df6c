/**
 * Go's `%q` (strconv.Quote) and `%#v` renderings, for messages that must read exactly as a
 * kube-apiserver prints them.
 */

const SHORT_ESCAPES: Record<number, string> = {
  0x07: '\\a',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x0b: '\\v',
  0x5c: '\\\\',
  0x22: '\\"',
};

/** Roughly unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function escapeCodePoint(cp: number, ch: string): string {
  const short = SHORT_ESCAPES[cp];
  if (short) return short;
  if (PRINTABLE.test(ch)) return ch;
  if (cp < 0x80) return `\\x${hex(cp, 2)}`;
  if (cp < 0x10000) return `\\u${hex(cp, 4)}`;
  return `\\U${hex(cp, 8)}`;
}

/** strconv.Quote: a double-quoted Go string literal. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += escapeCodePoint(ch.codePointAt(0)!, ch);
  return `${out}"`;
}

/** `%q` of a []string: `["a" "b"]`. */
export function goQuoteList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

/** `%#v` of a []string: `[]string{"a", "b"}` (`[]string(nil)` for none). */
export function goStringSlice(values: readonly string[] | undefined): string {
  if (values === undefined) return '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/** `%#v` of a struct with string fields: `rbac.RoleRef{APIGroup:"g", Kind:"Role", Name:"n"}`. */
export function goStruct(type: string, fields: [string, string][]): string {
  return `${type}{${fields.map(([k, v]) => `${k}:${goQuote(v)}`).join(', ')}}`;
}
