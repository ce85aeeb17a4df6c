/**
 * Trigger filtering with Knative's semantics (pkg/eventfilter): every filter answers pass, fail
 * or "no filter"; an event is delivered unless the result is fail. `spec.filters` (implicitly
 * all-of) wins over `spec.filter.attributes` when both are set. Attribute names include
 * extensions; an unset optional attribute reads as "".
 */
import type { Event } from '../../shared/events/index.js';
import type { SubscriptionsApiFilter, Trigger } from './trigger.js';

export const FILTER_RESULTS = ['pass', 'fail', 'none'] as const;
export type FilterResult = (typeof FILTER_RESULTS)[number];

const STANDARD_OPTIONAL = new Set(['subject', 'time', 'datacontenttype', 'dataschema']);

/** The attribute's value as a string, or undefined when an extension is absent. */
export function lookupAttribute(event: Event, name: string): string | undefined {
  const value = (event as unknown as Record<string, unknown>)[name];
  if (name === 'data' || name === 'data_base64') return undefined;
  if (value === undefined || value === null) return STANDARD_OPTIONAL.has(name) ? '' : undefined;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** Legacy `filter.attributes`: exact match; "" means the attribute is present and non-empty. */
export function attributesFilter(attributes: Record<string, string> | undefined, event: Event): FilterResult {
  if (attributes === undefined) return 'none';
  for (const [name, want] of Object.entries(attributes)) {
    const value = lookupAttribute(event, name);
    if (value === undefined || (want === '' && value === '')) return 'fail';
    if (want !== '' && want !== value) return 'fail';
  }
  return 'pass';
}

type Compare = (value: string, want: string) => boolean;

function singleAttribute(map: Record<string, string>, event: Event, compare: Compare): FilterResult {
  const entries = Object.entries(map);
  if (entries.some(([k, v]) => k === '' || v === '')) return 'none';
  for (const [name, want] of entries) {
    const value = lookupAttribute(event, name);
    if (value === undefined || !compare(value, want)) return 'fail';
  }
  return 'pass';
}

function or(x: FilterResult, y: FilterResult): FilterResult {
  if (x === 'none') return y;
  if (y === 'none') return x;
  return x === 'pass' || y === 'pass' ? 'pass' : 'fail';
}

/** all: fail as soon as one fails, otherwise the last result ("none" when empty). */
export function allFilter(filters: readonly SubscriptionsApiFilter[], event: Event): FilterResult {
  let result: FilterResult = 'none';
  for (const f of filters) {
    result = evaluateFilter(f, event);
    if (result === 'fail') return 'fail';
  }
  return result;
}

/** any: pass as soon as one passes ("none" when empty). */
export function anyFilter(filters: readonly SubscriptionsApiFilter[], event: Event): FilterResult {
  let result: FilterResult = 'none';
  for (const f of filters) {
    result = or(result, evaluateFilter(f, event));
    if (result === 'pass') return 'pass';
  }
  return result;
}

function notFilter(filter: SubscriptionsApiFilter, event: Event): FilterResult {
  const result = evaluateFilter(filter, event);
  if (result === 'none') return 'none';
  return result === 'pass' ? 'fail' : 'pass';
}

/** One SubscriptionsAPIFilter entry; CESQL is not supported and never matches. */
export function evaluateFilter(filter: SubscriptionsApiFilter, event: Event): FilterResult {
  if (filter.exact) return singleAttribute(filter.exact, event, (v, w) => v === w);
  if (filter.prefix) return singleAttribute(filter.prefix, event, (v, w) => v.startsWith(w));
  if (filter.suffix) return singleAttribute(filter.suffix, event, (v, w) => v.endsWith(w));
  if (filter.all) return allFilter(filter.all, event);
  if (filter.any) return anyFilter(filter.any, event);
  if (filter.not) return notFilter(filter.not, event);
  if (filter.cesql !== undefined) return 'fail';
  return 'none';
}

/** Knative's trigger filter result for the event. */
export function filterResult(trigger: Pick<Trigger, 'attributes' | 'filters'>, event: Event): FilterResult {
  if (trigger.filters !== undefined && trigger.filters.length > 0) return allFilter(trigger.filters, event);
  return attributesFilter(trigger.attributes, event);
}

/** Whether the trigger takes the event (anything but an explicit fail). */
export function matches(trigger: Pick<Trigger, 'attributes' | 'filters'>, event: Event): boolean {
  return filterResult(trigger, event) !== 'fail';
}
