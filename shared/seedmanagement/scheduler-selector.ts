/**
 * Seed selectors for the scheduler (specs/seed-management.md, steps 2 and 3), pure: a
 * `metav1.LabelSelector` converted as apimachinery's LabelSelectorAsSelector does, so the
 * scheduler's messages print the selector as upstream prints it.
 *
 * Upstream: an empty selector selects everything; requirements are sorted by key and printed as
 * `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, joined by `,` (values sorted); an unknown operator
 * or a value list that does not fit the operator is a conversion error.
 *
 * Where the product differs: label keys and values are not checked for syntax (the API server
 * validated them when the object was written).
 */
import type { LabelSelector, LabelSelectorRequirement } from '@landscape/apimachinery';

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export type SelectorOperator = (typeof OPERATORS)[number] | 'Equals';
function isListedOperator(value: string): value is (typeof OPERATORS)[number] {
  return (OPERATORS as readonly string[]).includes(value);
}

export interface Requirement {
  key: string;
  operator: SelectorOperator;
  values: readonly string[];
}

export type SelectorConversion =
  { ok: true; requirements: Requirement[]; text: string } | { ok: false; message: string };

/** Go's `%q` for the plain strings in these messages. */
export function goQuote(value: string): string {
  return JSON.stringify(value);
}

/** Go's `%#v` of a `[]string`. */
function goStringSlice(values: readonly string[]): string {
  return values.length === 0 ? '[]string(nil)' : `[]string{${values.map(goQuote).join(', ')}}`;
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

function requirementFor(expr: LabelSelectorRequirement): Requirement | string {
  if (!isListedOperator(expr.operator))
    return `${goQuote(expr.operator)} is not a valid label selector operator`;
  const values = [...(expr.values ?? [])];
  const needsValues = expr.operator === 'In' || expr.operator === 'NotIn';
  if (needsValues && values.length === 0) {
    return `values: Invalid value: ${goStringSlice(values)}: for 'in', 'notin' operators, values set can't be empty`;
  }
  if (!needsValues && values.length > 0) {
    return `values: Invalid value: ${goStringSlice(values)}: values set must be empty for exists and does not exist`;
  }
  return { key: expr.key, operator: expr.operator, values };
}

function requirementString(r: Requirement): string {
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  switch (r.operator) {
    case 'Equals':
      return `${r.key}=${values}`;
    case 'In':
      return `${r.key} in (${values})`;
    case 'NotIn':
      return `${r.key} notin (${values})`;
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
  }
}

/** The selector's requirements sorted by key and its string form; a message when it does not convert. */
export function convertSelector(selector: LabelSelector): SelectorConversion {
  const requirements: Requirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: 'Equals',
    values: [value],
  }));
  for (const expr of selector.matchExpressions ?? []) {
    const r = requirementFor(expr);
    if (typeof r === 'string') return { ok: false, message: r };
    requirements.push(r);
  }
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { ok: true, requirements, text: requirements.map(requirementString).join(',') };
}

function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.operator) {
    case 'Equals':
    case 'In':
      return has && r.values.includes(labels[r.key]);
    case 'NotIn':
      return !has || !r.values.includes(labels[r.key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/** True when the labels satisfy every requirement (no requirements: everything matches). */
export function requirementsMatch(
  requirements: readonly Requirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return requirements.every((r) => requirementMatches(r, labels ?? {}));
}
