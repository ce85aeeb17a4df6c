/**
 * The embedded Kubernetes API server: several clusters in one process, each on its own
 * loopback port with its own token. The main cluster serves the product's CRDs.
 */
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { Cluster, type ClusterOptions } from './cluster.js';
import type { KubeObject } from './api/types.js';
import type { WorkloadSimulation } from './controllers/workloads.js';
import { createPki, loadOrCreatePki, type Pki } from './auth/pki.js';
import { openPersistence } from './storage/persist/index.js';
import { AuditLog } from './audit/audit.js';
import { RequestAuditLog } from './audit/request-audit.js';

export { Cluster, type ClusterOptions } from './cluster.js';
export type { Pki } from './auth/pki.js';
export type { WorkloadSimulation } from './controllers/workloads.js';
export { AuditLog, type AuditRecord, type AuditOptions } from './audit/audit.js';
export type { RequestAuditEvent } from './audit/request-audit.js';
export type { JSONSchemaProps, KubeObject, ResourceDef } from './api/types.js';
export type { Scope, WriteOptions } from './registry/operations.js';
export { builtinResources } from './registry/builtins/index.js';
export { addKubernetesVocabulary } from './registry/validation.js';

export type ClusterSpec = Omit<ClusterOptions, 'crds' | 'pki' | 'audit' | 'requestAudit'> & {
  productCrds?: boolean;
};

export interface ApiServerOptions {
  /** Cluster names or options; the first is the main cluster. Default: `['main']`. */
  clusters?: (string | ClusterSpec)[];
  /** CRD YAML files registered in the main cluster (and in any cluster that sets productCrds). Default: none. */
  crdFiles?: string[];
  host?: string;
  historySize?: number;
  /** Workload simulation for every cluster that does not set its own. */
  workloads?: WorkloadSimulation;
  /** Where the CA and serving certificate are kept; without it a new PKI is made. */
  pkiDir?: string;
  /** Keeps every cluster's objects in `<dataDir>/<cluster>/` across restarts (none: in memory only). */
  dataDir?: string;
  /** Keep an audit log of every change of each cluster (`api.audit(name)`); optionally of some resources only. Off by default. */
  audit?: boolean | { resources?: readonly string[] };
  /** Append an audit.k8s.io/v1 Event (level Metadata) per request of every cluster to this file (JSON lines); off by default. */
  auditLogPath?: string;
}

export interface ApiServer {
  cluster(name?: string): Cluster;
  clusters(): Cluster[];
  /** Adds and starts another cluster at run time (e.g. a shoot). */
  addCluster(opts: ClusterSpec): Promise<Cluster>;
  /**
   * Restarts one cluster as a process restart would: shut down (port closed, connections and
   * watches cut, controllers stopped, data flushed), then built again from the data directory on
   * the same port with the same token and PKI, and started. Rejects without `dataDir`.
   */
  restartCluster(name: string): Promise<Cluster>;
  /** The audit log of a cluster (default: the main one); undefined when auditing is off. */
  audit(name?: string): AuditLog | undefined;
  stop(): Promise<void>;
}

export async function loadCrds(files: string[]): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(file, 'utf8'))) {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
      const obj = doc.toJS() as KubeObject | null;
      if (obj?.kind === 'CustomResourceDefinition') out.push(obj);
    }
  }
  return out;
}

interface Shared {
  opts: ApiServerOptions;
  crds: KubeObject[];
  pki: Pki;
  /** One audit log per cluster name (when auditing is on): it outlives a restart. */
  audits: Map<string, AuditLog>;
  /** The request audit log every cluster appends to (auditLogPath). */
  requestAudit?: RequestAuditLog;
}

function auditLogFor(shared: Shared, name: string): AuditLog | undefined {
  const audit = shared.opts.audit;
  if (!audit) return undefined;
  let log = shared.audits.get(name);
  if (!log) {
    log = new AuditLog(audit === true ? {} : audit);
    shared.audits.set(name, log);
  }
  return log;
}

/** One cluster, restored from its data directory when there is one. */
async function makeCluster(shared: Shared, spec: ClusterSpec, main: boolean): Promise<Cluster> {
  const { opts } = shared;
  const persistence = opts.dataDir
    ? await openPersistence({ dir: opts.dataDir, cluster: spec.name, historyTail: opts.historySize })
    : undefined;
  for (const warning of persistence?.warnings ?? []) console.warn(`cluster ${spec.name}: ${warning}`);
  try {
    return new Cluster({
      host: opts.host,
      historySize: opts.historySize,
      workloads: opts.workloads,
      ...spec,
      pki: shared.pki,
      crds: main || spec.productCrds ? shared.crds : [],
      persistence,
      audit: auditLogFor(shared, spec.name),
      requestAudit: shared.requestAudit,
    });
  } catch (e) {
    await persistence?.close();
    throw e;
  }
}

async function startAll(shared: Shared, specs: ClusterSpec[]): Promise<Map<string, Cluster>> {
  const byName = new Map<string, Cluster>();
  try {
    for (const [i, spec] of specs.entries()) byName.set(spec.name, await makeCluster(shared, spec, i === 0));
    for (const c of byName.values()) await c.start();
  } catch (e) {
    for (const c of byName.values()) await c.shutdown();
    throw e;
  }
  return byName;
}

/** Starts a made cluster; shuts it down again when it cannot start. */
async function started(c: Cluster): Promise<Cluster> {
  try {
    await c.start();
  } catch (e) {
    await c.shutdown();
    throw e;
  }
  return c;
}

/**
 * Restart of one cluster (ApiServer.restartCluster): shut down, then made again from its data
 * directory with the same spec, port and admin token (the PKI is shared, the ServiceAccount
 * token key is kept in the data directory), and started.
 */
async function restart(shared: Shared, old: Cluster, spec: ClusterSpec, main: boolean): Promise<Cluster> {
  if (!shared.opts.dataDir) {
    throw new Error(
      `cannot restart cluster "${old.name}" without a dataDir: restarting would lose everything it holds`,
    );
  }
  const port = old.port;
  await old.shutdown();
  return started(await makeCluster(shared, { ...spec, port, token: old.token }, main));
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const crds = await loadCrds(opts.crdFiles ?? []);
  const pki: Pki = opts.pkiDir ? await loadOrCreatePki(opts.pkiDir) : await createPki();
  const requestAudit = opts.auditLogPath ? new RequestAuditLog(opts.auditLogPath) : undefined;
  const shared: Shared = { opts, crds, pki, audits: new Map(), requestAudit };
  const specs = (opts.clusters ?? ['main']).map((c) => (typeof c === 'string' ? { name: c } : c));
  const byName = await startAll(shared, specs);
  const specOf = new Map<string, ClusterSpec>(specs.map((s) => [s.name, s]));
  const mainName = specs[0]?.name ?? 'main';
  const cluster = (name = mainName): Cluster => {
    const c = byName.get(name);
    if (!c) throw new Error(`no cluster named "${name}"`);
    return c;
  };
  return {
    cluster,
    clusters: () => [...byName.values()],
    async addCluster(spec) {
      if (byName.has(spec.name)) throw new Error(`cluster "${spec.name}" exists already`);
      const c = await started(await makeCluster(shared, spec, false));
      byName.set(spec.name, c);
      specOf.set(spec.name, spec);
      return c;
    },
    async restartCluster(name) {
      const c = await restart(shared, cluster(name), specOf.get(name)!, name === mainName);
      byName.set(name, c);
      return c;
    },
    audit: (name = mainName) => (byName.has(name) ? shared.audits.get(name) : undefined),
    async stop() {
      await Promise.all([...byName.values()].map((c) => c.shutdown()));
      await requestAudit?.close();
    },
  };
}
