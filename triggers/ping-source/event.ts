/** The event a PingSource sends (pure). */
import { EventTypes, type EventInit } from '../../shared/events/index.js';
import type { PingSourceSpec } from './spec.js';

/** `/apis/v1/namespaces/<ns>/pingsources/<name>`, as Knative's PingSource. */
export function pingSourceUri(namespace: string, name: string): string {
  return `/apis/v1/namespaces/${namespace}/pingsources/${name}`;
}

/** The `dev.knative.sources.ping` event for the run scheduled at `time`. */
export function pingEvent(spec: PingSourceSpec, opts: { id: string; time: Date }): EventInit {
  return {
    ...spec.extensions,
    id: opts.id,
    type: EventTypes.ping,
    source: pingSourceUri(spec.namespace, spec.name),
    time: opts.time.toISOString(),
    ...(spec.contentType ? { datacontenttype: spec.contentType } : {}),
    ...(spec.data !== undefined ? { data: spec.data } : {}),
  };
}

/** Knative's PingSource jitter: a delay in [0, 500) ms from a random number in [0, 1). */
export const MAX_JITTER_MS = 500;
export function jitterMs(rand: () => number): number {
  return Math.floor(Math.min(Math.max(rand(), 0), 0.999999) * MAX_JITTER_MS);
}

/** Exponential backoff of a failed send: 50 ms × 2^attempt (attempt from 0). */
export function retryDelayMs(attempt: number, baseMs = 50): number {
  return baseMs * 2 ** attempt;
}
