/**
 * Autoscaling statistics end to end: Knative PodAutoscalers (a CRD created here: the embedded API
 * server does not ship Knative Serving) and autoscaling/v2 HPAs in the embedded API server, and an
 * HTTP server answering like the embedded activator's `/status`, logged through
 * collectStatistics in the seed's "HPA Statistics" shape.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import type { PoolStatus } from '../../../local/activator/pool.js';
import { GVK } from '../../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { createLogger } from '../../../shared/log/index.js';
import {
  activatorSource,
  collectStatistics,
  hpaSource,
  knativeSource,
  MONITORING_LOGGER_NAME,
  POD_AUTOSCALER_GVK,
  type HorizontalPodAutoscaler,
  type PodAutoscaler,
} from '../../../shared/monitoring/index.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'default';
const NOW = Date.parse('2023-07-13T11:33:30.205Z');
const HEAD = `"level":"info","ts":"2023-07-13T11:33:30.205Z","logger":"${MONITORING_LOGGER_NAME}","msg":"HPA Statistics"`;

let srv: ApiServer;
let client: KubeClient;
let activator: Server;
let activatorUrl: string;

const statusRows: PoolStatus[] = [
  {
    name: 'deployer-mock',
    namespace: 'landscape',
    replicas: 2,
    ready: 2,
    inFlight: 7,
    queued: 1,
    coldStarts: 2,
    answered: 40,
    redelivered: 0,
    desired: 3,
    pods: ['deployer-mock-a', 'deployer-mock-b'],
  },
];

const podAutoscalerCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'podautoscalers.autoscaling.internal.knative.dev' },
  spec: {
    group: 'autoscaling.internal.knative.dev',
    scope: 'Namespaced',
    names: {
      plural: 'podautoscalers',
      singular: 'podautoscaler',
      kind: 'PodAutoscaler',
      listKind: 'PodAutoscalerList',
      shortNames: ['kpa', 'pa'],
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

async function eventually<T>(fn: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function podAutoscaler(name: string, service: string, hpaClass: boolean): PodAutoscaler {
  return {
    apiVersion: POD_AUTOSCALER_GVK.apiVersion,
    kind: 'PodAutoscaler',
    metadata: {
      name,
      namespace: NS,
      labels: { 'serving.knative.dev/service': service, 'serving.knative.dev/revision': name },
      annotations: {
        'autoscaling.knative.dev/class': hpaClass
          ? 'hpa.autoscaling.knative.dev'
          : 'kpa.autoscaling.knative.dev',
      },
    },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `${name}-deployment` } },
  };
}

function hpa(name: string, target: string, owner?: { name: string; uid: string }): HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name,
      namespace: NS,
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: POD_AUTOSCALER_GVK.apiVersion,
                kind: 'PodAutoscaler',
                name: owner.name,
                uid: owner.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
        },
      ],
    } as unknown as HorizontalPodAutoscaler['spec'],
  };
}

const cpu = (averageUtilization: number, averageValue: string): unknown => ({
  type: 'Resource',
  resource: { name: 'cpu', current: { averageUtilization, averageValue } },
});
const memory = (averageUtilization: number, averageValue: string): unknown => ({
  type: 'Resource',
  resource: { name: 'memory', current: { averageUtilization, averageValue } },
});

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'] });
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()), {
    fieldManager: 'monitoring-test',
  });
  await client.create(GVK.CustomResourceDefinition, podAutoscalerCrd);
  await eventually(() => client.list(POD_AUTOSCALER_GVK, NS));

  // A KPA-class function with two revisions (a rollout), and an HPA-class function with its HPA.
  await client.create(POD_AUTOSCALER_GVK, podAutoscaler('deployer-mock-00001', 'deployer-mock', false));
  await client.create(POD_AUTOSCALER_GVK, podAutoscaler('deployer-mock-00002', 'deployer-mock', false));
  const hpaPa = await client.create(
    POD_AUTOSCALER_GVK,
    podAutoscaler('deployer-manifest-00001', 'deployer-manifest', true),
  );
  await client.patchStatus(
    POD_AUTOSCALER_GVK,
    { namespace: NS, name: 'deployer-mock-00001' },
    {
      status: { actualScale: 1, desiredScale: 0 },
    },
  );
  await client.patchStatus(
    POD_AUTOSCALER_GVK,
    { namespace: NS, name: 'deployer-mock-00002' },
    {
      status: { actualScale: 2, desiredScale: 3 },
    },
  );
  await client.patchStatus(
    POD_AUTOSCALER_GVK,
    { namespace: NS, name: 'deployer-manifest-00001' },
    {
      status: { actualScale: 1, desiredScale: 2 },
    },
  );

  // The HPA Knative made for the HPA-class PodAutoscaler, and a plain HPA (the seed's case).
  await client.create(
    GVK.HorizontalPodAutoscaler,
    hpa('deployer-manifest-00001', 'deployer-manifest-00001-deployment', {
      name: 'deployer-manifest-00001',
      uid: hpaPa.metadata!.uid!,
    }),
  );
  await client.patchStatus(
    GVK.HorizontalPodAutoscaler,
    { namespace: NS, name: 'deployer-manifest-00001' },
    {
      status: { currentReplicas: 1, desiredReplicas: 2, currentMetrics: [cpu(95, '190m')] },
    },
  );
  await client.create(GVK.HorizontalPodAutoscaler, hpa('helm-hpa', 'helm-default-helm-deployer'));
  await client.patchStatus(
    GVK.HorizontalPodAutoscaler,
    { namespace: NS, name: 'helm-hpa' },
    {
      status: {
        currentReplicas: 3,
        desiredReplicas: 3,
        currentMetrics: [memory(20, '64625322666m'), cpu(108, '325m')],
      },
    },
  );

  activator = createServer((req, res) => {
    if (req.url === '/status')
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(statusRows));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => activator.listen(0, '127.0.0.1', resolve));
  activatorUrl = `http://127.0.0.1:${(activator.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (activator ? activator.close(() => resolve()) : resolve()));
  await srv?.stop();
});

function capture(): { log: ReturnType<typeof createLogger>; raw: () => string[] } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb): void {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return {
    log: createLogger({ name: MONITORING_LOGGER_NAME, destination, now: () => NOW }),
    raw: () => chunks.join('').split('\n').filter(Boolean),
  };
}

describe('collectStatistics against the embedded API server and an activator', () => {
  it('logs one seed-shaped line per function from every source', async () => {
    const { log, raw } = capture();
    const result = await collectStatistics(
      [knativeSource(client, NS), hpaSource(client, NS), activatorSource(activatorUrl)],
      log,
    );
    expect(result).toEqual({ logged: 4, failed: [] });
    expect(raw()).toEqual([
      `{${HEAD},"resource":"default/deployer-manifest","currentReplicas":1,"desiredReplicas":2,` +
        '"cpuAverageUtilization":95,"cpuAverageValue":"190m"}',
      `{${HEAD},"resource":"default/deployer-mock","currentReplicas":3,"desiredReplicas":3}`,
      `{${HEAD},"resource":"default/helm-default-helm-deployer","currentReplicas":3,"desiredReplicas":3,` +
        '"memoryAverageUtilization":20,"memoryAverageValue":"64625322666m","cpuAverageUtilization":108,' +
        '"cpuAverageValue":"325m"}',
      `{${HEAD},"resource":"landscape/deployer-mock","currentReplicas":2,"desiredReplicas":3}`,
    ]);
  });

  it('logs a failing source and still logs the others', async () => {
    const { log, raw } = capture();
    const result = await collectStatistics(
      [
        knativeSource(client, NS),
        activatorSource(`${activatorUrl}/nowhere`),
        activatorSource('http://127.0.0.1:1'),
        hpaSource(client, NS),
      ],
      log,
    );
    expect(result.logged).toBe(3);
    expect(result.failed).toEqual([`activator ${activatorUrl}/nowhere`, 'activator http://127.0.0.1:1']);
    const lines = raw().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l['level'], l['resource'] ?? l['source']])).toEqual([
      ['info', 'default/deployer-manifest'],
      ['info', 'default/deployer-mock'],
      ['error', `activator ${activatorUrl}/nowhere`],
      ['error', 'activator http://127.0.0.1:1'],
      ['info', 'default/helm-default-helm-deployer'],
    ]);
    expect(lines[2]).toMatchObject({
      msg: 'monitor: failed to collect autoscaling statistics',
      error: `activator ${activatorUrl}/nowhere/status answered 404`,
    });
  });

  it('reports a cluster without Knative Serving as a failing source', async () => {
    const { log, raw } = capture();
    const other = await startApiServer({ crdFiles: crdFiles(), clusters: ['bare'] });
    try {
      const bare = createKubeClient(kubeConfigFromYaml(other.cluster('bare').kubeconfigYaml()));
      const r = await collectStatistics([knativeSource(bare, NS), hpaSource(bare, NS)], log);
      expect(r).toEqual({ logged: 0, failed: [`podautoscalers in ${NS}`] });
    } finally {
      await other.stop();
    }
    expect(raw().map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'error', source: `podautoscalers in ${NS}` }),
    ]);
  });
});
