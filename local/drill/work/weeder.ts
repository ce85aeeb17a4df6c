/**
 * The dependency watchdog's weeder under the drill: per shoot namespace on the seed (main), the
 * kube-apiserver EndpointSlice starts not ready, with control-plane pods crash-looping. disturb()
 * turns the slice ready (the API server "recovered"): the weeder must delete the crash-looping
 * dependants that config/weeder.yaml's kube-apiserver selector matches (gardener.cloud/role=
 * controlplane, role not main/apiserver), and only them: a running dependant and a crash-looping
 * kube-apiserver pod stay. Deletes outside the weeder's window are counted from the audit log by
 * the runner (duplicates.ts).
 */
import { GVK } from '../../../shared/api/gvk.js';
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

async function weederDelivered(ctx: DrillContext): Promise<number> {
  const rows = (await ctx.landscape.runtime?.status()) ?? [];
  return rows.find((r) => r.function === 'weeder')?.delivered ?? 0;
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
  let deliveredBefore = 0;
  return {
    name: 'weeder',
    async start(ctx) {
      deliveredBefore = await weederDelivered(ctx);
      for (const ns of namespaces(ctx)) await prepare(ctx, ns);
    },
    async disturb(ctx) {
      // the weeder must have seen the not-ready slices (and the pods) before they turn ready
      const seen = namespaces(ctx).length * (1 + PODS.length);
      await waitFor(async () => (await weederDelivered(ctx)) - deliveredBefore >= seen, 60_000);
      for (const ns of namespaces(ctx))
        await retry(() =>
          ctx.main.mergePatch(
            GVK.EndpointSlice,
            { namespace: ns, name: SLICE },
            {
              endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
            },
          ),
        );
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
