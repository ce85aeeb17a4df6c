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
 * How long a keep-alive client uses the request options it got from the kubeconfig before it asks
 * again: client-node builds them anew on every call (the CA and client key decoded or read from
 * their files, an Agent, node-fetch Headers; ~5 % of a deployer replica's CPU per API request in
 * the deployers bench, 2026-11-28). client-go reads a token file at most once a minute
 * (transport's cachingTokenSource) and client-node's FileAuth as often; a file the kubelet rotates
 * stays valid long after. A 401 answer drops the kept options at once.
 */
export const PREPARED_TTL_MS = 10_000;

/** The request options of the kubeconfig for one URL: its headers (lower-case names) and agent. */
export interface RequestOptions {
  headers: Record<string, string>;
  agent: http.Agent | undefined;
}

interface Prepared extends RequestOptions {
  kc: KubeConfig;
  context: string;
  protocol: string;
  /** When `fetchOptions` was asked (KeepAliveAgents' clock). */
  at: number;
}

/** client-node's fetch options for `url`, as plain headers and the agent it made for this request. */
export async function fetchOptions(kc: KubeConfig, url: URL): Promise<RequestOptions> {
  const init = await kc.applyToFetchOptions({});
  const given = (typeof init.agent === 'function' ? init.agent(url) : init.agent) as http.Agent | undefined;
  return { headers: flattenHeaders(init.headers as HeaderBag | undefined), agent: given };
}

/**
 * Whether the current user's credentials may be kept for PREPARED_TTL_MS: not with an exec plugin
 * or an auth provider that renews tokens when they expire (client-node asks them on every call);
 * a static token or certificate, or the in-cluster token file (`tokenFile`), may.
 */
export function credentialsKeepable(kc: KubeConfig): boolean {
  const user = kc.getCurrentUser();
  if (!user) return true;
  if (user.exec) return false;
  const provider = user.authProvider as { name?: string } | undefined;
  return provider === undefined || provider.name === 'tokenFile';
}

/**
 * One keep-alive agent per client (opt-in: `KubeClientOptions.keepAlive`), built from the TLS
 * options of the first agent client-node hands out, so the CA is parsed and the handshake done
 * once instead of on every request. The Authorization header comes from the KubeConfig at most
 * PREPARED_TTL_MS before the request (`prepare`), on every request where client-node renews the
 * credentials itself (an exec plugin, an auth provider), and again after a 401 answer.
 * The TLS context (CA, client certificate and key parsed into OpenSSL's) is built once for the
 * agent too: Node builds one per connection unless `secureContext` is given, and a client opens
 * a connection for each request in parallel and again after IDLE_SOCKET_MS. The agent's TLS session
 * cache (Node's default) lets such a new connection resume the session.
 */
export class KeepAliveAgents {
  private agent: http.Agent | undefined;
  private identity = '';
  /** client-node's agent the kept one was last chosen for: the same object needs no new look. */
  private chosenFor: http.Agent | undefined;
  private prepared: Prepared | undefined;

  /** `now`: a monotonic clock in ms (tests). */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * The kubeconfig's request options for `url` (its Authorization and other headers, the kept
   * agent), from `kc.applyToFetchOptions` at most once per PREPARED_TTL_MS for a user whose
   * credentials client-node does not renew on its own schedule (see `credentialsKeepable`);
   * `forget` drops them (a 401 answer).
   */
  async prepare(kc: KubeConfig, url: URL): Promise<Prepared> {
    const context = kc.getCurrentContext();
    const p = this.prepared;
    if (
      p &&
      p.kc === kc &&
      p.context === context &&
      p.protocol === url.protocol &&
      this.now() - p.at < PREPARED_TTL_MS
    )
      return p;
    const at = this.now();
    const fresh = await fetchOptions(kc, url);
    const next: Prepared = {
      ...fresh,
      agent: this.agentFor(fresh.agent, url),
      kc,
      context,
      protocol: url.protocol,
      at,
    };
    this.prepared = credentialsKeepable(kc) ? next : undefined;
    return next;
  }

  /** Drops the kept request options: the next request asks the kubeconfig again. */
  forget(): void {
    this.prepared = undefined;
  }

  /**
   * The kept agent for `base` (client-node's agent of this request). A proxy agent (another class
   * than Node's own) is used as given: its connections go through the proxy. When the TLS
   * identity changes (a client certificate an exec plugin renewed), a new agent replaces the kept one.
   */
  agentFor(base: http.Agent | undefined, url: URL): http.Agent | undefined {
    if (isProxyAgent(base)) return base;
    if (base !== undefined && base === this.chosenFor && this.agent) return this.agent;
    this.chosenFor = base;
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
    this.chosenFor = undefined;
    this.prepared = undefined;
  }
}

/** An agent of another class than Node's own (a proxy's): its connections go through the proxy. */
function isProxyAgent(base: http.Agent | undefined): base is http.Agent {
  return base !== undefined && base.constructor !== http.Agent && base.constructor !== https.Agent;
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
  base: Record<string, string>,
  request: KubeHttpRequest,
): { headers: Record<string, string>; payload: string | undefined } {
  const headers = { ...base };
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
  const prepared = keepAlive ? await keepAlive.prepare(kc, url) : await fetchOptions(kc, url);
  const { headers, payload } = requestHeaders(prepared.headers, request);
  const agent = prepared.agent;
  const options: https.RequestOptions = { method: request.method, headers, agent, signal: request.signal };
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const res = retry
    ? await sendRetrying(() => send(url, options, payload, timeoutMs), request.method, retry)
    : await send(url, options, payload, timeoutMs);
  if (res.status === 401) keepAlive?.forget();
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
