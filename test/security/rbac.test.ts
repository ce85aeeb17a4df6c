/**
 * Issue 8: RBAC per function is the least that works. The embedded API server runs with RBAC
 * enforcement on; the admin applies the ServiceAccounts, Roles, ClusterRoles and bindings of every
 * manifest in knative/ (not the Knative Services, Triggers and Sources, which it does not serve).
 * Then each tested function runs its typical event path with a kubeconfig holding only a token
 * of its own ServiceAccount (TokenRequest), succeeds, and logs no 403; and one request its Role
 * does not need is refused (the Role is not wider than needed).
 */
import { randomUUID } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import type { ApiServer } from '@landscape/kube-apiserver';
import type { Seed, Shoot } from '../../shared/api/core.js';
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem } from '../../shared/api/landscaper.js';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import { createWeederInstance, runWeederEvent } from '../../functions/weeder/handler.js';
import { createProbeTickInstance, runProbeTick } from '../../functions/probe-tick/handler.js';
import {
  createScheduleShootInstance,
  runScheduleShootEvent,
} from '../../functions/schedule-shoot/handler.js';
import { createSeedStatusInstance, runSeedStatusEvent } from '../../functions/seed-status/handler.js';
import { createManagedSeedInstance, runManagedSeedEvent } from '../../functions/managedseed/handler.js';
import { checkHandler, createCheckInstance } from '../../functions/responsibility-check/handler.js';
import type { FetchLike } from '../../shared/events/index.js';
import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import { createMockDeployer } from '../../functions/deployer-mock/plugin.js';
import { triggerJob } from '../../functions/responsibility-check/jobs.js';
import { createDeployerInstance, runDeployerEvent } from '../../shared/deployer/host/function.js';
import type { TestRedis } from '../support/redis.js';
import {
  capturingLogger,
  forbiddenLines,
  startRbacCluster,
  SYSTEM,
  type Attributes,
  type FunctionIdentity,
  type RbacCluster,
} from './rbac-support.js';

/** The cluster, its admin and Redis (test/security/rbac-support.ts), bound for the tests below. */
let cluster: RbacCluster;
let srv: ApiServer;
let redis: TestRedis;
/** The admin's client (system:masters). */
let admin: KubeClient;
let core: k8s.CoreV1Api;
const ensureNamespace = (name: string): Promise<void> => cluster.ensureNamespace(name);
const identity = (name: string): Promise<FunctionIdentity> => cluster.identity(name);
const can = (token: string, attrs: Attributes): Promise<boolean> => cluster.can(token, attrs);
const statusOf = (token: string, path: string, method?: string): Promise<number> =>
  cluster.statusOf(token, path, method);

beforeAll(async () => {
  cluster = await startRbacCluster();
  ({ srv, redis, admin, core } = cluster);
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

it('the RBAC objects of every manifest are applied, and a function token is not the admin', async () => {
  const sas = await core.listNamespacedServiceAccount({ namespace: SYSTEM });
  const names = sas.items.map((s) => s.metadata!.name);
  for (const fn of [
    'weeder',
    'probe-tick',
    'schedule-shoot',
    'deployer-mock',
    'seed-status',
    'managedseed',
  ]) {
    expect(names).toContain(fn);
  }
  const { token } = await identity('weeder');
  expect(await statusOf(token, '/api/v1/namespaces')).toBe(403);
});

describe('weeder', () => {
  const CONFIG = `watchDuration: 5s
servicesAndDependantSelectors:
  kube-apiserver:
    podSelectors:
      - matchExpressions:
          - {key: role, operator: In, values: [controller-manager]}
`;
  const NS = 'shoot--rbac--weeder';

  it('deletes crash-looping dependants with only its ClusterRole, and cannot read Secrets', async () => {
    const id = await identity('weeder');
    const { log, lines } = capturingLogger('weeder');
    await ensureNamespace(NS);
    const pod = async (name: string, reason?: string): Promise<void> => {
      await admin.create(GVK.Pod, {
        metadata: { name, namespace: NS, labels: { role: 'controller-manager' } },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      });
      const state = reason ? { waiting: { reason } } : { running: { startedAt: new Date().toISOString() } };
      await admin.patchStatus(
        GVK.Pod,
        { namespace: NS, name },
        {
          status: {
            phase: 'Running',
            containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: false, restartCount: 3, state }],
          },
        },
      );
    };
    await pod('kcm-1', 'CrashLoopBackOff');
    await pod('kcm-ok');
    const slice = (ready: boolean): Record<string, unknown> => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: 'kube-apiserver-x1',
        namespace: NS,
        labels: { 'kubernetes.io/service-name': 'kube-apiserver' },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready } }],
    });
    const event = (action: string, data: Record<string, unknown>): Record<string, unknown> => ({
      type: `dev.knative.apiserver.resource.${action}`,
      kind: data.kind,
      namespace: NS,
      name: (data.metadata as { name: string }).name,
      data,
    });
    const instance = createWeederInstance({
      env: () => ({ KUBECONFIG: id.kubeconfig, REDIS_URL: redis.url, CONFIG_FILE: '/weeder.yaml' }),
      readFile: () => Promise.resolve(CONFIG),
      log,
    });
    try {
      expect(await runWeederEvent(instance, event('add', slice(false)))).toBe(0);
      expect(await runWeederEvent(instance, event('update', slice(true)))).toBe(1);
    } finally {
      await instance.close();
    }
    expect(await admin.get(GVK.Pod, NS, 'kcm-1').then(() => false, isNotFound)).toBe(true);
    expect((await admin.get(GVK.Pod, NS, 'kcm-ok')).metadata).toBeDefined();
    expect(forbiddenLines(lines)).toEqual([]);

    expect(await can(id.token, { verb: 'list', resource: 'secrets' })).toBe(false);
    expect(await statusOf(id.token, '/api/v1/secrets')).toBe(403);
    expect(
      await can(id.token, { verb: 'delete', group: 'apps', resource: 'deployments', namespace: NS }),
    ).toBe(false);
  });
});

describe('schedule-shoot', () => {
  const NS = 'garden-rbac';
  const CONFIG = `schedulerName: default-scheduler
seedCacheTtl: 0s
candidateDeterminationStrategy: SameRegion
retrySyncPeriod: 1s
maxRetryPeriod: 10s
reserveAttempts: 10
reservationTimeout: 5s
rebuildTimeout: 10s
`;

  async function createSeed(name: string): Promise<void> {
    await admin.create<Seed>(GVK.Seed, {
      metadata: { name },
      spec: {
        provider: { type: 'rbac', region: 'rbac' },
        settings: { scheduling: { visible: true } },
        networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
      },
    });
    const now = new Date().toISOString();
    await admin.patchStatus(
      GVK.Seed,
      { name },
      {
        status: {
          conditions: [{ type: 'GardenletReady', status: 'True', lastTransitionTime: now }],
          lastOperation: { type: 'Reconcile', state: 'Succeeded', lastUpdateTime: now },
        },
      },
    );
  }

  it('binds a shoot to a seed with only its Roles, and cannot delete Shoots or read Secrets', async () => {
    const id = await identity('schedule-shoot');
    const { log, lines } = capturingLogger('schedule-shoot');
    await ensureNamespace(NS);
    await admin.create(GVK.CloudProfile, { metadata: { name: 'rbac' }, spec: { type: 'rbac' } });
    await createSeed('rbac-a');
    await createSeed('rbac-b');
    const shoot = (name: string, seedName?: string): Promise<Shoot> =>
      admin.create<Shoot>(GVK.Shoot, {
        metadata: { name, namespace: NS },
        spec: {
          cloudProfileName: 'rbac',
          region: 'rbac',
          provider: { type: 'rbac', workers: [{ name: 'pool', machine: { type: 'm' } }] },
          ...(seedName ? { seedName } : {}),
        },
      });
    await shoot('old-1', 'rbac-a');
    await shoot('new-1');
    const instance = createScheduleShootInstance({
      env: () => ({ KUBECONFIG: id.kubeconfig, REDIS_URL: redis.url, CONFIG_FILE: '/schedule-shoot.yaml' }),
      readFile: () => Promise.resolve(CONFIG),
      log,
    });
    try {
      const outcome = await runScheduleShootEvent(instance, {
        specversion: '1.0',
        id: randomUUID(),
        source: 'https://garden/apis/v1/namespaces/landscape-system/apiserversources/seedmanagement',
        type: 'dev.knative.apiserver.ref.add',
        kind: 'Shoot',
        apiversion: 'core.gardener.cloud/v1beta1',
        name: 'new-1',
        namespace: NS,
        data: { kind: 'Shoot', apiVersion: 'core.gardener.cloud/v1beta1', name: 'new-1', namespace: NS },
      });
      expect(outcome).toEqual({ result: 'scheduled', seedName: 'rbac-b' });
    } finally {
      await instance.close();
    }
    expect((await admin.get<Shoot>(GVK.Shoot, NS, 'new-1')).spec.seedName).toBe('rbac-b');
    const events = await admin.list<{ metadata: object; involvedObject: { name: string }; reason: string }>(
      GVK.Event,
      NS,
    );
    expect(events.items.filter((e) => e.involvedObject.name === 'new-1').map((e) => e.reason)).toEqual([
      'SchedulingSuccessful',
    ]);
    expect(forbiddenLines(lines)).toEqual([]);

    expect(
      await can(id.token, {
        verb: 'delete',
        group: 'core.gardener.cloud',
        resource: 'shoots',
        namespace: NS,
      }),
    ).toBe(false);
    expect(
      await statusOf(id.token, `/apis/core.gardener.cloud/v1beta1/namespaces/${NS}/shoots/new-1`, 'DELETE'),
    ).toBe(403);
    expect(await can(id.token, { verb: 'get', resource: 'secrets', namespace: NS })).toBe(false);
  });
});

describe('seed-status', () => {
  const CONFIG = `default:
  capacity: {shoots: 50}
seeds:
  rbac-plain: {capacity: {shoots: 100}, reserved: {shoots: 10}}
`;

  it("writes a seed's capacity with only its ClusterRole, and cannot patch Seed specs", async () => {
    const id = await identity('seed-status');
    const { log, lines } = capturingLogger('seed-status');
    await admin.create(GVK.Seed, {
      metadata: { name: 'rbac-plain' },
      spec: {
        provider: { type: 'local', region: 'local' },
        networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
      },
    });
    const instance = createSeedStatusInstance({
      env: () => ({ KUBECONFIG: id.kubeconfig, CONFIG_FILE: '/seed-status.yaml' }),
      readFile: () => Promise.resolve(CONFIG),
      log,
    });
    try {
      const apiVersion = 'core.gardener.cloud/v1beta1';
      const ce = {
        specversion: '1.0',
        id: randomUUID(),
        source: 'https://apiserver',
        type: 'dev.knative.apiserver.ref.add',
        kind: 'Seed',
        apiversion: apiVersion,
        name: 'rbac-plain',
        data: { kind: 'Seed', name: 'rbac-plain', apiVersion },
      };
      expect(await runSeedStatusEvent(instance, ce)).toEqual(['write']);
    } finally {
      await instance.close();
    }
    expect((await admin.get<Seed>(GVK.Seed, undefined, 'rbac-plain')).status).toMatchObject({
      capacity: { shoots: '100' },
      allocatable: { shoots: '90' },
    });
    expect(forbiddenLines(lines)).toEqual([]);

    expect(await can(id.token, { verb: 'patch', group: 'core.gardener.cloud', resource: 'seeds' })).toBe(
      false,
    );
    expect(await can(id.token, { verb: 'delete', group: 'core.gardener.cloud', resource: 'seeds' })).toBe(
      false,
    );
    expect(await statusOf(id.token, '/api/v1/secrets')).toBe(403);
  });
});

describe('responsibility-check (its job hand-out) and deployer-mock', () => {
  const NS = 'rbac-deployers';
  const FN = 'deployer-mock';

  it('hand out and finish a job with only their ClusterRoles, and cannot delete DeployItems', async () => {
    const trig = await identity('responsibility-check');
    const mock = await identity('deployer-mock');
    const { log, lines } = capturingLogger('deployers');
    await ensureNamespace(NS);
    await admin.create(GVK.Pod, {
      metadata: { name: 'replica-a', namespace: SYSTEM },
      spec: { containers: [{ name: 'fn', image: 'fn' }] },
    });
    await admin.create(GVK.DeployItem, {
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'DeployItem',
      metadata: { name: 'ok', namespace: NS },
      spec: {
        type: 'landscaper.gardener.cloud/mock',
        config: {
          apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
          kind: 'ProviderConfiguration',
          providerStatus: { key: 'v' },
          export: { answer: 42 },
        },
      },
    });
    const triggered = await triggerJob(
      { client: trig.client, now: () => new Date(), newId: randomUUID, log },
      { ensureDefaultContext: true },
      { namespace: NS, name: 'ok' },
    );
    expect(triggered).toBe('Created');

    const plugin = createMockDeployer();
    const instance = createDeployerInstance(FN, plugin, {
      env: () => ({
        KUBECONFIG: mock.kubeconfig,
        REDIS_URL: redis.url,
        POD_NAME: 'replica-a',
        POD_NAMESPACE: SYSTEM,
      }),
      log,
    });
    try {
      const outcome = await runDeployerEvent(FN, plugin, instance, {
        type: 'dev.landscape.deployitem.reconcile',
        deployertype: 'mock',
        namespace: NS,
        name: 'ok',
      });
      expect(outcome).toBe('finished');
    } finally {
      await instance.close();
    }
    const item = await admin.get<DeployItem>(GVK.DeployItem, NS, 'ok');
    expect(item.status).toMatchObject({ phase: 'Succeeded', providerStatus: { key: 'v' } });
    expect(item.status?.jobIDFinished).toBe(item.status?.jobID);
    expect(await admin.get(GVK.Secret, NS, item.status!.exportRef!.name)).toBeDefined();
    expect(forbiddenLines(lines)).toEqual([]);

    const deployItems = `/apis/landscaper.gardener.cloud/v1alpha1/namespaces/${NS}/deployitems/ok`;
    for (const id of [trig, mock]) {
      expect(
        await can(id.token, {
          verb: 'delete',
          group: 'landscaper.gardener.cloud',
          resource: 'deployitems',
          namespace: NS,
        }),
      ).toBe(false);
      expect(await statusOf(id.token, deployItems, 'DELETE')).toBe(403);
    }
    expect(await can(trig.token, { verb: 'get', resource: 'secrets', namespace: NS })).toBe(false);
    expect(await can(mock.token, { verb: 'list', resource: 'secrets' })).toBe(false);
  });
});

describe('responsibility-check', () => {
  const NS = 'rbac-check';
  const CONFIG = `deployers:
  - name: mock
    type: landscaper.gardener.cloud/mock
    targetSelectors:
      - annotations: [{key: landscaper.gardener.cloud/environment, operator: "=", values: [dev]}]
`;

  it('hands out the job, then decides the responsible deployer, with only its ClusterRole; cannot delete DeployItems', async () => {
    const id = await identity('responsibility-check');
    const { log, lines } = capturingLogger('responsibility-check');
    await ensureNamespace(NS);
    await admin.create(GVK.Target, {
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'Target',
      metadata: {
        name: 'dev',
        namespace: NS,
        annotations: { 'landscaper.gardener.cloud/environment': 'dev' },
      },
      spec: { type: 'landscaper.gardener.cloud/kubernetes-cluster', config: { kubeconfig: 'x' } },
    });
    // no deployer annotations: the job hand-out reads the full item and writes them, then the check
    // decides from them and reads the Target
    const created = await admin.create<DeployItem>(GVK.DeployItem, {
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'DeployItem',
      metadata: { name: 'item', namespace: NS },
      spec: { type: 'landscaper.gardener.cloud/mock', target: { name: 'dev' }, config: { a: 1 } },
    });
    const sent: Record<string, string>[] = [];
    const fetch: FetchLike = (_url, init) => {
      const headers = new Headers(init.headers);
      sent.push({
        type: headers.get('ce-type') ?? '',
        deployertype: headers.get('ce-deployertype') ?? '',
        uid: headers.get('ce-uid') ?? '',
      });
      return Promise.resolve(new Response(null, { status: 202 }));
    };
    const instance = createCheckInstance({
      env: () => ({ KUBECONFIG: id.kubeconfig, K_SINK: 'http://sink.invalid/', CONFIG_FILE: '/config.yaml' }),
      readFile: () => Promise.resolve(CONFIG),
      fetch,
      log,
    });
    try {
      const check = checkHandler(instance);
      const update = {
        type: 'dev.knative.apiserver.ref.update',
        kind: 'DeployItem',
        namespace: NS,
        name: 'item',
      };
      await check(update); // the job hand-out writes (annotations, job): the write's own event is checked
      expect(sent).toEqual([]);
      await check(update);
      // a resync (the deployers-resync ping) lists every DeployItem
      await check({
        type: 'dev.knative.sources.ping',
        source: '/apis/v1/namespaces/landscape-system/pingsources/deployers-resync',
      });
    } finally {
      await instance.close();
    }
    expect(sent[0]).toEqual({
      type: 'dev.landscape.deployitem.reconcile',
      deployertype: 'mock',
      uid: created.metadata?.uid,
    });
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(forbiddenLines(lines)).toEqual([]);

    const di = { group: 'landscaper.gardener.cloud', resource: 'deployitems', namespace: NS };
    const item = await admin.get<DeployItem>(GVK.DeployItem, NS, 'item');
    expect(item.status?.jobID).toBeTruthy();
    expect(await can(id.token, { verb: 'patch', ...di })).toBe(true);
    expect(await can(id.token, { verb: 'update', ...di, subresource: 'status' })).toBe(true);
    expect(await can(id.token, { verb: 'delete', ...di })).toBe(false);
    expect(await can(id.token, { verb: 'patch', ...di, subresource: 'status' })).toBe(false);
    expect(
      await can(id.token, {
        verb: 'patch',
        group: 'landscaper.gardener.cloud',
        resource: 'targets',
        namespace: NS,
      }),
    ).toBe(false);
    expect(await can(id.token, { verb: 'get', resource: 'secrets', namespace: NS })).toBe(false);
  });
});

describe('managedseed', () => {
  const seedSpec = {
    provider: { type: 'local', region: 'local' },
    networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
  };

  it('registers the Seed of a reconciled shoot with only its ClusterRole, and cannot create Shoots', async () => {
    const id = await identity('managedseed');
    const { log, lines } = capturingLogger('managedseed');
    await ensureNamespace('garden');
    const shoot = await admin.create<Shoot>(GVK.Shoot, {
      metadata: { name: 'rbac-ms-shoot', namespace: 'garden' },
      spec: { region: 'local', provider: { type: 'local' } },
    });
    await admin.patchStatus(
      GVK.Shoot,
      { namespace: 'garden', name: 'rbac-ms-shoot' },
      {
        status: {
          observedGeneration: shoot.metadata?.generation,
          lastOperation: { type: 'Create', state: 'Succeeded' },
        },
      },
    );
    await admin.create(GVK.ManagedSeed, {
      metadata: { name: 'rbac-ms', namespace: 'garden' },
      spec: { shoot: { name: 'rbac-ms-shoot' }, gardenlet: { config: { seedConfig: { spec: seedSpec } } } },
    });
    const instance = createManagedSeedInstance({
      env: () => ({ KUBECONFIG: id.kubeconfig, REDIS_URL: redis.url, CONFIG_FILE: '/config.yaml' }),
      readFile: () => Promise.resolve('waitSyncPeriod: 15s\nerrorBackoff: {min: 2s, max: 1m}\n'),
      log,
    });
    const apiVersion = 'seedmanagement.gardener.cloud/v1alpha1';
    try {
      const outcome = await runManagedSeedEvent(instance, {
        specversion: '1.0',
        id: randomUUID(),
        source: 'https://apiserver',
        type: 'dev.knative.apiserver.ref.add',
        kind: 'ManagedSeed',
        apiversion: apiVersion,
        namespace: 'garden',
        name: 'rbac-ms',
        data: { kind: 'ManagedSeed', namespace: 'garden', name: 'rbac-ms', apiVersion },
      });
      expect(outcome).toEqual(['registered']);
    } finally {
      await instance.close();
    }
    const ms = await admin.get<ManagedSeed>(GVK.ManagedSeed, 'garden', 'rbac-ms');
    expect(ms.status?.conditions?.find((c) => c.type === 'SeedRegistered')).toMatchObject({ status: 'True' });
    expect((await admin.get<Seed>(GVK.Seed, undefined, 'rbac-ms')).metadata?.name).toBe('rbac-ms');
    expect(forbiddenLines(lines)).toEqual([]);

    const shoots = { group: 'core.gardener.cloud', resource: 'shoots', namespace: 'garden' };
    expect(await can(id.token, { verb: 'create', ...shoots })).toBe(false);
    expect(await can(id.token, { verb: 'patch', ...shoots })).toBe(false);
    expect(await statusOf(id.token, '/api/v1/namespaces/garden/secrets')).toBe(403);
  });
});

describe('probe-tick', () => {
  const NS = 'shoot--rbac--a';
  const NODES = ['rbac-node-a', 'rbac-node-b', 'rbac-node-c'];
  const CONFIG = `kubeConfigSecretName: dwd-api-server-probe-secret
probeInterval: 200ms
initialDelay: 0s
probeTimeout: 2s
backoffJitterFactor: 0
kcmNodeMonitorGraceDuration: 4s
dependentResourceInfos:
  - ref: {kind: Deployment, name: kube-controller-manager, apiVersion: apps/v1}
    scaleUp: {level: 0}
    scaleDown: {level: 1}
  - ref: {kind: Deployment, name: machine-controller-manager, apiVersion: apps/v1}
    scaleUp: {level: 1}
    scaleDown: {level: 0}
`;
  const deployment = (name: string): Record<string, unknown> => ({
    metadata: { name, namespace: NS, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  });

  it('scales the dependents of a shoot with expired leases with only its ClusterRole, and reads no other Secret', async () => {
    const id = await identity('probe-tick');
    const { log, lines } = capturingLogger('probe-tick');
    // the "shoot" is this same cluster, reached with the admin kubeconfig of the probe Secret: the
    // Role under test is the seed side's
    await ensureNamespace(NS);
    await admin.create(GVK.Secret, {
      metadata: { name: 'dwd-api-server-probe-secret', namespace: NS },
      data: { kubeconfig: Buffer.from(srv.cluster().kubeconfigYaml()).toString('base64') },
    });
    for (const name of ['kube-controller-manager', 'machine-controller-manager'])
      await admin.create(GVK.Deployment, deployment(name));
    const micro = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z'); // MicroTime
    const expired = micro(Date.now() - 3_600_000);
    for (const [i, node] of NODES.entries()) {
      await admin.create(GVK.Node, {
        metadata: { name: node, labels: { 'worker.gardener.cloud/pool': 'pool' } },
      });
      await admin.create(GVK.Lease, {
        metadata: { name: node, namespace: 'kube-node-lease' },
        spec: { holderIdentity: node, renewTime: i < 2 ? expired : micro(Date.now()) },
      });
      await admin.create(GVK.Machine, {
        metadata: { name: `m-${node}`, namespace: NS, labels: { node } },
        spec: {},
      });
    }
    await admin.create(GVK.Cluster, {
      metadata: { name: NS },
      spec: {
        cloudProfile: { raw: {} },
        seed: { raw: {} },
        shoot: {
          metadata: { name: 'a', namespace: 'garden-rbac' },
          spec: { region: 'local', provider: { type: 'local', workers: [{ name: 'pool' }] } },
          status: { lastOperation: { type: 'Reconcile', state: 'Succeeded' } },
        },
      },
    });
    const instance = createProbeTickInstance({
      env: () => ({
        KUBECONFIG: id.kubeconfig,
        REDIS_URL: redis.url,
        CONFIG_FILE: '/p.yaml',
        PROBE_TICK_SPAN: '0s',
      }),
      readFile: () => Promise.resolve(CONFIG),
      log,
    });
    const replicas = async (name: string): Promise<number> =>
      (await admin.get<{ metadata: { name: string }; spec: { replicas: number } }>(GVK.Deployment, NS, name))
        .spec.replicas;
    try {
      const end = Date.now() + 15_000;
      while ((await replicas('kube-controller-manager')) !== 0 && Date.now() < end) {
        await runProbeTick(instance);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await instance.close();
    }
    expect(await replicas('machine-controller-manager')).toBe(0);
    expect(await replicas('kube-controller-manager')).toBe(0);
    expect(lines.some((l) => l.includes('Lease probe failed'))).toBe(true);
    expect(forbiddenLines(lines)).toEqual([]);

    expect(await can(id.token, { verb: 'get', resource: 'secrets', namespace: NS, name: 'other' })).toBe(
      false,
    );
    expect(await statusOf(id.token, `/api/v1/namespaces/${NS}/secrets`)).toBe(403);
    expect(
      await can(id.token, { verb: 'delete', group: 'apps', resource: 'deployments', namespace: NS }),
    ).toBe(false);
  });
});
