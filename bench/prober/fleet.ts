/**
 * The prober bench's fleet: one embedded API server (traffic counted on every cluster) with a
 * seed cluster and a few shoot clusters that the shoots share round robin. Each shoot is what
 * test/integration/probe-tick/probe-tick.test.ts seeds for one: its namespace in the seed
 * (`gardener.cloud/role: shoot`), a Cluster (Reconcile Succeeded, one worker pool with
 * machineControllerManagerSettings), the probe Secret holding its shoot cluster's kubeconfig, the
 * three dependents (KCM, MCM, CA; every replica ready, no workload simulation) and a Machine per
 * Node; each shoot cluster has Nodes (pool
 * label) and their Leases in `kube-node-lease`. Objects are written straight into the clusters'
 * stores (the API server's own create path, no HTTP), so setting up 1,000 shoots takes about a second
 * and counts no traffic.
 */
import type { ApiServer, Cluster } from '@landscape/kube-apiserver';
import { startApiServer } from '@landscape/kube-apiserver';
import type { Scope, WriteOptions } from '@landscape/kube-apiserver';
import { NODE_LEASE_NAMESPACE } from '../../shared/api/builtin.js';
import { GVK, type GroupVersionKind } from '../../shared/api/gvk.js';
import { crdFiles } from '../../shared/api/crds.js';

export const PROBE_SECRET = 'dwd-api-server-probe-secret';
const POOL = 'pool';
const DEPENDENTS: readonly [string, number][] = [
  ['kube-controller-manager', 2],
  ['machine-controller-manager', 1],
  ['cluster-autoscaler', 1],
];
const WRITE: WriteOptions = { fieldValidation: 'Strict', dryRun: false, fieldManager: 'bench' };

export interface FleetOptions {
  shoots: number;
  shootClusters: number;
  nodes: number;
  /** How long ago every Lease was renewed (0: fresh; past 0.75 × 40 s: expired). */
  leaseAgeMs: number;
  /** Where the API server's CA and serving certificate are kept (made once, shared by every fleet). */
  pkiDir: string;
}

export interface Fleet {
  server: ApiServer;
  seed: Cluster;
  shootClusters: Cluster[];
  namespaces: string[];
  /** Objects written into the stores: seed, shoot clusters. */
  objects: { seed: number; shoots: number };
  setupMs: number;
  /**
   * Renews every Lease every `intervalMs` (kubelets renew every 10 s), so leases stay fresh however
   * long a tick takes; returns the stop.
   */
  renewLeases(intervalMs: number): () => void;
  stop(): Promise<void>;
}

export const shootNamespace = (i: number): string => `shoot--bench--s${String(i).padStart(4, '0')}`;

interface Creator {
  /** Creates the object; with `status`, writes it through the status subresource after. */
  create(gvk: GroupVersionKind, body: object, status?: object): void;
  count(): number;
}

function creator(cluster: Cluster): Creator {
  let n = 0;
  return {
    create(gvk, body, status) {
      const def = cluster.registry.lookup(gvk.group, gvk.version, gvk.plural);
      if (!def) throw new Error(`cluster ${cluster.name} serves no ${gvk.plural}`);
      const meta = (body as { metadata?: { namespace?: string } }).metadata;
      const scope: Scope = { def, namespace: gvk.namespaced ? meta?.namespace : undefined };
      const created = cluster.ops.create(
        scope,
        { apiVersion: gvk.apiVersion, kind: gvk.kind, ...body },
        WRITE,
      );
      if (status) {
        const name = created.object.metadata.name;
        cluster.ops.update({ ...scope, name, subresource: 'status' }, { ...created.object, status }, WRITE);
      }
      n++;
    },
    count: () => n,
  };
}

function deployment(namespace: string, name: string, replicas: number): object {
  const labels = { app: name };
  return {
    metadata: { name, namespace, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  };
}

function clusterObject(namespace: string): object {
  return {
    metadata: { name: namespace },
    spec: {
      cloudProfile: { raw: {} },
      seed: { raw: {} },
      shoot: {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: namespace.split('--')[2], namespace: 'garden-bench' },
        spec: {
          region: 'local',
          hibernation: { enabled: false },
          provider: { type: 'local', workers: [{ name: POOL, machineControllerManagerSettings: {} }] },
        },
        status: { lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100 } },
      },
    },
  };
}

const nodeName = (i: number): string => `node-${i}`;

/** metav1.MicroTime of `ms`. */
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');

/** As the shoot's kubelets do: every Lease renewed now (in the store, no HTTP). */
function renewLeases(clusters: readonly Cluster[]): void {
  const g = GVK.Lease;
  const renewTime = microTime(Date.now());
  for (const cluster of clusters) {
    const def = cluster.registry.lookup(g.group, g.version, g.plural)!;
    for (const lease of cluster.ops.list({ def, namespace: NODE_LEASE_NAMESPACE }, {}).items) {
      const name = lease.metadata.name!;
      const next = { ...lease, spec: { ...(lease.spec as object), renewTime } };
      cluster.ops.update({ def, namespace: NODE_LEASE_NAMESPACE, name }, next, WRITE);
    }
  }
}

function seedShootCluster(cluster: Cluster, o: FleetOptions): number {
  const c = creator(cluster);
  const renewTime = microTime(Date.now() - o.leaseAgeMs);
  for (let i = 0; i < o.nodes; i++) {
    const name = nodeName(i);
    c.create(GVK.Node, { metadata: { name, labels: { 'worker.gardener.cloud/pool': POOL } } });
    c.create(GVK.Lease, {
      metadata: { name, namespace: NODE_LEASE_NAMESPACE },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
    });
  }
  return c.count();
}

/** As a Deployment controller would leave it: every replica ready (a scale-up flow finds KCM ready at once). */
const readyStatus = (replicas: number): object => ({
  observedGeneration: 1,
  replicas,
  updatedReplicas: replicas,
  readyReplicas: replicas,
  availableReplicas: replicas,
});

function seedShoot(seed: Creator, namespace: string, shoot: Cluster, nodes: number): void {
  seed.create(GVK.Namespace, { metadata: { name: namespace, labels: { 'gardener.cloud/role': 'shoot' } } });
  seed.create(GVK.Cluster, clusterObject(namespace));
  seed.create(GVK.Secret, {
    metadata: { name: PROBE_SECRET, namespace },
    data: { kubeconfig: Buffer.from(shoot.kubeconfigYaml()).toString('base64') },
  });
  for (const [name, replicas] of DEPENDENTS)
    seed.create(GVK.Deployment, deployment(namespace, name, replicas), readyStatus(replicas));
  for (let i = 0; i < nodes; i++) {
    seed.create(GVK.Machine, {
      metadata: { name: `m-${nodeName(i)}`, namespace, labels: { node: nodeName(i) } },
      spec: {},
    });
  }
}

/** A fresh API server holding `shoots` shoots. */
export async function startFleet(o: FleetOptions): Promise<Fleet> {
  const t0 = performance.now();
  const shootNames = Array.from({ length: o.shootClusters }, (_, i) => `shoot-${i}`);
  const server = await startApiServer({
    crdFiles: crdFiles(),
    clusters: [
      { name: 'seed', countTraffic: true },
      ...shootNames.map((name) => ({ name, countTraffic: true })),
    ],
    pkiDir: o.pkiDir,
  });
  try {
    const seed = server.cluster('seed');
    const shootClusters = shootNames.map((n) => server.cluster(n));
    let shootObjects = 0;
    for (const c of shootClusters) shootObjects += seedShootCluster(c, o);
    const seedCreator = creator(seed);
    const namespaces = Array.from({ length: o.shoots }, (_, i) => shootNamespace(i));
    namespaces.forEach((ns, i) =>
      seedShoot(seedCreator, ns, shootClusters[i % shootClusters.length], o.nodes),
    );
    return {
      server,
      seed,
      shootClusters,
      namespaces,
      objects: { seed: seedCreator.count(), shoots: shootObjects },
      setupMs: performance.now() - t0,
      renewLeases(intervalMs) {
        renewLeases(shootClusters);
        const timer = setInterval(() => renewLeases(shootClusters), intervalMs);
        return () => clearInterval(timer);
      },
      stop: () => server.stop(),
    };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

/** Replicas of every dependent of every shoot, read from the seed's store. */
export function dependentReplicas(fleet: Fleet): { zero: number; total: number } {
  const g = GVK.Deployment;
  const def = fleet.seed.registry.lookup(g.group, g.version, g.plural)!;
  let zero = 0;
  let total = 0;
  for (const namespace of fleet.namespaces) {
    for (const [name] of DEPENDENTS) {
      const d = fleet.seed.ops.get({ def, namespace, name }) as { spec?: { replicas?: number } };
      total++;
      if (d.spec?.replicas === 0) zero++;
    }
  }
  return { zero, total };
}
