/**
 * `scale.probedShoots` shoots probed by the dependency watchdog's prober (functions/probe-tick), set
 * up as test/e2e/watchdog.test.ts does: per shoot an embedded cluster (`<ns>-probed-<i>`) with
 * three Nodes of pool "pool" and their Leases, renewed every second by this workload (as kubelets
 * would); on the seed (main) the namespace `shoot--<ns>--p<i>` with the probe kubeconfig Secret,
 * kube-controller-manager (2), machine-controller-manager (1), cluster-autoscaler (1), a Machine per
 * node, and the Cluster object. The shoot's nodeMonitorGracePeriod is 20s (leases expire 15 s
 * after their last renewal).
 *
 * disturb() takes half of the shoots down the way the prober can see it: their leases stop being
 * renewed and their API servers stop, until the leases are expired and the prober has failed on
 * the API server since (its state in Redis; bounded). While an API server is unreachable the
 * prober must NOT scale (ERR_PROBE_API_SERVER means no scaling); once it is started again with
 * the leases expired, the dependents must go to 0. Then the leases are renewed again and the
 * dependents must come back to their replicas (settled()).
 */
import { Redis } from 'ioredis';
import { stateKey } from '../../../functions/probe-tick/handler.js';
import { GVK } from '../../../shared/api/gvk.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import type { DrillContext, Workload, WorkloadCheck } from '../types.js';
import { createOnce, embeddedCluster, ensureNamespace, label, listAll, sleep, waitFor } from './retry.js';

const REPLICAS_ANNOTATION = 'dependency-watchdog.gardener.cloud/replicas';
const DEPENDENTS: Record<string, number> = {
  'kube-controller-manager': 2,
  'machine-controller-manager': 1,
  'cluster-autoscaler': 1,
};
const NODES = ['node-a', 'node-b', 'node-c'];
const GRACE = '20s';
/** Leases expire 0.75 × GRACE after their last renewal; a margin for the last renewal in flight. */
const EXPIRY_WAIT_MS = 15_000 + 3_000;
const RENEW_EVERY_MS = 1_000;
/** How long disturb() waits for the dependents to be at their replicas before taking shoots down. */
const HEALTHY_WAIT_MS = 120_000;
/** How long a stopped shoot stays down at most, waiting for the prober to fail on it (after expiry). */
const UNREACHABLE_WAIT_MS = 60_000;
/** How long disturb() waits for the dependents of the restarted shoots to be scaled down. */
const SCALE_DOWN_WAIT_MS = 120_000;
const SECRET = 'dwd-api-server-probe-secret';

interface Deployment {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { replicas?: number };
}

interface Probed {
  cluster: string;
  namespace: string;
  client?: KubeClient;
  renew: boolean;
  down: boolean;
  /** Dependents seen at 0 replicas while the shoot was down (after its restart). */
  scaledDown: Set<string>;
  /** Dependents seen scaled down while the shoot's API server was stopped. */
  scaledWhileUnreachable: Set<string>;
}

interface State {
  shoots: Probed[];
  timer?: NodeJS.Timeout;
  renewing: boolean;
}

const microTime = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');

function plan(ctx: DrillContext): State {
  return {
    renewing: false,
    shoots: Array.from({ length: ctx.scale.probedShoots }, (_, i) => ({
      cluster: label(ctx.namespace, 'probed', String(i)),
      namespace: label('shoot', '', ctx.namespace, '', `p${i}`),
      renew: true,
      down: false,
      scaledDown: new Set<string>(),
      scaledWhileUnreachable: new Set<string>(),
    })),
  };
}

function deployment(name: string, namespace: string): Record<string, unknown> {
  const labels = { app: name };
  return {
    metadata: { name, namespace, labels },
    spec: {
      replicas: DEPENDENTS[name],
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'c', image: 'registry.example/c:1' }] },
      },
    },
  };
}

function clusterObject(namespace: string): Record<string, unknown> {
  return {
    metadata: { name: namespace },
    spec: {
      cloudProfile: { raw: {} },
      seed: { raw: {} },
      shoot: {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: namespace.replace(/^shoot--/, ''), namespace: 'garden-drill' },
        spec: {
          region: 'local',
          hibernation: { enabled: false },
          kubernetes: { kubeControllerManager: { nodeMonitorGracePeriod: GRACE } },
          provider: { type: 'local', workers: [{ name: 'pool', machineControllerManagerSettings: {} }] },
        },
        status: { lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100 } },
      },
    },
  };
}

async function setUpShootCluster(ctx: DrillContext, p: Probed): Promise<string> {
  const { client, kubeconfig } = await embeddedCluster(ctx.landscape, p.cluster);
  p.client = client;
  const renewTime = microTime(ctx.now());
  for (const node of NODES) {
    await createOnce(client, GVK.Node, {
      metadata: { name: node, labels: { 'worker.gardener.cloud/pool': 'pool' } },
    });
    await createOnce(client, GVK.Lease, {
      metadata: { name: node, namespace: 'kube-node-lease' },
      spec: { holderIdentity: node, leaseDurationSeconds: 40, renewTime },
    });
  }
  return kubeconfig;
}

async function setUpSeed(ctx: DrillContext, p: Probed, kubeconfig: string): Promise<void> {
  await ensureNamespace(ctx.main, p.namespace, { 'gardener.cloud/role': 'shoot' });
  await createOnce(ctx.main, GVK.Secret, {
    metadata: { name: SECRET, namespace: p.namespace },
    data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
  });
  for (const name of Object.keys(DEPENDENTS))
    await createOnce(ctx.main, GVK.Deployment, deployment(name, p.namespace));
  for (const node of NODES)
    await createOnce(ctx.main, GVK.Machine, {
      metadata: { name: `machine-${node}`, namespace: p.namespace, labels: { node } },
      spec: {},
    });
  // last: the prober starts on the Cluster, with everything it looks at in place
  await createOnce(ctx.main, GVK.Cluster, clusterObject(p.namespace));
}

/** One round of lease renewals (errors ignored: the next round renews). */
async function renewRound(s: State, now: number): Promise<void> {
  const renewTime = microTime(now);
  await Promise.all(
    s.shoots
      .filter((p) => p.renew && p.client)
      .flatMap((p) =>
        NODES.map((node) =>
          p.client!.mergePatch(
            GVK.Lease,
            { namespace: 'kube-node-lease', name: node },
            { spec: { renewTime } },
          ),
        ),
      )
      .map((write) => write.catch(() => undefined)),
  );
}

function startRenewing(ctx: DrillContext, s: State): void {
  if (s.timer) return;
  s.timer = setInterval(() => {
    if (s.renewing) return;
    s.renewing = true;
    void renewRound(s, ctx.now()).finally(() => {
      s.renewing = false;
    });
  }, RENEW_EVERY_MS);
  s.timer.unref();
}

async function dependents(ctx: DrillContext, p: Probed): Promise<Deployment[]> {
  return (await listAll<Deployment>(ctx.main, GVK.Deployment, p.namespace)).filter(
    (d) => DEPENDENTS[d.metadata.name] !== undefined,
  );
}

/** The prober's last result for the shoot (Redis, written by probe-tick), if any. */
async function lastProbe(redis: Redis, p: Probed): Promise<{ at: number; message: string } | undefined> {
  const raw = await redis.get(stateKey(p.namespace));
  if (raw === null) return undefined;
  return (JSON.parse(raw) as { last?: { at: number; message: string } }).last;
}

/** Whether the prober failed on every stopped shoot's API server since `since`. */
async function proberSawDown(redis: Redis, down: Probed[], since: number): Promise<boolean> {
  for (const p of down) {
    const last = await lastProbe(redis, p);
    if (!last || last.at < since || !last.message.includes('ERR_PROBE_API_SERVER')) return false;
  }
  return true;
}

/** Records dependents of the stopped shoots that are below their replicas. */
async function noteUnreachableScaling(ctx: DrillContext, down: Probed[]): Promise<void> {
  for (const p of down)
    for (const d of await dependents(ctx, p).catch(() => []))
      if ((d.spec.replicas ?? 0) < DEPENDENTS[d.metadata.name]) p.scaledWhileUnreachable.add(d.metadata.name);
}

/**
 * Keeps the stopped shoots down until their leases expired and the prober failed on their API
 * servers after that (bounded); nothing may be scaled meanwhile (noted only when every dependent
 * was at its replicas before).
 */
async function watchUnreachable(ctx: DrillContext, down: Probed[], healthyBefore: boolean): Promise<void> {
  const expired = Date.now() + EXPIRY_WAIT_MS;
  const redisUrl = ctx.landscape.runtime?.redisUrl;
  const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true }) : undefined;
  redis?.on('error', () => undefined);
  const saw = async (): Promise<boolean> => {
    // a dependent already down before the outage says nothing about the prober during it
    if (healthyBefore) await noteUnreachableScaling(ctx, down);
    if (Date.now() < expired) return false;
    return redis ? proberSawDown(redis, down, expired) : true;
  };
  try {
    if (!(await waitFor(saw, EXPIRY_WAIT_MS + UNREACHABLE_WAIT_MS, 1_000)))
      ctx.log('probed: the prober did not fail on the stopped API servers in time; starting them anyway');
  } finally {
    redis?.disconnect();
  }
}

/** Whether every dependent of the shoots is at its replicas. */
async function healthy(ctx: DrillContext, shoots: Probed[]): Promise<boolean> {
  for (const p of shoots) if (endProblems(p, await dependents(ctx, p)).length > 0) return false;
  return true;
}

async function allScaledDown(ctx: DrillContext, down: Probed[]): Promise<boolean> {
  let all = true;
  for (const p of down) {
    for (const d of await dependents(ctx, p)) if (d.spec.replicas === 0) p.scaledDown.add(d.metadata.name);
    all &&= p.scaledDown.size === Object.keys(DEPENDENTS).length;
  }
  return all;
}

async function disturb(ctx: DrillContext, s: State): Promise<void> {
  const down = s.shoots.slice(0, Math.ceil(s.shoots.length / 2));
  const api = ctx.landscape.api!;
  const before = await waitFor(() => healthy(ctx, s.shoots), HEALTHY_WAIT_MS, 1_000);
  if (!before) ctx.log('probed: dependents not all at their replicas before the outage');
  for (const p of down) {
    p.renew = false;
    p.down = true;
  }
  await sleep(RENEW_EVERY_MS); // a renewal round in flight ends
  for (const p of down) await api.cluster(p.cluster).stop();
  ctx.log('probed: shoot API servers stopped', { shoots: down.map((p) => p.cluster) });
  await watchUnreachable(ctx, down, before);
  for (const p of down) await api.cluster(p.cluster).start();
  const ok = await waitFor(() => allScaledDown(ctx, down), SCALE_DOWN_WAIT_MS, 500);
  ctx.log(`probed: shoots started again, dependents ${ok ? '' : 'NOT all '}scaled down`);
  for (const p of down) p.renew = true;
}

function endProblems(p: Probed, deps: Deployment[]): string[] {
  const byName = new Map(deps.map((d) => [d.metadata.name, d]));
  return Object.entries(DEPENDENTS).flatMap(([name, replicas]) => {
    const d = byName.get(name);
    if (!d) return [`dependent ${p.namespace}/${name} missing`];
    if (d.spec.replicas !== replicas)
      return [
        `dependent ${p.namespace}/${name} left at ${d.spec.replicas ?? '-'} replicas (expected ${replicas})`,
      ];
    if (d.metadata.annotations?.[REPLICAS_ANNOTATION] !== undefined)
      return [`dependent ${p.namespace}/${name} still has ${REPLICAS_ANNOTATION}`];
    return [];
  });
}

function disturbProblems(p: Probed): string[] {
  if (!p.down) return [];
  return Object.keys(DEPENDENTS).flatMap((name) => [
    ...(p.scaledDown.has(name)
      ? []
      : [`dependent ${p.namespace}/${name} not scaled down while its shoot was down`]),
    ...(p.scaledWhileUnreachable.has(name)
      ? [`dependent ${p.namespace}/${name} scaled down while its shoot's API server was unreachable`]
      : []),
  ]);
}

export function probed(): Workload {
  let state: State | undefined;
  const get = (ctx: DrillContext): State => (state ??= plan(ctx));
  return {
    name: 'probed',
    async start(ctx) {
      const s = get(ctx);
      startRenewing(ctx, s); // from the first Lease on, as kubelets would
      for (const p of s.shoots) await setUpSeed(ctx, p, await setUpShootCluster(ctx, p));
      ctx.log('probed: shoots set up', { shoots: s.shoots.length });
    },
    disturb: (ctx) => disturb(ctx, get(ctx)),
    settled: (ctx) => healthy(ctx, get(ctx).shoots),
    async check(ctx): Promise<WorkloadCheck> {
      const s = get(ctx);
      const lost: string[] = [];
      for (const p of s.shoots) lost.push(...endProblems(p, await dependents(ctx, p)), ...disturbProblems(p));
      clearInterval(s.timer);
      s.timer = undefined;
      const downed = s.shoots.filter((p) => p.down).length;
      return { operations: downed * Object.keys(DEPENDENTS).length * 2, lost };
    },
  };
}
