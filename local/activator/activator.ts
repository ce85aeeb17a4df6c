/**
 * The embedded landscape's activator: one FunctionPool per Knative Service, reached over HTTP at
 * `/<namespace>/<service>` (what the broker's Service refs resolve to), `/status` (JSON),
 * `/metrics` (prom-client) and `/healthz`. Scale-to-zero, cold starts and redelivery live in the
 * pools; this file is the front door and the metrics.
 *
 * The embedded brokers, in this same process, hand their deliveries to a pool without the loopback
 * HTTP request (`deliveries()`): the same pool, queue, timeout and answer as through `serve`, only
 * without an HTTP client and server in one process talking to each other (each delivery had cost
 * the landscape process an HTTP request sent, parsed, answered and read again). On Knative the
 * broker's filter and the activator / queue-proxy are different pods; what a delivery sees —
 * status, headers, body, timeout — is the same either way.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import {
  abortError,
  httpFetch,
  plainHeaders,
  requestBodyBytes,
  type FetchAnswer,
  type FetchLike,
} from '../../shared/events/index.js';
import { ReplicaChaos } from './chaos.js';
import { FunctionPool, type PodHooks, type PoolDeps, type PoolStatus } from './pool.js';
import type { ScaleLimits } from './scale.js';
import type { FunctionService } from './services.js';

export interface ActivatorOverrides {
  /** Replaces every Service's max-scale (tests). */
  maxScale?: number;
  /** Replaces every Service's idle window (tests). */
  idleMs?: number;
}

export interface ActivatorOptions {
  services: readonly FunctionService[];
  /** The `server.js` of each function. */
  entries: ReadonlyMap<string, string>;
  envFor: PoolDeps['envFor'];
  onLine: PoolDeps['onLine'];
  pods?: PodHooks;
  overrides?: ActivatorOverrides;
  registry?: Registry;
  log: PoolDeps['log'];
  host?: string;
  port?: number;
  nodeArgs?: readonly string[];
  /** Replicas per function when its max-scale is 0 (no limit); default 10. */
  localCap?: number;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'host',
  'content-length',
  'upgrade',
]);

function metrics(registry: Registry | undefined): PoolDeps['events'] {
  if (!registry) return undefined;
  const registers = [registry];
  const replicas = new Gauge({
    name: 'landscape_activator_replicas',
    help: 'Replicas per function',
    labelNames: ['function'],
    registers,
  });
  const coldStarts = new Histogram({
    name: 'landscape_activator_cold_start_seconds',
    help: 'Spawn to listening, per replica',
    labelNames: ['function'],
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10],
    registers,
  });
  const answered = new Counter({
    name: 'landscape_activator_requests_total',
    help: 'Requests answered, by status code',
    labelNames: ['function', 'code'],
    registers,
  });
  const redelivered = new Counter({
    name: 'landscape_activator_redeliveries_total',
    help: 'Requests delivered again after their replica died',
    labelNames: ['function'],
    registers,
  });
  return {
    replicas: (s, n) => replicas.set({ function: s.name }, n),
    coldStart: (s, ms) => coldStarts.observe({ function: s.name }, ms / 1000),
    answered: (s, code) => answered.inc({ function: s.name, code: String(code) }),
    redelivered: (s) => redelivered.inc({ function: s.name }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function forwardHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function withoutHopByHop(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !HOP_BY_HOP.has(k)));
}

function localAnswer(status: number, headers: Record<string, string>, body: string): FetchAnswer {
  return {
    status,
    headers: {
      forEach: (callback): void => {
        for (const [k, v] of Object.entries(headers)) callback(v, k);
      },
    },
    text: () => Promise.resolve(body),
  };
}

/** `p`, or a rejection as Node's HTTP client gives when `signal` aborts first (the request goes on). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export class Activator {
  private readonly pools = new Map<string, FunctionPool>();
  private server: Server | undefined;
  url = '';
  /** Test-only: kills replicas at random moments while switched on (`npm run drill`). */
  readonly chaos: ReplicaChaos = new ReplicaChaos(this);

  constructor(private readonly o: ActivatorOptions) {
    const events = metrics(o.registry);
    for (const service of o.services) {
      const entry = o.entries.get(service.name);
      if (entry === undefined)
        throw new Error(`Service ${service.namespace}/${service.name}: no function bundle`);
      this.pools.set(
        `${service.namespace}/${service.name}`,
        new FunctionPool(service, {
          entry,
          envFor: o.envFor,
          onLine: o.onLine,
          ...(o.pods ? { pods: o.pods } : {}),
          ...(events ? { events } : {}),
          limits: this.limitsOf(service),
          ...(o.nodeArgs ? { nodeArgs: o.nodeArgs } : {}),
          log: o.log,
        }),
      );
    }
  }

  private limitsOf(s: FunctionService): ScaleLimits {
    return {
      containerConcurrency: s.containerConcurrency,
      maxScale: this.o.overrides?.maxScale ?? s.maxScale,
      minScale: s.minScale,
      target: s.target,
      idleMs: this.o.overrides?.idleMs ?? s.windowMs,
      localCap: this.o.localCap ?? 10,
    };
  }

  /** The URL a Service ref resolves to. */
  urlFor(namespace: string, name: string): string | undefined {
    return this.pools.has(`${namespace}/${name}`) ? `${this.url}/${namespace}/${name}` : undefined;
  }

  pool(namespace: string, name: string): FunctionPool | undefined {
    return this.pools.get(`${namespace}/${name}`);
  }

  /** SIGKILLs one replica of a function (its requests are delivered again); false when none. */
  killReplica(namespace: string, name: string, pod: string): boolean {
    return (
      this.pools.get(`${namespace}/${name}`)?.killReplica(pod, 'replica chaos: killing a replica') ?? false
    );
  }

  /** A replica's Pod was deleted by someone: kill that replica. */
  podDeleted(namespace: string, podName: string): void {
    for (const pool of this.pools.values())
      if (pool.service.namespace === namespace) pool.podDeleted(podName);
  }

  status(): PoolStatus[] {
    return [...this.pools.values()].map((p) => p.status());
  }

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      this.serve(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(err));
        else res.destroy();
      });
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.o.port ?? 0, this.o.host ?? '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.url = `http://${this.o.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
    for (const p of this.pools.values()) p.reconcile();
    return this.url;
  }

  /** `/healthz`, `/status`, `/metrics`; false when the request is for a function. */
  private async serveAdmin(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    if (req.method !== 'GET') return false;
    if (path === '/healthz') res.writeHead(200).end('ok\n');
    else if (path === '/status')
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.status()));
    else if (path === '/metrics' && this.o.registry)
      res
        .writeHead(200, { 'content-type': this.o.registry.contentType })
        .end(await this.o.registry.metrics());
    else return false;
    return true;
  }

  /** The pool a URL names (`/<namespace>/<service>/...`) and the path below the Service. */
  private route(url: URL): { pool: FunctionPool; path: string } | undefined {
    const [namespace = '', name = '', ...rest] = url.pathname.split('/').filter((p) => p !== '');
    const pool = this.pools.get(`${namespace}/${name}`);
    return pool ? { pool, path: `/${rest.join('/')}${url.search}` } : undefined;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://activator');
    if (await this.serveAdmin(req, res, url.pathname)) return;
    const to = this.route(url);
    if (!to) return void res.writeHead(404).end(`no function at ${url.pathname}\n`);
    const { pool } = to;
    const answer = await pool.handle({
      method: req.method ?? 'POST',
      path: to.path,
      headers: forwardHeaders(req),
      body: await readBody(req),
      timeoutMs: pool.service.timeoutSeconds * 1000,
    });
    res.writeHead(answer.status, withoutHopByHop(answer.headers)).end(answer.body);
  }

  /**
   * A fetch for the embedded brokers: a request for one of this activator's functions goes straight
   * to its pool (as `serve` hands it on: the path below the Service, the headers without
   * hop-by-hop ones, the Service's timeout; the answer's headers without hop-by-hop ones), an
   * aborted signal rejects as a network error does; any other URL goes to `fallback`.
   */
  deliveries(fallback: FetchLike = httpFetch): FetchLike {
    return (url, init) => {
      const prefix = `${this.url}/`;
      if (this.url === '' || !url.startsWith(prefix)) return fallback(url, init);
      return this.deliver(new URL(url), init);
    };
  }

  private async deliver(url: URL, init: RequestInit): Promise<FetchAnswer> {
    const to = this.route(url);
    if (!to) return localAnswer(404, {}, `no function at ${url.pathname}\n`);
    const { pool } = to;
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const answer = pool.handle({
      method: init.method ?? 'GET',
      path: to.path,
      headers: withoutHopByHop(plainHeaders(init.headers)),
      body: requestBodyBytes(init.body, 'the activator'),
      timeoutMs: pool.service.timeoutSeconds * 1000,
    });
    const a = await (signal ? abortable(answer, signal) : answer);
    return localAnswer(a.status, withoutHopByHop(a.headers), a.body.toString('utf8'));
  }

  /** No new replicas or requests (see FunctionPool.quiesce); stop() follows. */
  quiesce(): void {
    for (const p of this.pools.values()) p.quiesce();
  }

  async stop(): Promise<void> {
    this.chaos.set(undefined);
    await Promise.all([...this.pools.values()].map((p) => p.stop()));
    const server = this.server;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
}
