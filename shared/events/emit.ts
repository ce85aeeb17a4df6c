/**
 * POST a binary-mode CloudEvent and report what happened, honestly: the HTTP status and body of
 * any response, or the network error / timeout. (The SDK's httpTransport hides failures.)
 *
 * Sent with node:http(s) (the default agents keep connections alive) unless a `fetch` is given
 * (tests, fault injection). Not the global `fetch`: that is undici, whose first use in a process
 * loads it and compiles llhttp's WebAssembly, which V8 then tiers up on background threads — a
 * tenth of a CPU-second or more in a replica that lives for one tick (shared/monitoring/http-get.ts
 * measured it).
 */
import http from 'node:http';
import https from 'node:https';
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
  /** Lower-case names. */
  headers: Record<string, string>;
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

/**
 * The message of a network error. node:http reports a host with several addresses it could not
 * reach as an AggregateError whose own message is empty: its errors (or code) say what happened.
 */
export function describeError(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  const own = err.message || aggregateMessage(err) || (err as { code?: string }).code || err.name;
  return cause instanceof Error ? `${own}: ${cause.message}` : own;
}

function aggregateMessage(err: Error): string {
  const errors = (err as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return '';
  return [...new Set(errors.map((e) => (e instanceof Error ? e.message : String(e))))].join('; ');
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One POST with node:http(s); rejects on a network error or when `signal` aborts. */
function post(
  url: string,
  headers: Record<string, string>,
  body: string | Uint8Array,
  signal: AbortSignal,
): Promise<Answer> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': String(payload.byteLength) }, signal },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) {
            if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: out,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** One POST with an injected fetch (tests, fault injection). */
async function postWith(
  doFetch: FetchLike,
  url: string,
  headers: Record<string, string>,
  body: string | Uint8Array,
  signal: AbortSignal,
): Promise<Answer> {
  const response = await doFetch(url, { method: 'POST', headers, body, signal });
  const text = await response.text();
  const out: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    out[key.toLowerCase()] = value;
  });
  return { status: response.status, headers: out, body: text };
}

/** POSTs the event in binary mode; never throws for HTTP or network outcomes. */
export async function emit(event: Event, options: EmitOptions): Promise<EmitResult> {
  const encoded = encodeBinary(event);
  const headers = {
    ...encoded.headers,
    ...options.headers,
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  };
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
    const answer = options.fetch
      ? await postWith(options.fetch, options.sink, headers, encoded.body, controller.signal)
      : await post(options.sink, headers, encoded.body, controller.signal);
    return {
      kind: 'response',
      ok: answer.status >= 200 && answer.status < 300,
      status: answer.status,
      headers: answer.headers,
      body: answer.body,
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
