/**
 * Delivery to the sink as Knative's ApiServerSource adapter does it: binary-mode HTTP POST
 * (`ce-*` headers, the JSON data as body), success on 2xx only. The retries are the adapter's:
 * knative/eventing pkg/adapter/apiserver/events/events.go sets
 * `cloudevents.ContextWithRetriesExponentialBackoff(ctx, 50*time.Millisecond, 5)`, and
 * cloudevents/sdk-go v2/protocol/http/protocol_retry.go (`doWithRetry`) with
 * v2/context/retry.go (`Backoff`, `BackoffFor`) make that 1 attempt plus at most 5 retries,
 * retry n after 50 ms × 2^n (100, 200, 400, 800, 1600 ms), on a network error or one of the
 * statuses of v2/protocol/http/protocol.go `defaultRetriableErrors` (404, 413, 425, 429, 502,
 * 503, 504); any other answer ends the send at once. An event not acknowledged then is logged
 * (`failed to send cloudevent`, delegate.go) and dropped.
 *
 * One difference: Knative's client has no per-attempt timeout unless K_SINK_TIMEOUT is set; here
 * each attempt gives up after `timeoutMs` (default 10 s, counted as a network error) so a sink
 * that hangs cannot stop the source for good. The default sender (shared/events `httpFetch`)
 * reads the answer's body within that time (the global fetch it replaced settled at the headers).
 */
import { describeError, httpFetch } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log/index.js';
import type { Sleep } from '../../shared/kube/reflector/index.js';
import type { OutboundEvent } from './types.js';

export type { Sleep };

/** One attempt and `MaxTries` = 5 retries. */
export const DEFAULT_ATTEMPTS = 6;
/** `Period` of the exponential backoff. */
export const DEFAULT_BACKOFF_MS = 50;
export const DEFAULT_SEND_TIMEOUT_MS = 10_000;

export type FetchLike = (url: string, init: RequestInit) => Promise<{ status: number }>;

export interface EmitterOptions {
  logger: Logger;
  sleep: Sleep;
  /** Default: node:http(s) (shared/events httpFetch). */
  fetch?: FetchLike;
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
}

export type EmitResult =
  | { delivered: true; attempts: number; status: number }
  | { delivered: false; attempts: number; status?: number; error?: string };

export type Emit = (sink: string, event: OutboundEvent) => Promise<EmitResult>;

/** Binary-mode headers: every attribute as `ce-<name>`, datacontenttype as Content-Type. */
export function binaryHeaders(event: OutboundEvent): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.attributes)) {
    if (name === 'datacontenttype') headers['content-type'] = value;
    else headers[`ce-${name}`] = value;
  }
  return headers;
}

/** sdk-go's `defaultRetriableErrors`: the statuses worth another attempt. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([404, 413, 425, 429, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** Delay before attempt n (n ≥ 2), i.e. retry n-1: sdk-go's `BackoffFor(tries)` = period × 2^tries. */
export function backoffDelay(backoffMs: number, attempt: number): number {
  return backoffMs * 2 ** (attempt - 1);
}

type Attempt = { status?: number; error?: string };

async function attemptOnce(
  fetchImpl: FetchLike,
  sink: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Attempt> {
  // as AbortSignal.timeout does, but the timer goes with the answer: not one left armed per event
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    timeoutMs,
  );
  try {
    const res = await fetchImpl(sink, { ...init, signal: controller.signal });
    return { status: res.status };
  } catch (err) {
    // the cause too: a timeout is an AbortError whose cause says so
    return { error: err instanceof Error ? describeError(err) : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

function outcome(a: Attempt): 'ok' | 'retry' | 'fail' {
  if (a.status === undefined) return 'retry';
  if (a.status >= 200 && a.status <= 299) return 'ok';
  return isRetryableStatus(a.status) ? 'retry' : 'fail';
}

export function createEmitter(options: EmitterOptions): Emit {
  const fetchImpl: FetchLike = options.fetch ?? httpFetch;
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  return async (sink, event) => {
    const init: RequestInit = {
      method: 'POST',
      headers: binaryHeaders(event),
      body: JSON.stringify(event.data),
    };
    let last: Attempt = {};
    for (let n = 1; n <= attempts; n++) {
      if (n > 1) await options.sleep(backoffDelay(backoffMs, n));
      last = await attemptOnce(fetchImpl, sink, init, timeoutMs);
      const o = outcome(last);
      if (o === 'ok') return { delivered: true, attempts: n, status: last.status! };
      if (o === 'fail') return drop(options.logger, sink, event, n, last);
    }
    return drop(options.logger, sink, event, attempts, last);
  };
}

function drop(
  logger: Logger,
  sink: string,
  event: OutboundEvent,
  attempts: number,
  last: Attempt,
): EmitResult {
  logger.error('failed to send cloudevent: dropped', {
    sink,
    id: event.attributes.id,
    type: event.attributes.type,
    subject: event.attributes.subject,
    attempts,
    status: last.status,
    error: last.error,
  });
  return { delivered: false, attempts, status: last.status, error: last.error };
}
