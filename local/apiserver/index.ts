/**
 * The embedded Kubernetes API server: several clusters in one process, each on its own
 * loopback port with its own token. The main cluster serves the product's CRDs.
 */
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { Cluster, type ClusterOptions } from './cluster.js';
import type { KubeObject } from './types.js';
import type { WorkloadSimulation } from './workloads.js';
import { createPki, loadOrCreatePki, type Pki } from './pki.js';
import { openPersistence } from './persist/index.js';

export { Cluster, type ClusterOptions } from './cluster.js';
export type { Pki } from './pki.js';
export {
  TrafficCounter,
  trafficDelta,
  trafficTotal,
  type TrafficCount,
  type TrafficSnapshot,
} from './traffic.js';
export type { WorkloadSimulation } from './workloads.js';
export type { KubeObject, ResourceDef } from './types.js';

export type ClusterSpec = Omit<ClusterOptions, 'crds' | 'pki'> & { productCrds?: boolean };

export interface ApiServerOptions {
  /** Cluster names or options; the first is the main cluster. Default: `['main']`. */
  clusters?: (string | ClusterSpec)[];
  /** CRD YAML files registered in the main cluster (and in any cluster that sets productCrds). */
  crdFiles?: string[];
  host?: string;
  historySize?: number;
  /** Workload simulation for every cluster that does not set its own. */
  workloads?: WorkloadSimulation;
  /** Where the CA and serving certificate are kept; without it a new PKI is made. */
  pkiDir?: string;
  /** Keeps every cluster's objects in `<dataDir>/<cluster>/` across restarts (none: in memory only). */
  dataDir?: string;
}

export interface ApiServer {
  cluster(name?: string): Cluster;
  clusters(): Cluster[];
  /** Adds and starts another cluster at run time (e.g. a shoot). */
  addCluster(opts: ClusterSpec): Promise<Cluster>;
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

async function defaultCrdFiles(): Promise<string[]> {
  const mod = (await import('../../shared/api/crds.js')) as { crdFiles: () => string[] };
  return mod.crdFiles();
}

interface Shared {
  opts: ApiServerOptions;
  crds: KubeObject[];
  pki: Pki;
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

export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const crds = await loadCrds(opts.crdFiles ?? (await defaultCrdFiles()));
  const pki: Pki = opts.pkiDir ? await loadOrCreatePki(opts.pkiDir) : await createPki();
  const shared: Shared = { opts, crds, pki };
  const specs = (opts.clusters ?? ['main']).map((c) => (typeof c === 'string' ? { name: c } : c));
  const byName = await startAll(shared, specs);
  const mainName = specs[0]?.name ?? 'main';
  return {
    cluster(name = mainName) {
      const c = byName.get(name);
      if (!c) throw new Error(`no cluster named "${name}"`);
      return c;
    },
    clusters: () => [...byName.values()],
    async addCluster(spec) {
      if (byName.has(spec.name)) throw new Error(`cluster "${spec.name}" exists already`);
      const c = await makeCluster(shared, spec, false);
      try {
        await c.start();
      } catch (e) {
        await c.shutdown();
        throw e;
      }
      byName.set(spec.name, c);
      return c;
    },
    async stop() {
      await Promise.all([...byName.values()].map((c) => c.shutdown()));
    },
  };
}
