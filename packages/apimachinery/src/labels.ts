/**
 * Label selectors, one parser, one matcher, one printer (k8s.io/apimachinery/pkg/labels/selector.go
 * and LabelSelectorAsSelector in k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go):
 *
 * - a selector is a list of requirements (`key`, operator of pkg/selection, values);
 * - `parseSelector` reads the string syntax (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`,
 *   `a`, `!a`, `a>1`, `a<1`) as labels.Parse does;
 * - `labelSelectorAsSelector` converts a metav1.LabelSelector (matchLabels/matchExpressions) with
 *   upstream's checks and error messages; `labelSelectorRequirements` converts without them;
 * - `requirementsMatch` / `matchesLabelSelector` match labels (an empty selector matches
 *   everything);
 * - `selectorString` prints as Selector.String() (kubectl, the `labelSelector` query parameter,
 *   the scale subresource): requirements sorted by key, values of a set sorted.
 *
 * Where this differs: keys and values are checked (validation.ts) only when a string is parsed.
 */
import type { LabelSelector, LabelSelectorRequirement } from './meta.js';
import { goStringSlice, goQuote } from './quote.js';
import { isQualifiedName, isValidLabelValue } from './validation.js';

/** selection.Operator: the operators of a parsed selector. */
export const SELECTOR_OPERATORS = ['=', '==', '!=', 'in', 'notin', 'exists', '!', 'gt', 'lt'] as const;
export type SelectorOperator = (typeof SELECTOR_OPERATORS)[number];

/** labels.Requirement. */
export interface LabelRequirement {
  key: string;
  operator: SelectorOperator;
  values: readonly string[];
}

/** A syntax error of a selector string; the message is labels.Parse's. */
export class SelectorParseError extends Error {}

const INTEGER = /^-?\d+$/;

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

function parseError(detail: string): SelectorParseError {
  return new SelectorParseError(`unable to parse requirement: ${detail}`);
}

function checkKey(key: string, whole: string): string {
  if (!isQualifiedName(key)) throw parseError(`invalid label key "${key}" in selector "${whole}"`);
  return key;
}

function checkValue(value: string, whole: string): string {
  if (!isValidLabelValue(value)) {
    throw parseError(`invalid label value "${value}" in selector "${whole}"`);
  }
  return value;
}

const SET_FORM = /^(\S+)\s+(in|notin)\s*\((.*)\)$/;
const COMPARE_FORM = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(.*)$/;
const COMPARE_OPERATORS: Record<string, SelectorOperator> = {
  '>': 'gt',
  '<': 'lt',
  '=': '=',
  '==': '==',
  '!=': '!=',
};

function parseComparison(cmp: RegExpExecArray, whole: string): LabelRequirement {
  const operator = COMPARE_OPERATORS[cmp[2]];
  const value = cmp[3].trim();
  if ((operator === 'gt' || operator === 'lt') && !INTEGER.test(value)) {
    throw parseError(`for 'Gt', 'Lt' operators, the value must be an integer in selector "${whole}"`);
  }
  return { key: checkKey(cmp[1], whole), operator, values: [checkValue(value, whole)] };
}

function parseRequirement(raw: string, whole: string): LabelRequirement {
  const text = raw.trim();
  const set = SET_FORM.exec(text);
  if (set) {
    const values = set[3].split(',').map((v) => checkValue(v.trim(), whole));
    return { key: checkKey(set[1], whole), operator: set[2] as 'in' | 'notin', values };
  }
  if (text.startsWith('!')) return { key: checkKey(text.slice(1).trim(), whole), operator: '!', values: [] };
  const cmp = COMPARE_FORM.exec(text);
  if (cmp) return parseComparison(cmp, whole);
  if (/^\S+$/.test(text)) return { key: checkKey(text, whole), operator: 'exists', values: [] };
  throw parseError(`couldn't parse the selector string "${whole}"`);
}

/** labels.Parse: a selector string; empty selects everything. Throws {@link SelectorParseError}. */
export function parseSelector(text: string | undefined | null): LabelRequirement[] {
  if (!text || !text.trim()) return [];
  return splitTopLevel(text).map((part) => {
    if (!part.trim()) throw parseError(`found '', expected: identifier in selector "${text}"`);
    return parseRequirement(part, text);
  });
}

type Predicate = (has: boolean, value: string, values: readonly string[]) => boolean;

const inSet: Predicate = (has, value, values) => has && values.includes(value);
const notInSet: Predicate = (has, value, values) => !has || !values.includes(value);

const PREDICATES: Record<SelectorOperator, Predicate> = {
  '=': inSet,
  '==': inSet,
  in: inSet,
  '!=': notInSet,
  notin: notInSet,
  exists: (has) => has,
  '!': (has) => !has,
  gt: (has, value, values) => has && INTEGER.test(value) && Number(value) > Number(values[0]),
  lt: (has, value, values) => has && INTEGER.test(value) && Number(value) < Number(values[0]),
};

function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  return PREDICATES[r.operator](Object.prototype.hasOwnProperty.call(labels, r.key), labels[r.key], r.values);
}

/** Selector.Matches: the labels satisfy every requirement (no requirements: everything matches). */
export function requirementsMatch(
  requirements: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return requirements.every((r) => requirementMatches(r, labels ?? {}));
}

const byKey = (a: LabelRequirement, b: LabelRequirement): number =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : 0;

const OPERATOR_TEXT: Record<SelectorOperator, string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

/** Requirement.String(). */
export function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  const set = r.operator === 'in' || r.operator === 'notin';
  return `${r.key}${OPERATOR_TEXT[r.operator]}${set ? `(${values})` : values}`;
}

/** Selector.String(): requirements sorted by key, joined by `,`; '' for none. */
export function selectorString(requirements: readonly LabelRequirement[]): string {
  return [...requirements].sort(byKey).map(requirementString).join(',');
}

/** metav1.LabelSelectorOperator → selection.Operator. */
const META_OPERATORS: Record<string, SelectorOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

function metaOperator(operator: string): SelectorOperator | undefined {
  return Object.prototype.hasOwnProperty.call(META_OPERATORS, operator)
    ? META_OPERATORS[operator]
    : undefined;
}

function invalidOperator(operator: string): string {
  return `${goQuote(operator)} is not a valid label selector operator`;
}

function checkedRequirement(expr: LabelSelectorRequirement): LabelRequirement | string {
  const operator = metaOperator(expr.operator);
  if (!operator) return invalidOperator(expr.operator);
  const values = [...(expr.values ?? [])];
  const shown = goStringSlice(values.length === 0 ? undefined : values);
  const needsValues = operator === 'in' || operator === 'notin';
  if (needsValues && values.length === 0) {
    return `values: Invalid value: ${shown}: for 'in', 'notin' operators, values set can't be empty`;
  }
  if (!needsValues && values.length > 0) {
    return `values: Invalid value: ${shown}: values set must be empty for exists and does not exist`;
  }
  return { key: expr.key, operator, values };
}

function matchLabelRequirements(selector: LabelSelector): LabelRequirement[] {
  return Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: '=',
    values: [value],
  }));
}

export type SelectorConversion =
  { ok: true; requirements: LabelRequirement[]; text: string } | { ok: false; message: string };

/**
 * LabelSelectorAsSelector: the requirements sorted by key and their string form, or upstream's
 * message when an operator is unknown or a value list does not fit its operator.
 */
export function labelSelectorAsSelector(selector: LabelSelector): SelectorConversion {
  const requirements = matchLabelRequirements(selector);
  for (const expr of selector.matchExpressions ?? []) {
    const r = checkedRequirement(expr);
    if (typeof r === 'string') return { ok: false, message: r };
    requirements.push(r);
  }
  requirements.sort(byKey);
  return { ok: true, requirements, text: requirements.map(requirementString).join(',') };
}

/**
 * The requirements of a metav1.LabelSelector without checking value lists (for selectors whose
 * operators a schema already checked); an unknown operator throws {@link SelectorParseError}.
 */
export function labelSelectorRequirements(selector: LabelSelector | undefined): LabelRequirement[] {
  const requirements = matchLabelRequirements(selector ?? {});
  for (const expr of selector?.matchExpressions ?? []) {
    const operator = metaOperator(expr.operator);
    if (!operator) throw new SelectorParseError(invalidOperator(expr.operator));
    requirements.push({ key: expr.key, operator, values: expr.values ?? [] });
  }
  return requirements;
}

/** True when `labels` satisfy the selector (an empty or absent selector matches everything). */
export function matchesLabelSelector(
  selector: LabelSelector | undefined,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return requirementsMatch(labelSelectorRequirements(selector), labels);
}

/** The selector in the string syntax (`a=b,c in (x,y),!d`, sorted by key); '' for none. */
export function labelSelectorString(selector: LabelSelector | undefined): string {
  return selectorString(labelSelectorRequirements(selector));
}

/** True when the selector has no terms (`{}`): it selects everything. */
export function isEmptyLabelSelector(selector: LabelSelector): boolean {
  return (
    Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0
  );
}

/** Go's `%v` of a `metav1.LabelSelector` value: `{map[k:v] [{key In [a b]}]}`. */
export function goLabelSelector(selector: LabelSelector): string {
  const labels = Object.keys(selector.matchLabels ?? {})
    .sort()
    .map((k) => `${k}:${(selector.matchLabels ?? {})[k]}`);
  const expressions = (selector.matchExpressions ?? []).map(
    (e) => `{${e.key} ${e.operator} [${(e.values ?? []).join(' ')}]}`,
  );
  return `{map[${labels.join(' ')}] [${expressions.join(' ')}]}`;
}
