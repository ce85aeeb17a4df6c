/**
 * The part of Kubernetes JSONPath (k8s.io/client-go/util/jsonpath, without the braces, missing
 * keys allowed) that custom readiness requirements use (pure):
 * `.a.b`, `a.b` (a leading dot is implied), `['a.b']`, `[0]`, `[-1]`, `[*]`, `.*`, and filters
 * `[?(@.x.y == "v")]` with ==, !=, <, <=, >, >= against a string, number, true/false or null
 * literal, or `[?(@.x)]` (exists). A path evaluates to every value it reaches.
 */
import { deepEqual } from './objects.js';
import { isRecord } from '@landscape/apimachinery';

export type PathSegment =
  | { t: 'field'; name: string }
  | { t: 'index'; index: number }
  | { t: 'all' }
  | { t: 'filter'; path: PathSegment[]; op?: FilterOp; value?: unknown };

export const FILTER_OPS = ['==', '!=', '<=', '>=', '<', '>'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export class JsonPathError extends Error {}

function literal(text: string): unknown {
  const t = text.trim();
  if (/^(['"]).*\1$/.test(t)) return t.slice(1, -1);
  if (t === 'true' || t === 'false') return t === 'true';
  if (t === 'null') return null;
  if (t !== '' && !Number.isNaN(Number(t))) return Number(t);
  throw new JsonPathError(`unsupported filter value ${t}`);
}

function parseFilter(body: string): PathSegment {
  const m = /^@((?:\.[^.\s=!<>]+)+)\s*(?:(==|!=|<=|>=|<|>)\s*(.+))?$/.exec(body.trim());
  if (!m) throw new JsonPathError(`unsupported filter ${body}`);
  const path = parsePath(m[1]);
  return m[2] ? { t: 'filter', path, op: m[2] as FilterOp, value: literal(m[3]) } : { t: 'filter', path };
}

function closing(path: string, from: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = from; i < path.length; i++) {
    const c = path[i];
    if (quote) quote = c === quote ? undefined : quote;
    else if (c === "'" || c === '"') quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  throw new JsonPathError(`unclosed [ in ${path}`);
}

function bracket(inner: string): PathSegment {
  if (inner === '*') return { t: 'all' };
  if (/^-?\d+$/.test(inner)) return { t: 'index', index: Number(inner) };
  if (/^(['"]).*\1$/.test(inner)) return { t: 'field', name: inner.slice(1, -1) };
  const f = /^\?\((.*)\)$/.exec(inner);
  if (f) return parseFilter(f[1]);
  throw new JsonPathError(`unsupported [${inner}]`);
}

/** The segments of a path; throws JsonPathError for what it does not support. */
export function parsePath(input: string): PathSegment[] {
  const path = input.startsWith('.') || input.startsWith('[') ? input : `.${input}`;
  const out: PathSegment[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '[') {
      const end = closing(path, i);
      out.push(bracket(path.slice(i + 1, end)));
      i = end + 1;
    } else if (path[i] === '.') {
      const m = /^[^.[\]\s]+/.exec(path.slice(i + 1));
      if (!m) throw new JsonPathError(`empty field name in ${input}`);
      out.push(m[0] === '*' ? { t: 'all' } : { t: 'field', name: m[0] });
      i += 1 + m[0].length;
    } else {
      throw new JsonPathError(`unexpected ${path[i]} in ${input}`);
    }
  }
  return out;
}

function compare(a: unknown, op: FilterOp, b: unknown): boolean {
  if (op === '==') return deepEqual(a, b);
  if (op === '!=') return !deepEqual(a, b);
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const [x, y] = [a, b as number | string];
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return isRecord(v) ? Object.values(v) : [];
}

function matchesFilter(item: unknown, seg: Extract<PathSegment, { t: 'filter' }>): boolean {
  const found = evaluate(seg.path, item);
  if (!seg.op) return found.length > 0;
  return found.some((v) => compare(v, seg.op!, seg.value));
}

function step(v: unknown, seg: PathSegment): unknown[] {
  switch (seg.t) {
    case 'field':
      return isRecord(v) && seg.name in v ? [v[seg.name]] : [];
    case 'index': {
      if (!Array.isArray(v)) return [];
      const i = seg.index < 0 ? v.length + seg.index : seg.index;
      return i >= 0 && i < v.length ? [v[i]] : [];
    }
    case 'all':
      return children(v);
    default:
      return children(v).filter((item) => matchesFilter(item, seg));
  }
}

/** Every value the path reaches in `root` (empty: it does not exist). */
export function evaluate(path: readonly PathSegment[], root: unknown): unknown[] {
  return path.reduce<unknown[]>((values, seg) => values.flatMap((v) => step(v, seg)), [root]);
}
