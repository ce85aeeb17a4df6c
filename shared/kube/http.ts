/**
 * Raw JSON requests to the API server over the kubeconfig's own connection settings
 * (`kc.applyToFetchOptions`: its TLS agent and Authorization header), for what the generated
 * clients cannot do: PartialObjectMetadata, subresources of custom kinds, exact content types.
 *
 * client-node 1.x's fetch options are node-fetch's (an `http(s).Agent`, which Node's built-in
 * fetch ignores), so the request goes through node:http(s) with that agent. A non-2xx answer
 * throws client-node's `ApiException` with the response text as body, like its own clients.
 * client-node makes a new Agent (no keep-alive) on every call, so each request opens a new
 * connection, as its generated clients do too.
 */
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { ApiException } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeError, KubeRequestError } from './errors.js';
import { queryString } from './paths.js';
import { retryDelay, type TransientRetry } from './transient.js';
import type { QueryValue } from './paths.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const ContentTypes = {
  json: 'application/json',
  mergePatch: 'application/merge-patch+json',
  jsonPatch: 'application/json-patch+json',
  strategicMergePatch: 'application/strategic-merge-patch+json',
  applyPatch: 'application/apply-patch+yaml',
  partialObjectMetadata: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
  partialObjectMetadataList: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
} as const;

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface KubeHttpRequest {
  method: HttpMethod;
  /** Path below the server URL, e.g. `/api/v1/namespaces/x/configmaps/y`. */
  path: string;
  query?: Readonly<Record<string, QueryValue>>;
  /** Serialized as JSON. */
  body?: unknown;
  contentType?: string;
  /** Default `application/json`. */
  accept?: string;
  /** Socket inactivity limit (not a total deadline; pass `signal` for one); default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface KubeHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The request timed out (transient). */
export class KubeTimeoutError extends KubeError {}

type HeaderBag =
  { forEach(cb: (value: string, key: string) => void): void } | string[][] | Record<string, string>;

function flattenHeaders(bag: HeaderBag | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!bag) return out;
  if (Array.isArray(bag)) {
    for (const [k, v] of bag) if (k !== undefined && v !== undefined) out[k.toLowerCase()] = v;
  } else if (typeof bag.forEach === 'function') {
    (bag as { forEach(cb: (value: string, key: string) => void): void }).forEach(
      (v, k) => (out[k.toLowerCase()] = v),
    );
  } else {
    for (const [k, v] of Object.entries(bag as Record<string, string>)) out[k.toLowerCase()] = v;
  }
  return out;
}

function responseHeaders(res: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function send(
  url: URL,
  options: https.RequestOptions,
  payload: string | undefined,
  timeoutMs: number,
): Promise<KubeHttpResponse> {
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: responseHeaders(res),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.setTimeout(timeoutMs, () =>
      req.destroy(new KubeTimeoutError(`${options.method} ${url.pathname}: timeout`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * How long an idle kept-alive connection stays open: below kube-apiserver's 90 s idle timeout
 * (which the embedded one keeps), so the client, not the server, closes an idle connection and no
 * request is sent on one the server is closing; and above a minute, so a client that writes once
 * a minute (the embedded landscape's activator for the one-minute ticks' Pods) keeps its
 * connection instead of a TLS handshake each time. client-go keeps idle connections 90 s
 * (http.DefaultTransport's IdleConnTimeout, apimachinery pkg/util/net/http.go SetTransportDefaults).
 */
export const IDLE_SOCKET_MS = 80_000;

/**
 * One keep-alive agent per client (opt-in: `KubeClientOptions.keepAlive`), built from the TLS
 * options of the first agent client-node hands out, so the CA is parsed and the handshake done
 * once instead of on every request. The Authorization header still comes from the KubeConfig on
 * every request (tokens may be refreshed).
 * The TLS context (CA, client certificate and key parsed into OpenSSL's) is built once for the
 * agent too: Node builds one per connection unless `secureContext` is given, and a client opens
 * a connection for each request in parallel and again after IDLE_SOCKET_MS. The agent's TLS session
 * cache (Node's default) lets such a new connection resume the session.
 */
export class KeepAliveAgents {
  private agent: http.Agent | undefined;
  private identity = '';

  /**
   * The kept agent for `base` (client-node's agent of this request). A proxy agent (another class
   * than Node's own) is used as given: its connections go through the proxy. When the TLS
   * identity changes (a client certificate an exec plugin renewed), a new agent replaces the kept one.
   */
  agentFor(base: http.Agent | undefined, url: URL): http.Agent | undefined {
    if (base && base.constructor !== http.Agent && base.constructor !== https.Agent) return base;
    const options = { ...((base as { options?: https.AgentOptions } | undefined)?.options ?? {}) };
    const identity = tlsIdentity(options);
    if (this.agent && identity === this.identity) return this.agent;
    // the old agent is only let go: requests in flight on it finish, its idle sockets time out
    const keep = { ...options, keepAlive: true, timeout: IDLE_SOCKET_MS, maxSockets: 64 };
    this.agent =
      url.protocol === 'http:'
        ? new http.Agent(keep)
        : new https.Agent({ ...keep, secureContext: tls.createSecureContext(options) });
    this.identity = identity;
    return this.agent;
  }

  /** Closes the idle connections. */
  destroy(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }
}

/** What the TLS context is built from (CA, client certificate and key), as one comparable string. */
function tlsIdentity(o: https.AgentOptions): string {
  const part = (v: unknown): string => {
    if (v === undefined) return '';
    if (typeof v === 'string') return v;
    if (Buffer.isBuffer(v)) return v.toString('base64');
    if (Array.isArray(v)) return v.map(part).join(',');
    return JSON.stringify(v) ?? '';
  };
  return [o.ca, o.cert, o.key, o.pfx, o.passphrase].map(part).join('|');
}

function requestHeaders(
  bag: HeaderBag | undefined,
  request: KubeHttpRequest,
): { headers: Record<string, string>; payload: string | undefined } {
  const headers = flattenHeaders(bag);
  headers['accept'] = request.accept ?? ContentTypes.json;
  const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
  if (payload !== undefined) {
    headers['content-type'] = request.contentType ?? ContentTypes.json;
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return { headers, payload };
}

/** Sends one request; resolves for 2xx, throws ApiException otherwise, network errors as they come. */
/** `send` again while the transient-retry policy says so (./transient.ts). */
async function sendRetrying(
  attempt: () => Promise<KubeHttpResponse>,
  method: HttpMethod,
  policy: TransientRetry,
): Promise<KubeHttpResponse> {
  const sleep = policy.sleep ?? ((ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms)));
  for (let k = 0; ; k++) {
    let res: KubeHttpResponse;
    try {
      res = await attempt();
    } catch (error) {
      const wait = retryDelay(policy, method, { kind: 'error', error }, k);
      if (wait === undefined) throw error;
      await sleep(wait);
      continue;
    }
    const wait = retryDelay(
      policy,
      method,
      { kind: 'answer', status: res.status, retryAfter: res.headers['retry-after'] },
      k,
    );
    if (wait === undefined) return res;
    await sleep(wait);
  }
}

export async function kubeRequest(
  kc: KubeConfig,
  request: KubeHttpRequest,
  keepAlive?: KeepAliveAgents,
  retry?: TransientRetry,
): Promise<KubeHttpResponse> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeRequestError('kubeconfig has no current cluster');
  const url = new URL(`${cluster.server}${request.path}${queryString(request.query)}`);
  const init = await kc.applyToFetchOptions({});
  const { headers, payload } = requestHeaders(init.headers as HeaderBag | undefined, request);
  const given = (typeof init.agent === 'function' ? init.agent(url) : init.agent) as http.Agent | undefined;
  const agent = keepAlive ? keepAlive.agentFor(given, url) : given;
  const options: https.RequestOptions = { method: request.method, headers, agent, signal: request.signal };
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const res = retry
    ? await sendRetrying(() => send(url, options, payload, timeoutMs), request.method, retry)
    : await send(url, options, payload, timeoutMs);
  if (res.status < 200 || res.status > 299) {
    throw new ApiException<string>(res.status, `${request.method} ${request.path}`, res.body, res.headers);
  }
  return res;
}

/** kubeRequest and JSON.parse of the body (undefined for an empty body). */
export async function kubeRequestJson<T>(
  kc: KubeConfig,
  request: KubeHttpRequest,
  keepAlive?: KeepAliveAgents,
  retry?: TransientRetry,
): Promise<T> {
  const res = await kubeRequest(kc, request, keepAlive, retry);
  return (res.body === '' ? undefined : JSON.parse(res.body)) as T;
}
