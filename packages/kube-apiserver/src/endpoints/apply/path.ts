/**
 * Field paths as structured-merge-diff names them: a path is a list of elements, each a field
 * name, the key fields of a list-map item, the value of a set item, or a list index. Two
 * renderings: the `fieldsV1` keys of managedFields (`f:name`, `k:{"name":"x"}`, `v:"a"`, `i:0`)
 * and the string form of conflict messages (`.spec.containers[name="x"].image`).
 */

export type KeyField = [name: string, value: unknown];

export type PathElement =
  | { kind: 'field'; name: string }
  | { kind: 'key'; fields: KeyField[] }
  | { kind: 'value'; value: unknown }
  | { kind: 'index'; index: number };

export type Path = PathElement[];

export function field(name: string): PathElement {
  return { kind: 'field', name };
}

/** A list-map item's key, its fields sorted by name as structured-merge-diff sorts them. */
export function key(fields: KeyField[]): PathElement {
  return { kind: 'key', fields: [...fields].sort((a, b) => compareStrings(a[0], b[0])) };
}

export function setValue(value: unknown): PathElement {
  return { kind: 'value', value };
}

function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** JSON as Go's encoder writes it: map keys sorted, `<`, `>`, `&` and line separators escaped. */
export function goJson(value: unknown): string {
  return canonicalJson(value).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort((a, b) => compareStrings(a[0], b[0]));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function keyJson(fields: KeyField[]): string {
  return `{${fields.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(',')}}`;
}

const SERIALIZED = new WeakMap<PathElement, string>();

/** The fieldsV1 key of an element (also its identity in field sets). */
export function serializeElement(pe: PathElement): string {
  if (pe.kind === 'field') return `f:${pe.name}`;
  let text = SERIALIZED.get(pe);
  if (text === undefined) {
    text = serialize(pe);
    SERIALIZED.set(pe, text);
  }
  return text;
}

function serialize(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:${keyJson(pe.fields)}`;
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

function parseKey(text: string): PathElement | undefined {
  const parsed = JSON.parse(text) as unknown;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  return key(Object.entries(parsed as Record<string, unknown>));
}

/** Parses a fieldsV1 key; undefined for prefixes structured-merge-diff does not know (it drops them). */
export function parseElement(text: string): PathElement | undefined {
  const body = text.slice(2);
  switch (text.slice(0, 2)) {
    case 'f:':
      return field(body);
    case 'k:':
      return parseKey(body);
    case 'v:':
      return setValue(JSON.parse(body) as unknown);
    case 'i:':
      return { kind: 'index', index: Number.parseInt(body, 10) };
    default:
      return undefined;
  }
}

/** value.ToString: strings quoted, numbers and booleans bare, lists and maps spelled out. */
export function valueString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(',')}]`;
  if (typeof v === 'object') {
    const parts = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}=${valueString(x)}`);
    return `{${parts.join(';')}}`;
  }
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? 'null';
}

export function elementString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([n, v]) => `${n}=${valueString(v)}`).join(',')}]`;
    case 'value':
      return `[=${valueString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

export function pathString(path: Path): string {
  return path.map(elementString).join('');
}

const KIND_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

/** value.Compare's total order: numbers < strings < booleans < lists < maps < null. */
function valueRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  return v !== null && typeof v === 'object' ? 4 : 5;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return Math.sign((a as number) - (b as number));
  if (ra === 1) return compareStrings(a as string, b as string);
  if (ra === 2) return Number(a) - Number(b);
  return compareStrings(canonicalJson(a), canonicalJson(b));
}

function compareKeys(a: KeyField[], b: KeyField[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareStrings(a[i][0], b[i][0]) || compareValues(a[i][1], b[i][1]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** PathElement.Compare: fields, then keys, then values, then indexes. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_RANK[a.kind] - KIND_RANK[b.kind];
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareKeys(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index':
      return a.index - (b as typeof a).index;
  }
}
