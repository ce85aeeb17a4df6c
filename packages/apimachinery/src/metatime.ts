/**
 * metav1.Time on the wire (k8s.io/apimachinery/pkg/apis/meta/v1/time.go): RFC 3339 in UTC with
 * whole seconds (`2023-07-13T11:33:30Z`).
 */
import type { Time } from './meta.js';

/** The last second formatted: a server stamps many objects within one second. */
let lastSecond = { second: NaN, text: '' };

/** `now` as a metav1.Time: RFC 3339, UTC, whole seconds. */
export function formatTime(now: Date): Time {
  const second = Math.floor(now.getTime() / 1000);
  if (second !== lastSecond.second) lastSecond = { second, text: now.toISOString().replace(/\.\d+Z$/, 'Z') };
  return lastSecond.text;
}

/** Milliseconds since the epoch of a metav1.Time; undefined when absent or unparsable. */
export function parseTime(value: Time | undefined | null): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
