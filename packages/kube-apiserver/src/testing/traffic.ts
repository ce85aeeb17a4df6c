/**
 * An off-by-default count of one cluster's HTTP traffic (`countTraffic: true` in its options), for
 * benchmarks: requests, request body bytes, response body bytes and error answers (status ≥ 400),
 * by Kubernetes verb and resource (`get deployitems`, `patch deployitems/status`, `watch pods`,
 * `list deployitems`; non-resource paths as `GET /version`). Headers and TLS framing are not
 * counted; a watch's bytes are counted as its events are written. Take a snapshot before and after
 * a step and subtract (`trafficDelta`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestInfo } from '../auth/rbac/request-info.js';

export interface TrafficCount {
  requests: number;
  requestBytes: number;
  responseBytes: number;
  /** Answered with a status ≥ 400 (e.g. 404, 409). */
  errors: number;
}

/** Counts by `<verb> <resource>[/<subresource>]`. */
export type TrafficSnapshot = Record<string, TrafficCount>;

const zero = (): TrafficCount => ({ requests: 0, requestBytes: 0, responseBytes: 0, errors: 0 });

/** The Kubernetes verb and resource of a request (its RequestInfo); `<METHOD> <path>` for anything else. */
export function trafficKey(method: string, url: URL): string {
  const info = requestInfo(method, url);
  if (!info.isResourceRequest || !info.resource) return `${method} ${url.pathname}`;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  return `${info.verb} ${resource}`;
}

function byteLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string')
    return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  return chunk instanceof Uint8Array ? chunk.byteLength : 0;
}

export class TrafficCounter {
  private counts = new Map<string, TrafficCount>();

  /** A `request` listener to register before the server's own (it wraps `res.write` / `res.end`). */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    const method = req.method ?? 'GET';
    const key = trafficKey(method, new URL(req.url ?? '/', 'http://localhost'));
    const count = (): TrafficCount => {
      let c = this.counts.get(key);
      if (!c) this.counts.set(key, (c = zero()));
      return c;
    };
    count().requests++;
    req.on('data', (chunk: unknown) => (count().requestBytes += byteLength(chunk, undefined)));
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
      count().responseBytes += byteLength(chunk, rest[0]);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]): ServerResponse => {
      if (typeof chunk !== 'function') count().responseBytes += byteLength(chunk, rest[0]);
      if (res.statusCode >= 400) count().errors++;
      return end(chunk, ...rest);
    }) as typeof res.end;
  };

  /** A copy of the counts so far. */
  snapshot(): TrafficSnapshot {
    return Object.fromEntries([...this.counts].map(([k, c]) => [k, { ...c }]));
  }

  reset(): void {
    this.counts = new Map();
  }
}

/** What happened between two snapshots (keys with no requests in between are left out). */
export function trafficDelta(after: TrafficSnapshot, before: TrafficSnapshot): TrafficSnapshot {
  const out: TrafficSnapshot = {};
  for (const [key, a] of Object.entries(after)) {
    const b = before[key] ?? zero();
    const d: TrafficCount = {
      requests: a.requests - b.requests,
      requestBytes: a.requestBytes - b.requestBytes,
      responseBytes: a.responseBytes - b.responseBytes,
      errors: a.errors - b.errors,
    };
    if (d.requests > 0 || d.responseBytes > 0 || d.requestBytes > 0) out[key] = d;
  }
  return out;
}

/** The sum over every key. */
export function trafficTotal(snapshot: TrafficSnapshot): TrafficCount {
  const total = zero();
  for (const c of Object.values(snapshot)) {
    total.requests += c.requests;
    total.requestBytes += c.requestBytes;
    total.responseBytes += c.responseBytes;
    total.errors += c.errors;
  }
  return total;
}
