/**
 * Label and field selectors with the grammar of k8s.io/apimachinery's labels.Parse and
 * fields.ParseSelector: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`.
 */
import { badRequest } from './errors.js';

export const LABEL_OPERATORS = ['=', '==', '!=', 'in', 'notin', 'exists', '!', 'gt', 'lt'] as const;
export type LabelOperator = (typeof LABEL_OPERATORS)[number];

export interface LabelRequirement {
  key: string;
  op: LabelOperator;
  values: string[];
}

export type LabelSelector = LabelRequirement[];

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function checkKey(key: string, whole: string): string {
  if (!KEY.test(key) || key.length > 316) {
    throw badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${whole}"`);
  }
  return key;
}

function checkValue(value: string, whole: string): string {
  if (value.length > 63 || !VALUE.test(value)) {
    throw badRequest(`unable to parse requirement: invalid label value "${value}" in selector "${whole}"`);
  }
  return value;
}

const SET_FORM = /^(\S+)\s+(in|notin)\s*\((.*)\)$/;
const COMPARE_FORM = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(.*)$/;

function parseRequirement(raw: string, whole: string): LabelRequirement {
  const text = raw.trim();
  const set = SET_FORM.exec(text);
  if (set) {
    const values = set[3].split(',').map((v) => checkValue(v.trim(), whole));
    return { key: checkKey(set[1], whole), op: set[2] as 'in' | 'notin', values };
  }
  if (text.startsWith('!')) return { key: checkKey(text.slice(1).trim(), whole), op: '!', values: [] };
  const cmp = COMPARE_FORM.exec(text);
  if (cmp) {
    const op = cmp[2] === '>' ? 'gt' : cmp[2] === '<' ? 'lt' : (cmp[2] as '=' | '==' | '!=');
    const value = cmp[3].trim();
    if ((op === 'gt' || op === 'lt') && !/^-?\d+$/.test(value)) {
      throw badRequest(
        `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer in selector "${whole}"`,
      );
    }
    return { key: checkKey(cmp[1], whole), op, values: [checkValue(value, whole)] };
  }
  if (/^\S+$/.test(text)) return { key: checkKey(text, whole), op: 'exists', values: [] };
  throw badRequest(`unable to parse requirement: couldn't parse the selector string "${whole}"`);
}

/** Parses a `labelSelector` query value; an empty string selects everything. */
export function parseLabelSelector(text: string | undefined | null): LabelSelector {
  if (!text || !text.trim()) return [];
  return splitTopLevel(text).map((part) => {
    if (!part.trim())
      throw badRequest(`unable to parse requirement: found '', expected: identifier in selector "${text}"`);
    return parseRequirement(part, text);
  });
}

type Predicate = (has: boolean, value: string, values: string[]) => boolean;

const isInt = (v: string): boolean => /^-?\d+$/.test(v);
const inSet: Predicate = (has, value, values) => has && values.includes(value);
const notInSet: Predicate = (has, value, values) => !has || !values.includes(value);

const PREDICATES: Record<LabelOperator, Predicate> = {
  '=': inSet,
  '==': inSet,
  in: inSet,
  '!=': notInSet,
  notin: notInSet,
  exists: (has) => has,
  '!': (has) => !has,
  gt: (has, value, values) => has && isInt(value) && Number(value) > Number(values[0]),
  lt: (has, value, values) => has && isInt(value) && Number(value) < Number(values[0]),
};

function matchesRequirement(req: LabelRequirement, labels: Record<string, string>): boolean {
  return PREDICATES[req.op](
    Object.prototype.hasOwnProperty.call(labels, req.key),
    labels[req.key],
    req.values,
  );
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return selector.every((req) => matchesRequirement(req, l));
}

/** A metav1.LabelSelector (matchLabels / matchExpressions) as used in spec.selector fields. */
export interface MetaLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }[];
}

const META_OPS = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as const;

export function fromMetaLabelSelector(sel: MetaLabelSelector): LabelSelector {
  const reqs: LabelSelector = Object.entries(sel.matchLabels ?? {}).map(([key, v]) => ({
    key,
    op: '=',
    values: [v],
  }));
  for (const e of sel.matchExpressions ?? [])
    reqs.push({ key: e.key, op: META_OPS[e.operator], values: e.values ?? [] });
  return reqs;
}

/** Renders a selector in the string form `kubectl` and the scale subresource use. */
export function formatLabelSelector(selector: LabelSelector): string {
  return [...selector]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => {
      switch (r.op) {
        case 'in':
        case 'notin':
          return `${r.key} ${r.op} (${[...r.values].sort().join(',')})`;
        case 'exists':
          return r.key;
        case '!':
          return `!${r.key}`;
        case 'gt':
          return `${r.key}>${r.values[0]}`;
        case 'lt':
          return `${r.key}<${r.values[0]}`;
        default:
          return `${r.key}${r.op === '==' ? '=' : r.op}${r.values[0]}`;
      }
    })
    .join(',');
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

function unescapeFieldValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** Splits on a separator that is not escaped with a backslash. */
function splitUnescaped(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) {
      cur += text[i] + text[i + 1];
      i++;
    } else if (text[i] === sep) {
      out.push(cur);
      cur = '';
    } else cur += text[i];
  }
  out.push(cur);
  return out;
}

/** Parses a `fieldSelector`; `supported` lists the field labels the resource allows. */
/**
 * Parses a `fieldSelector`; `supported` lists the field labels the resource allows. Kinds with
 * their own field label conversion (Pod, Node, Event, ...) word a refusal the legacy way.
 */
export function parseFieldSelector(
  text: string | undefined | null,
  supported: readonly string[],
  legacyWording = false,
): FieldRequirement[] {
  if (!text || !text.trim()) return [];
  return splitUnescaped(text, ',').map((part) => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part.trim());
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const field = m[1].trim();
    if (!supported.includes(field)) {
      const known = supported.map((s) => JSON.stringify(s)).join(', ');
      throw badRequest(
        legacyWording
          ? `field label not supported: ${field}`
          : `"${field}" is not a known field selector: only ${known}`,
      );
    }
    return { field, op: m[2] === '!=' ? '!=' : '=', value: unescapeFieldValue(m[3]) };
  });
}

export function matchesFields(reqs: FieldRequirement[], fields: Record<string, string>): boolean {
  return reqs.every((r) => ((fields[r.field] ?? '') === r.value) === (r.op === '='));
}
