/**
 * probe-tick against the embedded API server (a seed and a shoot cluster, workload simulation on
 * so readyReplicas follows replicas) and a private redis-server, with short settings: the first
 * probe after initialDelay, no scaling while leases are fresh; leases expired past the fraction
 * scale MCM + CA (level 0) then KCM (level 1) to 0 with the annotations and Events; renewed leases
 * scale KCM back to its former replicas, then MCM after its initialDelay, then CA; a stopped shoot
 * API server means no scaling; a hibernated shoot's prober is removed; one loop at a time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import { createLogger } from '../../../shared/log/index.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { createProbeTickInstance, runProbeTick } from '../../../functions/probe-tick/handler.js';
import { runTick, stateKey, TICKER_KEY } from '../../../functions/probe-tick/tick.js';
import { Redis } from 'ioredis';
import { clusterObject } from '../../support/cluster-object.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'shoot--p--a';
const REPLICAS = 'dependency-watchdog.gardener.cloud/replicas';
const MELTDOWN = 'dependency-watchdog.gardener.cloud/meltdown-protection-active';
const NODES = ['node-a', 'node-b', 'node-c'];

const CONFIG = `kubeConfigSecretName: dwd-api-server-probe-secret
probeInterval: 200ms
initialDelay: 300ms
probeTimeout: 2s
backoffJitterFactor: 0
kcmNodeMonitorGraceDuration: 4s
dependentResourceInfos:
  - ref: {kind: Deployment, name: kube-controller-manager, apiVersion: apps/v1}
    scaleUp: {level: 0}
    scaleDown: {level: 1}
  - ref: {kind: Deployment, name: machine-controller-manager, apiVersion: apps/v1}
    scaleUp: {level: 1, initialDelay: 500ms}
    scaleDown: {level: 0}
  - ref: {kind: Deployment, name: cluster-autoscaler, apiVersion: apps/v1}
    optional: true
    scaleUp: {level: 2}
    scaleDown: {level: 0}
`;

let srv: ApiServer;
let redis: TestRedis;
let client: Redis;
let dir: string;
let seed: KubeClient;
let shoot: KubeClient;
let lines: Record<string, unknown>[] = [];
let kubeconfig: string;
let instance: ReturnType<typeof createProbeTickInstance>;

const log = createLogger({
  name: 'probe-tick',
  level: 'debug',
  destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
});

function deployment(name: string, replicas: number): Record<string, unknown> {
  const labels = { app: name };
  return {
    metadata: { name, namespace: NS, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  };
}

function cluster(hibernated = false, name = NS): Record<string, unknown> {
  return clusterObject(name, { shoot: 'a', hibernated, machineControllerManagerSettings: {} });
}

async function renewLeases(ageMs: number, names = NODES): Promise<void> {
  const renewTime = new Date(Date.now() - ageMs).toISOString().replace(/Z$/, '000Z');
  for (const name of names) {
    await shoot.mergePatch(GVK.Lease, { namespace: 'kube-node-lease', name }, { spec: { renewTime } });
  }
}

async function dep(name: string): Promise<{ replicas: number; annotations: Record<string, string> }> {
  const d = await seed.get<{
    metadata: { name: string; annotations?: Record<string, string> };
    spec: { replicas: number };
  }>(GVK.Deployment, NS, name);
  // the Deployment controller's own annotations (deployment.kubernetes.io/revision, as on a
  // cluster) are not the prober's
  const annotations = Object.fromEntries(
    Object.entries(d.metadata.annotations ?? {}).filter(([k]) => !k.startsWith('deployment.kubernetes.io/')),
  );
  return { replicas: d.spec.replicas, annotations };
}

/** Ticks (one pass each) until `done` holds or the deadline passes. */
async function tickUntil(done: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    await runProbeTick(instance);
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not reached');
}

const scaledOrder = (): string[] =>
  lines
    .filter((l) => l.msg === 'Successfully scaled resource')
    .map((l) => `${String(l.resource)}=${String(l.replicas)}`);

beforeAll(async () => {
  srv = await startApiServer({
    crdFiles: crdFiles(),
    clusters: ['seed', 'shoot'],
    workloads: { delayMs: 50 },
  });
  redis = await startRedis();
  client = new Redis(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'probe-tick-'));
  kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('seed').kubeconfigYaml());
  seed = createKubeClient(kubeConfigFromYaml(srv.cluster('seed').kubeconfigYaml()));
  shoot = createKubeClient(kubeConfigFromYaml(srv.cluster('shoot').kubeconfigYaml()));
  await seed.create(GVK.Namespace, { metadata: { name: NS, labels: { 'gardener.cloud/role': 'shoot' } } });
  await seed.create(GVK.Secret, {
    metadata: { name: 'dwd-api-server-probe-secret', namespace: NS },
    data: { kubeconfig: Buffer.from(srv.cluster('shoot').kubeconfigYaml()).toString('base64') },
  });
  await seed.create(GVK.Deployment, deployment('kube-controller-manager', 2));
  await seed.create(GVK.Deployment, deployment('machine-controller-manager', 1));
  await seed.create(GVK.Deployment, deployment('cluster-autoscaler', 1));
  for (const node of NODES) {
    await shoot.create(GVK.Node, {
      metadata: { name: node, labels: { 'worker.gardener.cloud/pool': 'pool' } },
    });
    await shoot.create(GVK.Lease, {
      metadata: { name: node, namespace: 'kube-node-lease' },
      spec: { holderIdentity: node, leaseDurationSeconds: 40 },
    });
    await seed.create(GVK.Machine, {
      metadata: { name: `m-${node}`, namespace: NS, labels: { node } },
      spec: {},
    });
  }
  await renewLeases(0);
  instance = createProbeTickInstance({
    env: () => ({
      KUBECONFIG: kubeconfig,
      REDIS_URL: redis.url,
      CONFIG_FILE: '/probe-tick.yaml',
      PROBE_TICK_SPAN: '0s',
    }),
    readFile: () => Promise.resolve(CONFIG),
    log,
  });
}, 30_000);

afterAll(async () => {
  await instance?.close();
  client?.disconnect();
  await redis?.stop();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  lines = [];
});

it('starts a prober for the new Cluster, probes after initialDelay, and does not scale while leases are fresh', async () => {
  await seed.create(GVK.Cluster, cluster());
  await runProbeTick(instance);
  expect(lines.map((l) => l.msg)).toContain('Starting prober');
  expect(JSON.parse((await client.get(stateKey(NS)))!)).toMatchObject({
    startedAt: expect.any(Number),
  });
  await tickUntil(() => lines.some((l) => String(l.msg).startsWith('Lease probe succeeded')));
  const probe = lines.find((l) => String(l.msg).startsWith('Lease probe succeeded'))!;
  expect(probe).toMatchObject({
    namespace: NS,
    expiredLeasesFraction: 0,
    expirationThreshold: 0.6,
    candidateLeases: 3,
  });
  expect((await dep('kube-controller-manager')).replicas).toBe(2);
});

it('expired leases past the fraction: MCM and CA, then KCM, scaled to 0 with the annotations and Events', async () => {
  await renewLeases(60_000, ['node-a', 'node-b']);
  await tickUntil(async () => (await dep('kube-controller-manager')).replicas === 0);
  const probe = lines.find((l) => String(l.msg).startsWith('Lease probe failed'))!;
  expect(probe).toMatchObject({ expiredLeasesFraction: 2 / 3, expirationThreshold: 0.6 });
  const order = scaledOrder();
  expect(order.slice(-1)).toEqual(['kube-controller-manager=0']);
  expect(new Set(order.slice(0, 2))).toEqual(
    new Set(['machine-controller-manager=0', 'cluster-autoscaler=0']),
  );
  expect(await dep('kube-controller-manager')).toEqual({
    replicas: 0,
    annotations: { [REPLICAS]: '2', [MELTDOWN]: '' },
  });
  expect(await dep('machine-controller-manager')).toEqual({
    replicas: 0,
    annotations: { [REPLICAS]: '1', [MELTDOWN]: '' },
  });
  const events = await seed.list<{
    metadata: { name: string };
    reason: string;
    involvedObject: { name: string };
    message: string;
  }>(GVK.Event, NS);
  // the prober's Event (the Deployment controller's ScalingReplicaSet Events are there too, as on a cluster)
  const kcm = events.items.find(
    (e) => e.involvedObject.name === 'kube-controller-manager' && e.reason === 'ScaledDown',
  );
  expect(kcm).toMatchObject({ reason: 'ScaledDown' });
  expect(kcm!.message).toContain('from 2 to 0 replicas');
});

it('a stopped shoot API server: the probe fails with ERR_PROBE_API_SERVER and nothing is scaled', async () => {
  await renewLeases(0);
  await srv.cluster('shoot').stop();
  try {
    await tickUntil(() => lines.some((l) => String(l.msg).startsWith('Code: ERR_PROBE_API_SERVER')));
    expect((await dep('kube-controller-manager')).replicas).toBe(0);
    expect(scaledOrder()).toEqual([]);
  } finally {
    await srv.cluster('shoot').start();
  }
});

it('renewed leases: KCM back to 2, then MCM after its initialDelay, then CA; annotations removed', async () => {
  await tickUntil(async () => (await dep('cluster-autoscaler')).replicas === 1);
  expect(scaledOrder()).toEqual([
    'kube-controller-manager=2',
    'machine-controller-manager=1',
    'cluster-autoscaler=1',
  ]);
  expect(await dep('kube-controller-manager')).toEqual({ replicas: 2, annotations: {} });
  expect(await dep('machine-controller-manager')).toEqual({ replicas: 1, annotations: {} });
  const kcmUp = lines.find(
    (l) => l.msg === 'Successfully scaled resource' && l.resource === 'kube-controller-manager',
  )!;
  const mcmUp = lines.find(
    (l) => l.msg === 'Successfully scaled resource' && l.resource === 'machine-controller-manager',
  )!;
  const at = (l: Record<string, unknown>): number => (typeof l.ts === 'string' ? Date.parse(l.ts) : NaN);
  expect(at(mcmUp) - at(kcmUp)).toBeGreaterThanOrEqual(500);
});

it('one loop at a time: a tick that finds the ticker lease held returns at once', async () => {
  await client.set(TICKER_KEY, 'someone-else', 'PX', 5_000);
  try {
    const r = await instance.ready();
    if (!r.ok) throw new Error('not ready');
    expect(await runTick(r.deps, r.config)).toEqual({
      ran: false,
      passes: 0,
      probes: 0,
      flowPasses: 0,
      probing: false,
      listFailed: false,
    });
  } finally {
    await client.del(TICKER_KEY);
  }
});

it('a hibernated shoot: its prober is removed', async () => {
  await seed.mergePatch(GVK.Cluster, { name: NS }, { spec: cluster(true).spec });
  await tickUntil(async () => (await client.get(stateKey(NS))) === null);
  expect(lines.map((l) => l.msg)).toContain(
    'Cluster hibernation is enabled, existing prober if any will be removed',
  );
});

it('HTTP 429 from the shoot API server: no probe for 10 s after it (back-off kept in Redis)', async () => {
  // a "shoot API server" that answers every request with 429 Too Many Requests
  const throttling = http.createServer((_req, res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}');
  });
  await new Promise<void>((resolve) => throttling.listen(0, '127.0.0.1', resolve));
  const ns = 'shoot--p--throttled';
  const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:${(throttling.address() as AddressInfo).port}"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;
  try {
    await seed.create(GVK.Namespace, { metadata: { name: ns } });
    await seed.create(GVK.Secret, {
      metadata: { name: 'dwd-api-server-probe-secret', namespace: ns },
      data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
    });
    await seed.create(GVK.Cluster, cluster(false, ns));
    await tickUntil(() =>
      lines.some((l) => l.namespace === ns && String(l.msg).startsWith('Code: ERR_PROBE_API_SERVER')),
    );
    const failed = lines.find(
      (l) => l.namespace === ns && String(l.msg).startsWith('Code: ERR_PROBE_API_SERVER'),
    )!;
    expect(failed.throttled).toBe(true);
    const state = JSON.parse((await client.get(stateKey(ns)))!) as { nextAt: number; backoffUntil: number };
    const at = Date.parse(String(failed.ts));
    // the 200 ms interval would come back at once; the back-off holds the next probe for 10 s
    expect(state.backoffUntil - at).toBeGreaterThanOrEqual(9_900);
    expect(state.nextAt).toBeGreaterThanOrEqual(state.backoffUntil);
    const probes = (): number =>
      lines.filter((l) => l.namespace === ns && String(l.msg).startsWith('Code: ERR_PROBE_API_SERVER'))
        .length;
    const before = probes();
    for (let i = 0; i < 5; i++) {
      await runProbeTick(instance);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(probes()).toBe(before);
  } finally {
    await seed.delete(GVK.Cluster, { name: ns });
    throttling.closeAllConnections();
    await new Promise((r) => throttling.close(r));
  }
});

describe('a tick with a span (PROBE_TICK_SPAN > 0), on a clock that sleeping advances', () => {
  /** runTick with a fake clock from now: `sleep` moves it on at once. */
  async function tickWithSpan(spanMs: number): Promise<{ passes: number; slept: number }> {
    const r = await instance.ready();
    if (!r.ok) throw new Error('not ready');
    let offset = 0;
    let slept = 0;
    const now = (): number => Date.now() + offset;
    const sleep = (ms: number): Promise<void> => {
      slept++;
      offset += ms;
      return Promise.resolve();
    };
    const summary = await runTick({ ...r.deps, now, sleep }, { ...r.config, tickSpanMs: spanMs });
    return { passes: summary.passes, slept };
  }

  it('no prober running (the only Cluster hibernated): one pass, the invocation returns at once', async () => {
    await seed.mergePatch(GVK.Cluster, { name: NS }, { spec: cluster(true).spec });
    await tickUntil(async () => (await client.get(stateKey(NS))) === null);
    expect(await tickWithSpan(15 * 60_000)).toEqual({ passes: 1, slept: 0 });
  });

  it('a prober running: it keeps probing every probe interval until the span is over', async () => {
    await seed.mergePatch(GVK.Cluster, { name: NS }, { spec: cluster(false).spec });
    await renewLeases(0);
    lines = [];
    const { passes } = await tickWithSpan(2_000);
    const probes = lines.filter((l) => l.namespace === NS && l.msg !== undefined && 'candidateLeases' in l);
    // initialDelay 300 ms, then a probe every 200 ms: several probes inside the 2 s span
    expect(passes).toBeGreaterThan(2);
    expect(probes.length).toBeGreaterThan(2);
  });
});

it('takes its SIGTERM listener away when the instance is closed', async () => {
  const before = process.listenerCount('SIGTERM');
  const other = createProbeTickInstance({
    env: () => ({ KUBECONFIG: kubeconfig, REDIS_URL: redis.url, CONFIG_FILE: '/probe-tick.yaml' }),
    readFile: () => Promise.resolve(CONFIG),
    log,
  });
  expect((await other.ready()).ok).toBe(true);
  expect(process.listenerCount('SIGTERM')).toBe(before + 1);
  await other.close();
  expect(process.listenerCount('SIGTERM')).toBe(before);
});
