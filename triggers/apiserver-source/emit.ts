/**
 * Delivery to the sink as Knative's adapter does it: binary-mode HTTP POST (`ce-*` headers, the
 * JSON data as body), success on 2xx only, up to 5 attempts with exponential backoff from 50 ms
 * (50, 100, 200, 400 ms) on network errors, 5xx, 404, 408, 409 and 429. After the last attempt
 * the event is dropped and the drop is logged. A small emitter of this folder's own until
 * shared/events/emit exists.
 */
import type { Logger } from '../../shared/log/index.js';
import type { OutboundEvent } from './types.js';

export const DEFAULT_ATTEMPTS = 5;
export const DEFAULT_BACKOFF_MS = 50;
export const DEFAULT_SEND_TIMEOUT_MS = 10_000;

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
export type FetchLike = (url: string, init: RequestInit) => Promise<{ status: number }>;

export interface EmitterOptions {
  logger: Logger;
  sleep: Sleep;
  /** Default: the global fetch. */
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

/** Whether a status is worth another attempt (the transient ones). */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 404 || status === 408 || status === 409 || status === 429;
}

/** Delay before attempt n (n ≥ 2): backoff × 2^(n-2). */
export function backoffDelay(backoffMs: number, attempt: number): number {
  return backoffMs * 2 ** (attempt - 2);
}

type Attempt = { status?: number; error?: string };

async function attemptOnce(
  fetchImpl: FetchLike,
  sink: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Attempt> {
  try {
    const res = await fetchImpl(sink, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

function outcome(a: Attempt): 'ok' | 'retry' | 'fail' {
  if (a.status === undefined) return 'retry';
  if (a.status >= 200 && a.status <= 299) return 'ok';
  return isRetryableStatus(a.status) ? 'retry' : 'fail';
}

export function createEmitter(options: EmitterOptions): Emit {
  const fetchImpl: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
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
  logger.error('event dropped: sink did not accept it', {
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
