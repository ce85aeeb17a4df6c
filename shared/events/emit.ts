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

/** What a sender needs of a fetch's answer (the global fetch's Response has it; so has httpFetch's). */
export interface FetchAnswer {
  status: number;
  headers: { forEach(callback: (value: string, key: string) => void): void };
  text(): Promise<string>;
}

export type FetchLike = (url: string, init: RequestInit) => Promise<FetchAnswer>;

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

/** One request with node:http(s); rejects on a network error or when `signal` aborts. */
function post(
  url: string,
  headers: Record<string, string>,
  body: string | Uint8Array,
  signal: AbortSignal | undefined,
  method = 'POST',
): Promise<Answer> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      target,
      {
        method,
        headers: { ...headers, 'content-length': String(payload.byteLength) },
        ...(signal ? { signal } : {}),
      },
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

/**
 * Request headers as a plain record with lower-case names, from any form `RequestInit` takes
 * (a record, name/value pairs or another iterable of them, a Headers object), without touching the
 * global Headers class (which would load undici). As the Headers class does, a name given twice
 * (in any case) gets its values joined with ", "; an undefined value is left out.
 */
export function plainHeaders(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (k: string, v: string | undefined): void => {
    if (v === undefined) return;
    const name = k.toLowerCase();
    out[name] = out[name] === undefined ? v : `${out[name]}, ${v}`;
  };
  if (init === undefined || init === null) return out;
  if (typeof (init as { forEach?: unknown }).forEach === 'function' && !Array.isArray(init)) {
    (init as { forEach(cb: (v: string, k: string) => void): void }).forEach((v, k) => add(k, v));
  } else if (typeof (init as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function') {
    for (const [k, v] of init as Iterable<[string, string]>) add(k, v);
  } else {
    for (const [k, v] of Object.entries(init as Record<string, string | undefined>)) add(k, v);
  }
  return out;
}

/**
 * The bytes of a request body a FetchLike in this process takes (the embedded activator's and
 * ingress's in-process paths): none, a string (UTF-8) or bytes; `who` names the taker in the error.
 */
export function requestBodyBytes(body: RequestInit['body'], who: string): Buffer {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw new TypeError(`${who} takes string or byte bodies only`);
}

/** The error Node's HTTP client rejects with when `signal` aborts a request. */
export function abortError(signal: AbortSignal): Error {
  const err = new Error('The operation was aborted', { cause: signal.reason });
  err.name = 'AbortError';
  return err;
}

/**
 * A FetchLike over node:http(s) with the default keep-alive agents, for what the landscape sends
 * (string or byte bodies): the embedded event plane's broker and sources use it instead of the
 * global fetch (undici: its streams, abort signals and header lists cost the landscape process
 * about a fifth of its CPU under load, measured in the deployers bench). Unlike fetch it follows no
 * redirect (an answer is the sink's own: a 3xx is not a 2xx), and it reads the whole body before it
 * resolves, so a signal's timeout covers the body too. The method defaults to GET, as fetch's.
 */
export const httpFetch: FetchLike = async (url, init) => {
  const body = init.body ?? '';
  if (typeof body !== 'string' && !(body instanceof Uint8Array))
    throw new TypeError('httpFetch sends string or byte bodies only');
  const method = init.method ?? 'GET';
  const answer = await post(url, plainHeaders(init.headers), body, init.signal ?? undefined, method);
  return {
    status: answer.status,
    headers: {
      forEach: (callback) => {
        for (const [k, v] of Object.entries(answer.headers)) callback(v, k);
      },
    },
    text: () => Promise.resolve(answer.body),
  };
};

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
