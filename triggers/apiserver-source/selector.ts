/**
 * Label selectors (metav1.LabelSelector): matching labels against a selector, and the selector as
 * the `labelSelector` query parameter the API server understands. Pure.
 */
import type { LabelSelector, LabelSelectorRequirement } from './types.js';

function requirementMatches(
  req: LabelSelectorRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return has && values.includes(labels[req.key]);
    case 'NotIn':
      return !has || !values.includes(labels[req.key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/** True when `labels` satisfy every term (an empty or absent selector matches everything). */
export function matchesSelector(
  selector: LabelSelector | undefined,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  if (!selector) return true;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  return (selector.matchExpressions ?? []).every((req) => requirementMatches(req, l));
}

/** True when the selector has no terms (`{}`): it selects everything. */
export function isEmptySelector(selector: LabelSelector): boolean {
  return (
    Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0
  );
}

function requirementString(req: LabelSelectorRequirement): string {
  const values = [...(req.values ?? [])].sort().join(',');
  switch (req.operator) {
    case 'In':
      return `${req.key} in (${values})`;
    case 'NotIn':
      return `${req.key} notin (${values})`;
    case 'Exists':
      return req.key;
    case 'DoesNotExist':
      return `!${req.key}`;
  }
}

/** The selector in the API server's string syntax (`a=b,c in (x,y),!d`); '' for none. */
export function selectorString(selector: LabelSelector | undefined): string {
  if (!selector) return '';
  const terms = Object.entries(selector.matchLabels ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  for (const req of selector.matchExpressions ?? []) terms.push(requirementString(req));
  return terms.join(',');
}
