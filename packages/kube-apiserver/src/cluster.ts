/**
 * One embedded cluster: registry, store, controllers and an HTTP server on its own loopback
 * port with its own bearer token. A cluster can be stopped (its port refuses connections, its
 * objects stay) and started again on the same port, for outage tests.
 */
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { builtinResources } from './registry/builtins/index.js';
import { startControllers } from './controllers/controllers.js';
import { GarbageCollector } from './controllers/gc.js';
import { startWorkloadSimulation, type WorkloadSimulation } from './controllers/workloads.js';
import { startNamespaceObjects } from './controllers/namespace-objects.js';
import { startServiceEndpoints } from './controllers/service-endpoints.js';
import { startKubernetesService, type KubernetesService } from './controllers/kubernetes-service.js';
import { OpenApiCache } from './endpoints/openapi.js';
import { Operations } from './registry/operations.js';
import { Registry, resourceKey } from './registry/kinds.js';
import { requestHandler } from './endpoints/server.js';
import { Store } from './storage/store.js';
import { TrafficCounter } from './testing/traffic.js';
import { FaultInjector } from './testing/faults.js';
import { outsideRequests, type AuditLog } from './audit/audit.js';
import type { RequestAuditLog } from './audit/request-audit.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
  exportTokenKey,
  importTokenKey,
  newTokenKey,
  type TokenKey,
} from './auth/rbac/index.js';
import { deepEqual } from './api/objects.js';
import type { KubeObject, ResourceDef } from './api/types.js';
import type { Pki } from './auth/pki.js';
import type { Persistence } from './storage/persist/index.js';
import { RequestMetrics } from './endpoints/metrics.js';

/**
 * How long an idle connection stays open: kube-apiserver's `IdleTimeout` (90 s, "matches
 * http.DefaultTransport keep-alive timeout"; staging/src/k8s.io/apiserver/pkg/server/secure_serving.go).
 */
export const IDLE_TIMEOUT_MS = 90_000;

export interface ClusterOptions {
  name: string;
  /** 0 (the default) picks a free port on first start; restarts reuse it. */
  port?: number;
  host?: string;
  token?: string;
  /** CRDs to create at start (objects of kind CustomResourceDefinition). */
  crds?: KubeObject[];
  /** Events kept for watch resumption; older resourceVersions get 410 Expired. */
  historySize?: number;
  /** Deployment/StatefulSet status follows spec after a delay, as kwok does (off when absent). */
  workloads?: WorkloadSimulation;
  /** Enforce RBAC (Roles, ClusterRoles, bindings; ServiceAccount tokens); off by default. */
  rbac?: boolean;
  /** Serving certificate and CA (kubectl sends tokens only over TLS). */
  pki: Pki;
  /** The cluster's opened data directory: the store is restored from it, every write is logged, shutdown closes it. */
  persistence?: Persistence;
  /** Count requests and body bytes by verb and resource (`cluster.traffic`); off by default. */
  countTraffic?: boolean;
  /** Records every change of the store here (the ApiServer owns it: it outlives a restart). */
  audit?: AuditLog;
  /** Appends an audit.k8s.io/v1 Event per request here (the ApiServer owns it). */
  requestAudit?: RequestAuditLog;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

const TOKEN_KEY_FILE = 'serviceaccount.key';

/** The token signing key: the one kept in the cluster's data directory, or a new one (kept there). */
function loadTokenKey(dir: string | undefined): TokenKey {
  if (!dir) return newTokenKey();
  const file = join(dir, TOKEN_KEY_FILE);
  if (existsSync(file)) return importTokenKey(readFileSync(file, 'utf8'));
  const key = newTokenKey();
  writeFileSync(file, exportTokenKey(key), { mode: 0o600 });
  return key;
}

function trafficCounter(opts: ClusterOptions): TrafficCounter | undefined {
  return opts.countTraffic ? new TrafficCounter() : undefined;
}

/** Records the store's changes in the cluster's audit log (when it has one); returns the detach. */
function attachAudit(opts: ClusterOptions, store: Store): () => void {
  return opts.audit ? opts.audit.attach(store, opts.name) : (): void => undefined;
}

export class Cluster {
  readonly name: string;
  readonly token: string;
  /** Signs the cluster's ServiceAccount tokens (kept in the data directory when there is one). */
  readonly tokenKey: TokenKey;
  readonly rbac: boolean;
  readonly host: string;
  readonly registry: Registry;
  readonly store: Store;
  readonly ops: Operations;
  /** Requests and bytes served, when the cluster was made with `countTraffic`. */
  readonly traffic?: TrafficCounter;
  /** Test-only fault injection on the cluster's resource requests; off until `faults.set(spec)`. */
  readonly faults = new FaultInjector();
  /** The audit log the cluster records its changes in, when it was made with one. */
  readonly audit?: AuditLog;
  private readonly requestAudit?: RequestAuditLog;
  private currentPort: number;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly stopControllers: () => void;
  /** The `default/kubernetes` Service and its endpoints, written once the port is known. */
  private kubernetesService?: KubernetesService;
  private readonly pki: Pki;
  private readonly persistence?: Persistence;
  private readonly stopAudit: () => void;

  constructor(opts: ClusterOptions) {
    this.name = opts.name;
    this.host = opts.host ?? '127.0.0.1';
    this.currentPort = opts.port ?? 0;
    this.token = opts.token ?? randomBytes(24).toString('hex');
    this.pki = opts.pki;
    this.rbac = opts.rbac ?? false;
    this.tokenKey = loadTokenKey(opts.persistence?.clusterDir);
    this.registry = new Registry(builtinResources());
    this.store = new Store({ historySize: opts.historySize });
    // before the controllers start: their initial pass serves the restored CRDs again
    if (opts.persistence?.state) this.store.restore(opts.persistence.state);
    this.ops = new Operations(this.store);
    this.traffic = trafficCounter(opts);
    const byResource = (resource: string): ReturnType<Registry['all']>[number] | undefined =>
      this.registry.all().find((d) => resourceKey(d) === resource);
    this.stopControllers = this.startControllers(byResource, opts.workloads);
    // after the controllers (which write nothing for restored objects), before bootstrap (logged too)
    opts.persistence?.attach(this.store);
    this.persistence = opts.persistence;
    this.audit = opts.audit;
    this.requestAudit = opts.requestAudit;
    this.stopAudit = attachAudit(opts, this.store);
    this.bootstrap(opts.crds ?? []);
  }

  /**
   * The in-process controllers (CRDs, namespaces, GC, each namespace's ServiceAccount and CA
   * ConfigMap, Endpoints and EndpointSlices, `default/kubernetes`, workload simulation); returns their stop.
   */
  private startControllers(
    defOf: (resource: string) => ResourceDef | undefined,
    workloads?: WorkloadSimulation,
  ): () => void {
    // what the controllers do is theirs, not that of the request whose write set them off
    const deps = { store: outsideRequests(this.store), ops: this.ops, defOf };
    const kubernetesService = startKubernetesService(deps);
    this.kubernetesService = kubernetesService;
    const stops = [
      startControllers({ ...deps, registry: this.registry }),
      new GarbageCollector(deps).start(),
      startNamespaceObjects(deps, this.pki.caCert),
      startServiceEndpoints(deps),
      (): void => kubernetesService.stop(),
      workloads ? startWorkloadSimulation(deps, workloads) : (): void => undefined,
    ];
    return () => stops.forEach((stop) => stop());
  }

  /**
   * The default namespaces and the product CRDs: created when missing; a restored CRD whose
   * spec differs from the product's (an upgrade) is updated, as an operator re-applying its CRDs.
   */
  private bootstrap(crds: KubeObject[]): void {
    const write = { fieldValidation: 'Strict' as const, dryRun: false };
    const nsDef = this.registry.lookup('', 'v1', 'namespaces')!;
    const stored = (def: ResourceDef, name: string): KubeObject | undefined =>
      this.store.get(resourceKey(def), undefined, name);
    for (const obj of [...bootstrapClusterRoles(), ...bootstrapClusterRoleBindings()]) {
      const def = this.registry.forKind(obj.apiVersion, obj.kind)!;
      if (!stored(def, obj.metadata.name!)) this.ops.create({ def }, obj, write);
    }
    for (const name of DEFAULT_NAMESPACES) {
      if (!stored(nsDef, name))
        this.ops.create({ def: nsDef }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, write);
    }
    const crdDef = this.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    for (const crd of crds) {
      const current = stored(crdDef, crd.metadata.name!);
      if (!current) this.ops.create({ def: crdDef }, crd, write);
      else if (!deepEqual(current.spec, crd.spec)) {
        this.ops.update({ def: crdDef, name: crd.metadata.name }, { ...current, spec: crd.spec }, write);
      }
    }
  }

  get url(): string {
    return `https://${this.host}:${this.currentPort}`;
  }

  /** The port (0 until the first start when none was asked for). */
  get port(): number {
    return this.currentPort;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer(
      { keepAliveTimeout: IDLE_TIMEOUT_MS, cert: this.pki.cert, key: this.pki.key },
      requestHandler({
        token: this.token,
        tokenKey: this.tokenKey,
        rbac: this.rbac,
        registry: this.registry,
        store: this.store,
        ops: this.ops,
        openapi: new OpenApiCache(this.registry),
        serverAddress: () => `${this.host}:${this.currentPort}`,
        faults: this.faults,
        metrics: new RequestMetrics(),
      }),
    );
    // before the server's own listener, so that every byte it answers is seen
    if (this.traffic) server.prependListener('request', this.traffic.listener);
    if (this.requestAudit) server.prependListener('request', this.requestAudit.listener(this.name));
    // every TCP connection, also one still in its TLS handshake (stop() ends them all at once)
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.currentPort, this.host, () => resolve());
    });
    const address = server.address();
    if (address && typeof address === 'object') this.currentPort = address.port;
    this.server = server;
    this.kubernetesService?.sync(this.host, this.currentPort);
  }

  /** Closes the port and every open connection (watches end); objects are kept. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    server.closeAllConnections();
    await closed;
  }

  /** Stops the server for good, controllers included. */
  async shutdown(): Promise<void> {
    await this.stop();
    this.stopControllers();
    this.stopAudit();
    await this.persistence?.close();
  }

  kubeconfigYaml(): string {
    return stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: this.name,
          cluster: {
            server: this.url,
            'certificate-authority-data': Buffer.from(this.pki.caCert).toString('base64'),
          },
        },
      ],
      users: [{ name: `${this.name}-admin`, user: { token: this.token } }],
      contexts: [
        {
          name: this.name,
          context: { cluster: this.name, user: `${this.name}-admin`, namespace: 'default' },
        },
      ],
      'current-context': this.name,
      preferences: {},
    });
  }
}
