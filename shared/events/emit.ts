/**
 * POST a binary-mode CloudEvent and report what happened, honestly: the HTTP status and body of
 * any response, or the network error / timeout. (The SDK's httpTransport hides failures.)
 */
import { encodeBinary } from './cloudevent.js';
import type { Event } from './cloudevent.js';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface EmitOptions {
  /** The destination URL (K_SINK for a function). */
  sink: string;
  fetch?: FetchLike;
  /** Per-request timeout covering the response body; none when undefined or 0. */
  timeoutMs?: number;
  /** Extra request headers (e.g. `Prefer: reply`). */
  headers?: Record<string, string>;
  /**
   * Sent as `Authorization: Bearer <token>` when set (K_SINK_TOKEN: the embedded landscape's
   * broker ingress requires it; Knative's cluster-local one needs none). Never part of a result
   * or an error message.
   */
  token?: string;
}

export interface EmitResponse {
  kind: 'response';
  ok: boolean;
  status: number;
  headers: Headers;
  body: string;
}
export interface EmitFailure {
  kind: 'error';
  ok: false;
  /** 0: there was no HTTP response. */
  status: 0;
  timedOut: boolean;
  error: string;
}
export type EmitResult = EmitResponse | EmitFailure;

/** The emit did not get a 2xx (thrown by `emitOrThrow`). */
export class EmitError extends Error {
  override readonly name = 'EmitError';
  constructor(
    readonly sink: string,
    readonly result: EmitResult,
  ) {
    super(
      result.kind === 'response'
        ? `emit to ${sink}: HTTP ${result.status}${result.body ? `: ${result.body.slice(0, 200)}` : ''}`
        : `emit to ${sink}: ${result.error}`,
    );
  }
}

function failure(err: unknown, timedOut: boolean, timeoutMs: number | undefined): EmitFailure {
  const message = err instanceof Error ? describeError(err) : String(err);
  return {
    kind: 'error',
    ok: false,
    status: 0,
    timedOut,
    error: timedOut ? `timeout after ${timeoutMs} ms` : message,
  };
}

function describeError(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
}

/** POSTs the event in binary mode; never throws for HTTP or network outcomes. */
export async function emit(event: Event, options: EmitOptions): Promise<EmitResult> {
  const { headers, body } = encodeBinary(event);
  const doFetch = options.fetch ?? globalThis.fetch;
  const controller = new AbortController();
  let timedOut = false;
  const timer =
    options.timeoutMs !== undefined && options.timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, options.timeoutMs)
      : undefined;
  try {
    const response = await doFetch(options.sink, {
      method: 'POST',
      headers: {
        ...headers,
        ...options.headers,
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      },
      body,
      signal: controller.signal,
    });
    const text = await response.text();
    return {
      kind: 'response',
      ok: response.ok,
      status: response.status,
      headers: response.headers,
      body: text,
    };
  } catch (err) {
    return failure(err, timedOut, options.timeoutMs);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** `emit`, throwing `EmitError` unless the sink answered 2xx (for handlers: a throw means retry). */
export async function emitOrThrow(event: Event, options: EmitOptions): Promise<EmitResponse> {
  const result = await emit(event, options);
  if (result.kind !== 'response' || !result.ok) throw new EmitError(options.sink, result);
  return result;
}
