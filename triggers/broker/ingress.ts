/**
 * The broker ingress over node:http: `POST /` (the first broker) and `POST /<namespace>/<broker>`
 * (Knative's broker ingress path); senders in the same process (the embedded landscape's sources
 * and brokers) get the same answers without an HTTP request (`RunningIngress.deliveries`). Every event is validated with the CloudEvents SDK: a malformed
 * one gets 400 with the problems (the sender must not retry it); a valid one 202 Accepted once it
 * is queued for fan-out, with Knative's broker TTL (`knativebrokerttl`, ./ttl.ts): 255 for a new
 * event, one less for one that has it (a reply), 400 when that leaves 0. `GET /healthz`; `GET /metrics` when a registry is given.
 *
 * With a `token` (the embedded landscape always gives one) every request but `GET /healthz` must
 * carry `Authorization: Bearer <token>`, else 401 before anything is read or routed; the token
 * is compared in constant time. Without one (the Cloud Functions event service behind Cloud
 * Run's own authentication, or Knative) anyone who reaches the port may post.
 *
 * Test-only: with `faults` whose `refuseIngress` is on, every event POSTed to a broker is answered
 * 503 before its body is read (the sink is down; off unless a test or the drill sets it).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import {
  decodeHttpEvent,
  MalformedEventError,
  plainHeaders,
  abortError,
  requestBodyBytes,
  type FetchLike,
} from '../../shared/events/index.js';
import type { Broker } from './broker.js';
import type { BrokerFaults } from './faults.js';
import type { BrokerMetrics } from './metrics.js';
import { ingressTtl, TTL_USED_UP, withoutTtl } from './ttl.js';

export interface IngressOptions {
  /** The first one also answers `POST /`. */
  brokers: readonly Broker[];
  registry?: Registry;
  metrics?: BrokerMetrics;
  /** Largest accepted body (default 10 MiB): 413 above. */
  maxBodyBytes?: number;
  /** The bearer token every request but `GET /healthz` must carry; undefined or '': none needed. */
  token?: string;
  /** Test-only fault switch: while `refuseIngress` is set, every event is answered 503. */
  faults?: Pick<BrokerFaults, 'refusesIngress'>;
}

/** A fresh random ingress token (48 hex characters, like the API server's). */
export function newIngressToken(): string {
  return randomBytes(24).toString('hex');
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** The digest of the last token asked about: an ingress has one token, asked about per event. */
let tokenDigest: { token: string; digest: Buffer } | undefined;

function digestOfToken(token: string): Buffer {
  if (tokenDigest?.token !== token) tokenDigest = { token, digest: digest(token) };
  return tokenDigest.digest;
}

/** Whether the request carries `Authorization: Bearer <token>` (constant time in the token). */
export function hasBearerToken(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  // both sides hashed: equal lengths for timingSafeEqual, and no early exit on the length
  return timingSafeEqual(digest(m?.[1] ?? ''), digestOfToken(token)) && m !== null;
}

const UNAUTHORIZED =
  'unauthorized: the broker ingress requires "Authorization: Bearer <token>" ' +
  '(the ingressToken of <stateDir>/broker.json; functions get it as K_SINK_TOKEN)';

class TooLarge extends Error {}

/** One request to the ingress, whatever carried it (node:http, or a sender in this process). */
interface IngressRequest {
  method: string;
  path: string;
  /** Lowercase names. */
  headers: Record<string, string | string[] | undefined>;
  /** The body; rejects with TooLarge above `max` bytes. */
  body(max: number): Promise<Buffer>;
  /** The body is not wanted (answered before it was read). */
  discard(): void;
}

/** What the ingress answers: a status, headers, and a text body (none when empty). */
interface IngressAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

function answer(status: number, text = '', headers: Record<string, string> = {}): IngressAnswer {
  return {
    status,
    headers: text ? { 'content-type': 'text/plain; charset=utf-8', ...headers } : headers,
    text: text ? `${text}\n` : '',
  };
}

function findBroker(brokers: readonly Broker[], path: string): Broker | undefined {
  if (path === '/' || path === '') return brokers[0];
  const parts = path.split('/').filter((p) => p !== '');
  if (parts.length !== 2) return undefined;
  return brokers.find((b) => b.namespace === parts[0] && b.name === parts[1]);
}

async function accept(options: IngressOptions, broker: Broker, req: IngressRequest): Promise<IngressAnswer> {
  if (options.faults?.refusesIngress()) {
    req.discard();
    return answer(503, 'the broker ingress is refusing events (test fault: refuseIngress)');
  }
  let body: Buffer;
  try {
    body = await req.body(options.maxBodyBytes ?? 10 * 1024 * 1024);
  } catch (err) {
    return err instanceof TooLarge ? answer(413, 'event too large') : answer(400, 'unreadable body');
  }
  return publishDecoded(options, broker, req.headers, body);
}

/** Decodes the event and publishes it with its TTL (Knative's TTLDefaulter, then its check: ./ttl.ts). */
function publishDecoded(
  options: IngressOptions,
  broker: Broker,
  headers: IngressRequest['headers'],
  body: Buffer,
): IngressAnswer {
  let ttl: number;
  try {
    // the body passes through as it came (Knative's broker: shared/events `rawData`)
    const event = decodeHttpEvent({ headers, body }, { rawData: true });
    ttl = ingressTtl(event);
    if (ttl > 0) {
      broker.publish(withoutTtl(event), ttl);
      return answer(202);
    }
  } catch (err) {
    if (!(err instanceof MalformedEventError)) throw err;
    options.metrics?.rejected.inc({ broker: broker.key });
    return answer(400, err.message);
  }
  options.metrics?.rejected.inc({ broker: broker.key });
  return answer(400, TTL_USED_UP);
}

/** Whether the request may go on: always without a token, else only with the bearer token. */
function authorized(options: IngressOptions, req: IngressRequest): boolean {
  const value = req.headers.authorization;
  return !options.token || hasBearerToken(Array.isArray(value) ? value.join(', ') : value, options.token);
}

/** The ingress's answer to one request (metrics, health, an event for a broker). */
async function handle(options: IngressOptions, req: IngressRequest): Promise<IngressAnswer> {
  if (req.method === 'GET' && req.path === '/healthz') return answer(200, 'ok');
  if (!authorized(options, req)) {
    req.discard();
    return answer(401, UNAUTHORIZED, { 'www-authenticate': 'Bearer realm="broker-ingress"' });
  }
  if (req.method === 'GET' && req.path === '/metrics' && options.registry) {
    const text = await options.registry.metrics();
    return { status: 200, headers: { 'content-type': options.registry.contentType }, text };
  }
  const broker = findBroker(options.brokers, req.path);
  if (broker === undefined) return answer(404, `no broker at ${req.path}`);
  if (req.method !== 'POST') return answer(405, 'only POST is accepted', { allow: 'POST' });
  return accept(options, broker, req);
}

function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) reject(new TooLarge());
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function write(res: ServerResponse, a: IngressAnswer): void {
  res.writeHead(a.status, a.headers);
  res.end(a.text || undefined);
}

/** The request handler, for `http.createServer` or tests. */
export function ingressHandler(options: IngressOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const request: IngressRequest = {
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://ingress').pathname,
      headers: req.headers,
      body: (max) => readBody(req, max),
      discard: () => req.resume(),
    };
    handle(options, request).then(
      (a) => write(res, a),
      (err: unknown) => {
        if (!res.headersSent) write(res, answer(500, String(err)));
        else res.destroy();
      },
    );
  };
}

/**
 * A fetch for senders in this process (the sources, the brokers' Broker subscribers): requests for
 * `url`'s origin are answered by `handle` without a loopback HTTP request (same answers: 202, 400,
 * 401, 404, 405, 413, 503), anything else goes to `fallback`. An already aborted signal rejects as
 * Node's HTTP client does; an accepted event is queued at once, so nothing is left to abort later.
 * Once the ingress is closed a request rejects as a refused connection would (ECONNREFUSED).
 */
function inProcessFetch(
  options: IngressOptions,
  url: string,
  fallback: FetchLike,
  closed: () => boolean,
): FetchLike {
  const origin = originOf(url);
  return async (target, init) => {
    const to = urlOf(target);
    if (origin === undefined || to?.origin !== origin) return fallback(target, init);
    if (init.signal?.aborted) throw abortError(init.signal);
    // a closed ingress takes nothing, as its closed port refuses a connection
    if (closed())
      throw Object.assign(new Error(`connect ECONNREFUSED ${new URL(url).host}`), { code: 'ECONNREFUSED' });
    const headers = plainHeaders(init.headers);
    const a = await handle(options, {
      method: (init.method ?? 'GET').toUpperCase(),
      path: to.pathname,
      headers,
      body: (max) => {
        const bytes = requestBodyBytes(init.body, 'the ingress');
        return bytes.length > max ? Promise.reject(new TooLarge()) : Promise.resolve(bytes);
      },
      discard: () => undefined,
    });
    return {
      status: a.status,
      headers: {
        forEach: (callback): void => {
          for (const [k, v] of Object.entries(a.headers)) callback(v, k);
        },
      },
      text: () => Promise.resolve(a.text),
    };
  };
}

export interface RunningIngress {
  url: string;
  /** The bearer token it requires (undefined: none). */
  token?: string;
  server: Server;
  /**
   * A fetch whose requests for this ingress are answered in this process, without a loopback
   * HTTP request (the embedded landscape's sources and brokers); anything else goes to `fallback`.
   */
  deliveries(fallback: FetchLike): FetchLike;
  close(): Promise<void>;
}

/** The ingress's socket, listening before the brokers exist: its URL is known to whoever builds them. */
export interface IngressListener {
  readonly url: string;
  readonly server: Server;
  /** Routes to the brokers from now on (until then every request is answered 503). */
  serve(options: IngressOptions): RunningIngress;
  close(): Promise<void>;
}

/**
 * Listens on `host:port` (port 0: a free one) and resolves with the base URL; nothing is routed
 * until `serve`. Knative's broker ingress has its address (a Service) before any Broker is ready,
 * so the brokers, the sources and the functions can be given it when they are made.
 */
export async function listenIngress(
  options: { host?: string; port?: number } = {},
): Promise<IngressListener> {
  let handler = (req: IncomingMessage, res: ServerResponse): void => {
    req.resume();
    write(res, answer(503, 'the broker ingress is starting'));
  };
  const server = createServer((req, res) => handler(req, res));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((err) => (err ? reject(err) : resolve()));
    }));
  return {
    url,
    server,
    close,
    serve: (serving) => {
      handler = ingressHandler(serving);
      return {
        url,
        ...(serving.token ? { token: serving.token } : {}),
        server,
        deliveries: (fallback) => inProcessFetch(serving, url, fallback, () => closed !== undefined),
        close,
      };
    },
  };
}

/** Listens on `host:port` (port 0: a free one) and resolves with the base URL. */
export async function startIngress(
  options: IngressOptions & { host?: string; port?: number },
): Promise<RunningIngress> {
  return (await listenIngress(options)).serve(options);
}

type AnyFetch = (url: string, init: RequestInit) => Promise<unknown>;

/** A parsed URL, or undefined for no URL. */
function urlOf(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function originOf(url: string): string | undefined {
  return urlOf(url)?.origin;
}

/** Whether `url` has the origin `baseOrigin` (of the ingress: worked out once, not per event). */
function sameOrigin(url: string, baseOrigin: string | undefined): boolean {
  return baseOrigin !== undefined && originOf(url) === baseOrigin;
}

/**
 * Adds `Authorization: Bearer <token>` to requests for the ingress at `ingressUrl` (same
 * origin) and to nothing else: a function or a sink elsewhere never sees the ingress token.
 */
export function withIngressAuth<F extends AnyFetch>(
  fetchImpl: F,
  token: string | undefined,
  ingressUrl: string,
): F {
  if (!token) return fetchImpl;
  const origin = originOf(ingressUrl);
  const wrapped = (url: string, init: RequestInit): Promise<unknown> => {
    if (!sameOrigin(url, origin)) return fetchImpl(url, init);
    const headers = { ...plainHeaders(init.headers), authorization: `Bearer ${token}` };
    return fetchImpl(url, { ...init, headers });
  };
  return wrapped as F;
}
