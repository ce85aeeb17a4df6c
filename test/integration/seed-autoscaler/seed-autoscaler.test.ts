/**
 * seed-autoscaler against the embedded API server (no Redis: the history lives in the status),
 * on a clock of its own: a ManagedSeedSet of two registered seeds (10 shoots allocatable each) and
 * a SeedAutoscaler at 50 % utilization with a short scale-down window. Within tolerance nothing
 * changes; above the target a tick raises the set's replicas through its scale subresource (status,
 * Event); when usage drops the recommendation is held for the stabilization window, then the set
 * scales down to the minimum. A new autoscaler is looked at on its event, its own status write is
 * not; a target that is not there is reported as the HPA reports it. With a private redis-server:
 * while autoscalers exist each pass over all queues the next one a sync period later (an
 * autoscaler's event queues it too), and once none is left nothing is queued.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import type { Seed, Shoot } from '../../../shared/api/core.js';
import type { ManagedSeed, ManagedSeedSet } from '../../../shared/api/seedmanagement.js';
import type { SeedAutoscaler } from '../../../shared/api/seedautoscaler.js';
import { createLogger } from '../../../shared/log/index.js';
import {
  createKubeClient,
  kubeConfigFromYaml,
  resourcePath,
  type KubeClient,
} from '../../../shared/kube/index.js';
import {
  createSeedAutoscalerInstance,
  runSeedAutoscalerEvent,
} from '../../../functions/seed-autoscaler/handler.js';
import type { AutoscaleResult } from '../../../functions/seed-autoscaler/autoscale.js';
import { crdFiles } from '../../../shared/api/crds.js';
import { Redis } from 'ioredis';
import { due, pending } from '../../../shared/requeue/index.js';
import { startRedis } from '../../support/redis.js';

const NS = 'garden';
const SET = 'auto';
const LABELS = { app: 'seeds', set: SET };
const CONFIG = 'tolerance: 0.1\ndownscaleStabilization: 5m\nconcurrency: 4\nlogLevel: debug\n';
const T0 = Date.parse('2025-06-01T12:00:00Z');

let srv: ApiServer;
let dir: string;
let kube: KubeClient;
let clock = T0;
let instance: ReturnType<typeof createSeedAutoscalerInstance>;
let shootCount = 0;

const log = createLogger({ name: 'seed-autoscaler', level: 'warn', destination: { write: () => undefined } });

const TICK = {
  specversion: '1.0',
  id: 'tick',
  source: '/apis/v1/namespaces/landscape-system/pingsources/seedmanagement-resync',
  type: 'dev.knative.sources.ping',
  data: { job: 'resync', family: 'seedmanagement' },
};

function refEvent(name: string, action: 'add' | 'update'): object {
  const apiVersion = GVK.SeedAutoscaler.apiVersion;
  return {
    specversion: '1.0',
    id: `${name}-${action}`,
    source: 'https://127.0.0.1',
    type: `dev.knative.apiserver.ref.${action}`,
    kind: 'SeedAutoscaler',
    apiversion: apiVersion,
    name,
    namespace: NS,
    data: { kind: 'SeedAutoscaler', namespace: NS, name, apiVersion },
  };
}

const tick = async (): Promise<AutoscaleResult[]> => runSeedAutoscalerEvent(instance, TICK);

function managedSeedSet(replicas: number): ManagedSeedSet {
  return {
    metadata: { name: SET, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: LABELS },
      template: { metadata: { labels: LABELS }, spec: {} },
      shootTemplate: { metadata: { labels: LABELS }, spec: { region: 'local', provider: { type: 'local' } } },
    },
  };
}

function autoscaler(name: string, target = SET): SeedAutoscaler {
  return {
    metadata: { name, namespace: NS },
    spec: {
      scaleTargetRef: {
        apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
        kind: 'ManagedSeedSet',
        name: target,
      },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'shoots', target: { type: 'Utilization', averageUtilization: 50 } },
        },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 30 } },
    },
  };
}

/** A registered replica: its ManagedSeed (owned by the set, selected by its labels) and a ready Seed. */
async function replica(name: string): Promise<void> {
  const set = await kube.get<ManagedSeedSet>(GVK.ManagedSeedSet, NS, SET);
  await kube.create<ManagedSeed>(GVK.ManagedSeed, {
    metadata: {
      name,
      namespace: NS,
      labels: LABELS,
      ownerReferences: [
        {
          apiVersion: GVK.ManagedSeedSet.apiVersion,
          kind: 'ManagedSeedSet',
          name: SET,
          uid: set.metadata?.uid ?? '',
          controller: true,
        },
      ],
    },
    spec: { shoot: { name } },
  });
  await kube.create<Seed>(GVK.Seed, {
    metadata: { name, labels: LABELS },
    spec: {
      provider: { type: 'local', region: 'local' },
      networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
    },
  });
  await kube.patchStatus(
    GVK.Seed,
    { name },
    { status: { allocatable: { shoots: '10' }, capacity: { shoots: '10' } } },
  );
}

/** Schedules shoots so that each seed holds `n`. */
async function usage(n: number): Promise<void> {
  for (const seed of [`${SET}-0`, `${SET}-1`]) {
    const on = (await kube.list<Shoot>(GVK.Shoot, 'garden-dev')).items.filter(
      (s) => s.spec.seedName === seed,
    );
    for (const s of on.slice(n))
      await kube.delete(GVK.Shoot, { namespace: 'garden-dev', name: s.metadata?.name ?? '' });
    for (let i = on.length; i < n; i++) {
      await kube.create<Shoot>(GVK.Shoot, {
        metadata: { name: `shoot-${shootCount++}`, namespace: 'garden-dev' },
        spec: { region: 'local', provider: { type: 'local' }, seedName: seed },
      });
    }
  }
}

async function setReplicas(): Promise<number> {
  const res = await kube.request({
    method: 'GET',
    path: resourcePath(GVK.ManagedSeedSet, { namespace: NS, name: SET, subresource: 'scale' }),
  });
  return (JSON.parse(res.body) as { spec: { replicas: number } }).spec.replicas;
}

const getAutoscaler = (name: string): Promise<SeedAutoscaler> =>
  kube.get<SeedAutoscaler>(GVK.SeedAutoscaler, NS, name);

async function eventsOf(name: string): Promise<{ type: string; reason: string; message: string }[]> {
  const list = await kube.list<{
    metadata: { name: string };
    type: string;
    reason: string;
    message: string;
    involvedObject: { kind: string; name: string };
  }>(GVK.Event, NS);
  return list.items
    .filter((e) => e.involvedObject.kind === 'SeedAutoscaler' && e.involvedObject.name === name)
    .map(({ type, reason, message }) => ({ type, reason, message }));
}

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles() });
  dir = await mkdtemp(join(tmpdir(), 'seed-autoscaler-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster().kubeconfigYaml());
  kube = createKubeClient(kubeConfigFromYaml(srv.cluster().kubeconfigYaml()));
  await kube.create(GVK.Namespace, { metadata: { name: NS } });
  await kube.create(GVK.Namespace, { metadata: { name: 'garden-dev' } });
  await kube.create(GVK.ManagedSeedSet, managedSeedSet(2));
  await replica(`${SET}-0`);
  await replica(`${SET}-1`);
  instance = createSeedAutoscalerInstance(
    {
      env: () => ({ KUBECONFIG: kubeconfig, CONFIG_FILE: '/seed-autoscaler.yaml' }),
      readFile: () => Promise.resolve(CONFIG),
      log,
    },
    { now: () => new Date(clock) },
  );
}, 30_000);

afterAll(async () => {
  await instance?.close();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

it('a new autoscaler is looked at on its event; within tolerance nothing changes; its own status write is skipped', async () => {
  await usage(5);
  await kube.create(GVK.SeedAutoscaler, autoscaler('auto'));
  expect(await runSeedAutoscalerEvent(instance, refEvent('auto', 'add'))).toEqual([
    expect.objectContaining({ outcome: 'unchanged', currentReplicas: 2, desiredReplicas: 2 }),
  ]);
  const a = await getAutoscaler('auto');
  expect(a.status).toMatchObject({
    observedGeneration: 1,
    currentReplicas: 2,
    desiredReplicas: 2,
    currentMetrics: [
      {
        type: 'Resource',
        resource: { name: 'shoots', current: { averageUtilization: 50, averageValue: '5' } },
      },
    ],
    history: { recommendations: [{ replicas: 2, time: new Date(T0).toISOString() }] },
  });
  expect(a.status?.conditions?.find((c) => c.type === 'ScalingActive')).toMatchObject({ status: 'True' });
  expect(await runSeedAutoscalerEvent(instance, refEvent('auto', 'update'))).toEqual([]);
  expect(await setReplicas()).toBe(2);
});

it('raises the set replicas through the scale subresource when utilization passes the target', async () => {
  await usage(8);
  clock = T0 + 15_000;
  expect(await tick()).toEqual([
    expect.objectContaining({ outcome: 'rescaled', currentReplicas: 2, desiredReplicas: 4 }),
  ]);
  expect(await setReplicas()).toBe(4);
  expect((await kube.get<ManagedSeedSet>(GVK.ManagedSeedSet, NS, SET)).spec.replicas).toBe(4);
  const a = await getAutoscaler('auto');
  expect(a.status).toMatchObject({
    currentReplicas: 2,
    desiredReplicas: 4,
    lastScaleTime: '2025-06-01T12:00:15Z',
    currentMetrics: [{ resource: { current: { averageUtilization: 80 } } }],
  });
  expect(a.status?.history?.scaleUpEvents).toEqual([{ change: 2, time: new Date(clock).toISOString() }]);
  expect(await eventsOf('auto')).toContainEqual({
    type: 'Normal',
    reason: 'SuccessfulRescale',
    message: 'New size: 4; reason: shoots resource utilization (percentage of allocatable) above target',
  });
});

it('holds a lower recommendation for the stabilization window, then scales down to the minimum', async () => {
  await usage(1);
  clock = T0 + 30_000;
  expect(await tick()).toEqual([
    expect.objectContaining({ outcome: 'unchanged', currentReplicas: 4, desiredReplicas: 4 }),
  ]);
  const held = await getAutoscaler('auto');
  expect(held.status?.conditions?.find((c) => c.type === 'AbleToScale')).toMatchObject({
    status: 'True',
    reason: 'ScaleDownStabilized',
  });
  expect(await setReplicas()).toBe(4);

  clock = T0 + 50_000;
  expect(await tick()).toEqual([
    expect.objectContaining({ outcome: 'rescaled', currentReplicas: 4, desiredReplicas: 1 }),
  ]);
  expect(await setReplicas()).toBe(1);
  expect((await getAutoscaler('auto')).status).toMatchObject({ currentReplicas: 4, desiredReplicas: 1 });
  expect(await eventsOf('auto')).toContainEqual({
    type: 'Normal',
    reason: 'SuccessfulRescale',
    message: 'New size: 1; reason: All metrics below target',
  });
});

it('reports a target that is not there as the HPA does', async () => {
  await kube.create(GVK.SeedAutoscaler, autoscaler('lost', 'missing'));
  clock = T0 + 60_000;
  const results = await tick();
  expect(results).toContainEqual(expect.objectContaining({ autoscaler: 'garden/lost', outcome: 'failed' }));
  const lost = await getAutoscaler('lost');
  expect(lost.status?.conditions).toEqual([
    expect.objectContaining({ type: 'AbleToScale', status: 'False', reason: 'FailedGetScale' }),
  ]);
  expect(await eventsOf('lost')).toEqual([
    expect.objectContaining({ type: 'Warning', reason: 'FailedGetScale' }),
  ]);
  expect(await setReplicas()).toBe(1);
});

describe('the next pass, queued in Redis instead of a PingSource tick', () => {
  const TARGET = 'seed-autoscaler';
  /** As requeue-tick emits it: `dueAt` is when the pass was queued for. */
  const requeueEvent = (target: string, dueAt = clock): object => ({
    specversion: '1.0',
    id: `requeue-${target}`,
    source: 'requeue-tick',
    type: 'dev.landscape.requeue',
    target,
    kind: 'SeedAutoscalerPass',
    name: 'all',
    data: {
      target,
      kind: 'SeedAutoscalerPass',
      namespace: '',
      name: 'all',
      dueAt: new Date(dueAt).toISOString(),
    },
  });

  it('queues the next pass a sync period later while autoscalers exist, and none once they are gone', async () => {
    const redis = await startRedis();
    const client = new Redis(redis.url);
    const kubeconfig = join(dir, 'kubeconfig');
    const chained = createSeedAutoscalerInstance(
      {
        env: () => ({ KUBECONFIG: kubeconfig, CONFIG_FILE: '/c.yaml', REDIS_URL: redis.url }),
        readFile: () => Promise.resolve(`${CONFIG}syncPeriod: 30s\n`),
        log,
      },
      { now: () => new Date(clock) },
    );
    const queued = async (): Promise<number[]> => (await pending(client, TARGET)).map((i) => i.at.getTime());
    try {
      clock = T0 + 3_600_000;
      // another function's requeue is not a pass
      expect(await runSeedAutoscalerEvent(chained, requeueEvent('managedseedset'))).toEqual([]);
      expect(await queued()).toEqual([]);
      // handed over 5 s after it was due: the next is due one period after the last was
      expect((await runSeedAutoscalerEvent(chained, requeueEvent(TARGET, clock - 5_000))).length).toBe(2);
      expect(await queued()).toEqual([clock - 5_000 + 30_000]);
      // an autoscaler's event (its own status write) keeps the earlier entry
      clock += 10_000;
      expect(await runSeedAutoscalerEvent(chained, refEvent('auto', 'update'))).toEqual([]);
      expect(await queued()).toEqual([clock - 10_000 - 5_000 + 30_000]);

      // requeue-tick pops it when due; with no autoscaler left the pass queues nothing
      clock += 15_000;
      expect(await due(client, TARGET, new Date(clock), 10)).toHaveLength(1);
      await kube.delete(GVK.SeedAutoscaler, { namespace: NS, name: 'auto' });
      await kube.delete(GVK.SeedAutoscaler, { namespace: NS, name: 'lost' });
      expect(await runSeedAutoscalerEvent(chained, requeueEvent(TARGET))).toEqual([]);
      expect(await queued()).toEqual([]);
    } finally {
      await chained.close();
      client.disconnect();
      await redis.stop();
    }
  });
});
