/**
 * Issue 8, the functions that need (almost) nothing of the Kubernetes API. requeue-tick and
 * dead-letter get a ServiceAccount of their own with no token mounted and no Role or binding at
 * all: they run their happy path (pop what is due and emit it to a sink; log a dead letter) with a
 * kubeconfig holding a token of that ServiceAccount anyway, make no request to the API server at
 * all (its traffic is counted), and that token is refused everything. landscaper-monitoring reads
 * the PodAutoscalers and HPAs of landscape-system with only its Role there, and nothing elsewhere.
 */
import type { TrafficSnapshot } from '@landscape/kube-apiserver/testing';
import { trafficDelta } from '@landscape/kube-apiserver/testing';
import { GVK } from '../../shared/api/gvk.js';
import { lazyRedis } from '../../shared/redis/index.js';
import { createLogger } from '../../shared/log/index.js';
import { POD_AUTOSCALER_GVK, type PodAutoscaler } from '../../shared/monitoring/index.js';
import { pending, requeue } from '../../shared/requeue/index.js';
import { createDeadLetterInstance } from '../../functions/dead-letter/instance.js';
import { deadLetterHandler } from '../../functions/dead-letter/handler.js';
import { createTickInstance } from '../../functions/requeue-tick/instance.js';
import { tickHandler } from '../../functions/requeue-tick/handler.js';
import {
  createMonitoringInstance,
  runStatisticsTick,
} from '../../functions/landscaper-monitoring/handler.js';
import { startSink, type TestSink } from '../support/sink.js';
import {
  capturingLogger,
  forbiddenLines,
  manifestConfig,
  startRbacCluster,
  SYSTEM,
  type FunctionIdentity,
  type RbacCluster,
} from './rbac-support.js';

let c: RbacCluster;

beforeAll(async () => {
  c = await startRbacCluster({ main: { countTraffic: true } });
}, 30_000);

afterAll(async () => {
  await c?.stop();
});

const traffic = (): TrafficSnapshot => c.srv.cluster().traffic!.snapshot();

interface Binding {
  metadata: { name: string; namespace?: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/** The RoleBindings and ClusterRoleBindings that name ServiceAccount landscape-system/<name>. */
async function bindingsOf(name: string): Promise<string[]> {
  const out: string[] = [];
  for (const plural of ['rolebindings', 'clusterrolebindings']) {
    const res = await c.admin.request({
      method: 'GET',
      path: `/apis/rbac.authorization.k8s.io/v1/${plural}`,
    });
    for (const b of (JSON.parse(res.body) as { items: Binding[] }).items) {
      const named = (b.subjects ?? []).some(
        (s) => s.kind === 'ServiceAccount' && s.name === name && s.namespace === SYSTEM,
      );
      if (named) out.push(`${plural}/${b.metadata.namespace ?? ''}/${b.metadata.name}`);
    }
  }
  return out;
}

/**
 * The ServiceAccount mounts no token and no binding names it, and its token (minted anyway) is
 * refused what a function might ask for.
 */
async function expectNoKubernetesAccess(name: string, id: FunctionIdentity): Promise<void> {
  const sa = await c.core.readNamespacedServiceAccount({ namespace: SYSTEM, name });
  expect(sa.automountServiceAccountToken).toBe(false);
  expect(await bindingsOf(name)).toEqual([]);
  for (const [verb, resource] of [
    ['get', 'pods'],
    ['get', 'configmaps'],
    ['get', 'secrets'],
    ['create', 'events'],
  ])
    expect(await c.can(id.token, { verb, resource, namespace: SYSTEM })).toBe(false);
  expect(await c.statusOf(id.token, `/api/v1/namespaces/${SYSTEM}/configmaps`)).toBe(403);
  expect(await c.statusOf(id.token, `/apis/landscaper.gardener.cloud/v1alpha1/deployitems`)).toBe(403);
}

describe('requeue-tick', () => {
  let sink: TestSink;
  beforeAll(async () => {
    sink = await startSink();
  });
  afterAll(async () => {
    await sink?.close();
  });

  it('emits what is due to the sink without a single API request, and its token is refused everything', async () => {
    const id = await c.identity('requeue-tick');
    const { log, lines } = capturingLogger('requeue-tick');
    const handle = lazyRedis({ url: c.redis.url });
    const redis = await handle.get();
    const at = (s: number): Date => new Date(Date.now() + s * 1000);
    const item = (name: string, s: number): Parameters<typeof requeue>[1] => ({
      target: 'deployer-manifest',
      kind: 'DeployItem',
      namespace: 'rbac',
      name,
      at: at(s),
    });
    const instance = createTickInstance({
      // a kubeconfig with the ServiceAccount's token, as if one were mounted: it is never used
      env: () => ({
        KUBECONFIG: id.kubeconfig,
        REDIS_URL: c.redis.url,
        K_SINK: sink.url,
        CONFIG_FILE: '/etc/landscape/config.yaml',
      }),
      readFile: () => manifestConfig('runtime', 'requeue-tick'),
      log,
    });
    try {
      await requeue(redis, item('due-a', -5));
      await requeue(redis, item('due-b', -1));
      await requeue(redis, item('later', 60));
      const before = traffic();
      await tickHandler(instance)({ type: 'dev.knative.sources.ping', data: { job: 'requeue-tick' } });
      expect(trafficDelta(traffic(), before)).toEqual({});
      expect(
        sink.requests.map((r) => [r.headers['ce-type'], r.headers['ce-target'], r.headers['ce-name']]).sort(),
      ).toEqual([
        ['dev.landscape.requeue', 'deployer-manifest', 'due-a'],
        ['dev.landscape.requeue', 'deployer-manifest', 'due-b'],
      ]);
      expect((await pending(redis, 'deployer-manifest')).map((p) => p.name)).toEqual(['later']);
    } finally {
      await instance.close();
      await handle.close();
    }
    expect(forbiddenLines(lines)).toEqual([]);
    await expectNoKubernetesAccess('requeue-tick', id);
  });
});

describe('dead-letter', () => {
  it('logs a dead letter without a single API request, and its token is refused everything', async () => {
    const id = await c.identity('dead-letter');
    const lines: string[] = [];
    const instance = createDeadLetterInstance({
      env: () => ({ KUBECONFIG: id.kubeconfig, CONFIG_FILE: '/etc/landscape/config.yaml', POD_NAME: 'dl-1' }),
      readFile: () => manifestConfig('runtime', 'dead-letter'),
      destination: { write: (l: string) => void lines.push(l) },
    });
    const before = traffic();
    await deadLetterHandler(instance)({
      specversion: '1.0',
      id: 'dl-event-1',
      type: 'dev.landscape.requeue',
      source: '/apis/landscape/functions/requeue-tick',
      target: 'deployer-mock',
      knativeerrordest: 'http://deployer-mock.landscape-system.svc.cluster.local',
      knativeerrorcode: '422',
      knativeerrordata: Buffer.from('{"error":"unprocessable"}').toString('base64'),
      data: { token: 't0ps3cret' },
    });
    expect(trafficDelta(traffic(), before)).toEqual({});
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'dead letter',
        id: 'dl-event-1',
        knativeerrordest: 'http://deployer-mock.landscape-system.svc.cluster.local',
        knativeerrorcode: 422,
      }),
    ]);
    // the production config never logs the data
    expect(lines.join('')).not.toContain('t0ps3cret');
    await expectNoKubernetesAccess('dead-letter', id);
  });
});

describe('landscaper-monitoring', () => {
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
      },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };

  async function podAutoscaler(namespace: string, name: string, hpaClass: boolean): Promise<string> {
    const pa = await c.admin.create<PodAutoscaler>(POD_AUTOSCALER_GVK, {
      apiVersion: POD_AUTOSCALER_GVK.apiVersion,
      kind: 'PodAutoscaler',
      metadata: {
        name: `${name}-00001`,
        namespace,
        labels: { 'serving.knative.dev/service': name },
        annotations: {
          'autoscaling.knative.dev/class': hpaClass
            ? 'hpa.autoscaling.knative.dev'
            : 'kpa.autoscaling.knative.dev',
        },
      },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `${name}-00001-deployment` },
      },
    });
    await c.admin.patchStatus(
      POD_AUTOSCALER_GVK,
      { namespace, name: `${name}-00001` },
      { status: { actualScale: 1, desiredScale: 2 } },
    );
    return pa.metadata!.uid!;
  }

  it("logs the functions' statistics with only its Role, and reads no other namespace", async () => {
    const id = await c.identity('landscaper-monitoring');
    await c.admin.create(GVK.CustomResourceDefinition, podAutoscalerCrd);
    for (let i = 0; i < 50; i++) {
      const listed = await c.admin.list(POD_AUTOSCALER_GVK, SYSTEM).then(
        () => true,
        () => false,
      );
      if (listed) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await podAutoscaler(SYSTEM, 'deployer-mock', false);
    const uid = await podAutoscaler(SYSTEM, 'deployer-manifest', true);
    await podAutoscaler('default', 'elsewhere', false);
    await c.admin.create(GVK.HorizontalPodAutoscaler, {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: {
        name: 'deployer-manifest-00001',
        namespace: SYSTEM,
        ownerReferences: [
          {
            apiVersion: POD_AUTOSCALER_GVK.apiVersion,
            kind: 'PodAutoscaler',
            name: 'deployer-manifest-00001',
            uid,
            controller: true,
          },
        ],
      },
      spec: {
        scaleTargetRef: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'deployer-manifest-00001-deployment',
        },
        minReplicas: 1,
        maxReplicas: 3,
      },
    });
    const instance = createMonitoringInstance({
      // LOG_LEVEL keeps the statistics lines (stdout) out of the test output; they are counted
      env: () => ({
        KUBECONFIG: id.kubeconfig,
        CONFIG_FILE: '/etc/landscape/config.yaml',
        LOG_LEVEL: 'error',
      }),
      readFile: () => manifestConfig('deployers', 'landscaper-monitoring'),
      log: createLogger({ name: 'landscaper-monitoring', level: 'error' }),
    });
    try {
      // both functions of landscape-system (the HPA-class one through its HPA), no failed source
      expect(await runStatisticsTick(instance)).toEqual({ logged: 2, failed: [] });
    } finally {
      await instance.close();
    }

    const pas = '/apis/autoscaling.internal.knative.dev/v1alpha1/namespaces';
    expect(await c.statusOf(id.token, `${pas}/default/podautoscalers`)).toBe(403);
    expect(await c.statusOf(id.token, `${pas}/${SYSTEM}/podautoscalers/deployer-mock-00001`)).toBe(403);
    expect(
      await c.can(id.token, {
        verb: 'patch',
        group: 'autoscaling.internal.knative.dev',
        resource: 'podautoscalers',
        namespace: SYSTEM,
      }),
    ).toBe(false);
    expect(await c.can(id.token, { verb: 'list', resource: 'pods', namespace: SYSTEM })).toBe(false);
  });
});
