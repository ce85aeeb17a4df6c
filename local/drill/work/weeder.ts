/**
 * The dependency watchdog's weeder under the drill: per shoot namespace on the seed (main), the
 * kube-apiserver EndpointSlice starts not ready, with control-plane pods crash-looping. disturb()
 * turns the slice ready (the API server "recovered"): the weeder must delete the crash-looping
 * dependants that config/weeder.yaml's kube-apiserver selector matches (gardener.cloud/role=
 * controlplane, role not main/apiserver), and only them: a running dependant and a crash-looping
 * kube-apiserver pod stay. Deletes outside the weeder's window are counted from the audit log by
 * the runner (duplicates.ts).
 */
import { Redis } from 'ioredis';
import { GVK } from '../../../shared/api/gvk.js';
import { rememberedReadiness } from '../../../functions/weeder/handler.js';
import type { DrillContext, Workload, WorkloadCheck } from '../types.js';
import { createOnce, ensureNamespace, label, readOptional, retry, waitFor } from './retry.js';

interface PodPlan {
  name: string;
  role: string;
  crashLooping: boolean;
  /** The weeder deletes it after the recovery. */
  weeded: boolean;
}

const PODS: readonly PodPlan[] = [
  { name: 'kube-controller-manager-0', role: 'controller-manager', crashLooping: true, weeded: true },
  {
    name: 'machine-controller-manager-0',
    role: 'machine-controller-manager',
    crashLooping: true,
    weeded: true,
  },
  { name: 'cluster-autoscaler-0', role: 'cluster-autoscaler', crashLooping: false, weeded: false },
  { name: 'kube-apiserver-0', role: 'apiserver', crashLooping: true, weeded: false },
];

const SLICE = 'kube-apiserver-drill';

function namespaces(ctx: DrillContext): string[] {
  const n = Math.max(1, ctx.scale.probedShoots);
  return Array.from({ length: n }, (_, i) => label('shoot--drill', `weed${i}`));
}

function pod(ns: string, p: PodPlan): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: ns,
      labels: { 'gardener.cloud/role': 'controlplane', role: p.role },
    },
    spec: { containers: [{ name: 'c', image: 'registry.example/c:1' }] },
  };
}

function podStatus(p: PodPlan): Record<string, unknown> {
  const state = p.crashLooping
    ? { waiting: { reason: 'CrashLoopBackOff', message: 'back-off restarting failed container' } }
    : { running: { startedAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') } };
  return {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'c',
        image: 'registry.example/c:1',
        imageID: '',
        ready: !p.crashLooping,
        restartCount: 3,
        state,
      },
    ],
  };
}

const slice = (ns: string, ready: boolean): Record<string, unknown> => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: SLICE, namespace: ns, labels: { 'kubernetes.io/service-name': 'kube-apiserver' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready } }],
});

/** Whether the weeder remembers the slice of the namespace with this readiness. */
async function seen(redis: Redis, ns: string, ready: boolean): Promise<boolean> {
  return (await rememberedReadiness(redis, ns, SLICE))?.ready === ready;
}

/** How long a slice may stay unseen before it is touched again; how long to try in all. */
const SEEN_WAIT_MS = 10_000;
const SEEN_LIMIT_MS = 120_000;

/**
 * Waits until the weeder remembers every slice with the readiness given: not ready before they turn
 * ready (so that the change is a recovery), ready after. The weeder's ApiServerSource selects
 * namespaces by label: a namespace joining the selection (the probed shoots' and these) makes it
 * list again (Knative rolls the adapter) and send nothing for what the list finds, so a slice event
 * of that moment is lost, as on Knative. A slice still unseen after SEEN_WAIT_MS is touched (an
 * annotation), which sends an update, as the next write of the endpoint controller would on a
 * cluster; each touch is logged.
 */
async function untilSeen(ctx: DrillContext, redis: Redis, ready: boolean): Promise<void> {
  const deadline = Date.now() + SEEN_LIMIT_MS;
  let unseen = namespaces(ctx);
  for (let round = 1; ; round++) {
    await waitFor(
      async () => {
        const done = await Promise.all(unseen.map((ns) => seen(redis, ns, ready)));
        unseen = unseen.filter((_, i) => !done[i]);
        return unseen.length === 0;
      },
      SEEN_WAIT_MS,
      200,
    );
    if (unseen.length === 0) return;
    const state = ready ? 'ready' : 'not-ready';
    if (Date.now() > deadline) {
      ctx.log(`weeder: ${state} slices never seen by the weeder; going on`, { unseen });
      return;
    }
    ctx.log(`weeder: ${state} slices not seen by the weeder yet; touching them`, { unseen, round });
    for (const ns of unseen)
      await retry(() =>
        ctx.main.mergePatch(
          GVK.EndpointSlice,
          { namespace: ns, name: SLICE },
          { metadata: { annotations: { 'drill.landscape.dev/touched': `${state}-${round}` } } },
        ),
      );
  }
}

async function prepare(ctx: DrillContext, ns: string): Promise<void> {
  await ensureNamespace(ctx.main, ns, { 'gardener.cloud/role': 'shoot' });
  for (const p of PODS) {
    await createOnce(ctx.main, GVK.Pod, pod(ns, p) as never);
    await retry(() =>
      ctx.main.patchStatus(GVK.Pod, { namespace: ns, name: p.name }, { status: podStatus(p) }),
    );
  }
  // not ready first: the weeder remembers it, so the change to ready is a recovery
  await createOnce(ctx.main, GVK.EndpointSlice, slice(ns, false) as never);
}

async function present(ctx: DrillContext, ns: string, name: string): Promise<boolean> {
  return (await readOptional(ctx.main, GVK.Pod, ns, name)) !== undefined;
}

export function weederWorkload(): Workload {
  return {
    name: 'weeder',
    async start(ctx) {
      for (const ns of namespaces(ctx)) await prepare(ctx, ns);
    },
    async disturb(ctx) {
      const redis = new Redis(ctx.redisUrl, {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectionName: 'drill-weeder',
      });
      redis.on('error', () => undefined);
      try {
        // the weeder must have seen the slices not ready before they turn ready, and then ready
        await untilSeen(ctx, redis, false);
        for (const ns of namespaces(ctx))
          await retry(() =>
            ctx.main.mergePatch(
              GVK.EndpointSlice,
              { namespace: ns, name: SLICE },
              { endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }] },
            ),
          );
        await untilSeen(ctx, redis, true);
      } finally {
        redis.disconnect();
      }
    },
    async settled(ctx) {
      for (const ns of namespaces(ctx))
        for (const p of PODS.filter((x) => x.weeded)) if (await present(ctx, ns, p.name)) return false;
      return true;
    },
    async check(ctx): Promise<WorkloadCheck> {
      const lost: string[] = [];
      for (const ns of namespaces(ctx)) {
        for (const p of PODS) {
          const there = await present(ctx, ns, p.name);
          if (p.weeded && there)
            lost.push(`weeder: crash-looping ${ns}/${p.name} not deleted after the recovery`);
          if (!p.weeded && !there)
            lost.push(`weeder: ${ns}/${p.name} deleted though it is no dependant to weed`);
        }
      }
      return { operations: namespaces(ctx).length * PODS.filter((p) => p.weeded).length, lost };
    },
  };
}
