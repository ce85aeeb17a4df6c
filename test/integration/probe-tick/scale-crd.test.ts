/**
 * probe-tick scales a dependent of a custom kind: a CRD with a scale subresource
 * (`subresources.scale`, a machinedeployments-like `widgets.example.com`) installed in the seed is
 * found through the seed's discovery (functions/probe-tick/discovery.ts, as upstream's RESTMapper)
 * and scaled down with the Deployment dependents when the node leases expire, then up again; a
 * dependent of a kind the seed serves without a scale subresource fails its level by name.
 * Embedded API server (seed + shoot) and a private redis-server, as probe-tick.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK, type GroupVersionKind } from '../../../shared/api/gvk.js';
import { createLogger } from '../../../shared/log/index.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { createProbeTickInstance, runProbeTick } from '../../../functions/probe-tick/handler.js';
import { clusterObject } from '../../support/cluster-object.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'shoot--p--crd';
const REPLICAS = 'dependency-watchdog.gardener.cloud/replicas';
const NODES = ['node-a', 'node-b'];
const WIDGET: GroupVersionKind = {
  group: 'example.com',
  version: 'v1',
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};
const GADGET: GroupVersionKind = { ...WIDGET, kind: 'Gadget', plural: 'gadgets' };

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
  - ref: {kind: Widget, name: machine-widget, apiVersion: example.com/v1}
    scaleUp: {level: 1}
    scaleDown: {level: 0}
`;

let srv: ApiServer;
let redis: TestRedis;
let dir: string;
let seed: KubeClient;
let shoot: KubeClient;
let lines: Record<string, unknown>[] = [];
const instances: ReturnType<typeof createProbeTickInstance>[] = [];

function crd(plural: string, kind: string, scale: boolean): Record<string, unknown> {
  const replicas = { type: 'integer' };
  return {
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { replicas } },
                status: { type: 'object', properties: { replicas, readyReplicas: replicas } },
              },
            },
          },
          subresources: scale
            ? {
                status: {},
                scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
              }
            : { status: {} },
        },
      ],
    },
  };
}

function instance(config: string): ReturnType<typeof createProbeTickInstance> {
  const log = createLogger({
    name: 'probe-tick',
    level: 'debug',
    destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
  });
  const i = createProbeTickInstance({
    env: () => ({
      KUBECONFIG: join(dir, 'kubeconfig'),
      REDIS_URL: redis.url,
      CONFIG_FILE: '/probe-tick.yaml',
      PROBE_TICK_SPAN: '0s',
    }),
    readFile: () => Promise.resolve(config),
    log,
  });
  instances.push(i);
  return i;
}

async function renewLeases(ageMs: number): Promise<void> {
  const renewTime = new Date(Date.now() - ageMs).toISOString().replace(/Z$/, '000Z');
  for (const name of NODES) {
    await shoot.mergePatch(GVK.Lease, { namespace: 'kube-node-lease', name }, { spec: { renewTime } });
  }
}

async function replicasOf(gvk: GroupVersionKind, name: string): Promise<number> {
  return (await seed.get<{ metadata: { name: string }; spec: { replicas: number } }>(gvk, NS, name)).spec
    .replicas;
}

async function tickUntil(
  i: ReturnType<typeof createProbeTickInstance>,
  done: () => boolean | Promise<boolean>,
): Promise<void> {
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    await runProbeTick(i);
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not reached');
}

beforeAll(async () => {
  srv = await startApiServer({
    crdFiles: crdFiles(),
    clusters: ['seed', 'shoot'],
    workloads: { delayMs: 50 },
  });
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'probe-tick-crd-'));
  await writeFile(join(dir, 'kubeconfig'), srv.cluster('seed').kubeconfigYaml());
  seed = createKubeClient(kubeConfigFromYaml(srv.cluster('seed').kubeconfigYaml()));
  shoot = createKubeClient(kubeConfigFromYaml(srv.cluster('shoot').kubeconfigYaml()));
  await seed.create(GVK.CustomResourceDefinition, crd('widgets', 'Widget', true));
  await seed.create(GVK.CustomResourceDefinition, crd('gadgets', 'Gadget', false));
  await seed.create(GVK.Namespace, { metadata: { name: NS } });
  await seed.create(GVK.Secret, {
    metadata: { name: 'dwd-api-server-probe-secret', namespace: NS },
    data: { kubeconfig: Buffer.from(srv.cluster('shoot').kubeconfigYaml()).toString('base64') },
  });
  const labels = { app: 'kcm' };
  await seed.create(GVK.Deployment, {
    metadata: { name: 'kube-controller-manager', namespace: NS, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  });
  await seed.create(WIDGET, {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'machine-widget', namespace: NS },
    spec: { replicas: 3 },
  });
  await seed.create(GADGET, {
    apiVersion: 'example.com/v1',
    kind: 'Gadget',
    metadata: { name: 'g', namespace: NS },
    spec: { replicas: 1 },
  });
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
  await seed.create(GVK.Cluster, clusterObject(NS, { shoot: 'crd' }));
}, 30_000);

afterAll(async () => {
  for (const i of instances) await i.close();
  await redis?.stop();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  lines = [];
});

it('expired leases: the custom kind (level 0) is scaled to 0 through its scale subresource, then KCM', async () => {
  const i = instance(CONFIG);
  await renewLeases(60_000);
  await tickUntil(i, async () => (await replicasOf(GVK.Deployment, 'kube-controller-manager')) === 0);
  const widget = await seed.get<{
    metadata: { name: string; annotations?: Record<string, string> };
    spec: { replicas: number };
  }>(WIDGET, NS, 'machine-widget');
  expect(widget.spec.replicas).toBe(0);
  expect(widget.metadata.annotations?.[REPLICAS]).toBe('3');
  const scaled = lines
    .filter((l) => l.msg === 'Successfully scaled resource')
    .map((l) => `${String(l.resource)}=${String(l.replicas)}`);
  expect(scaled).toEqual(['machine-widget=0', 'kube-controller-manager=0']);
  const events = await seed.list<{
    metadata: { name: string };
    involvedObject: { kind: string; name: string };
    reason: string;
  }>(GVK.Event, NS);
  expect(events.items).toContainEqual(
    expect.objectContaining({
      reason: 'ScaledDown',
      involvedObject: expect.objectContaining({ kind: 'Widget', name: 'machine-widget' }),
    }),
  );
});

it('renewed leases: KCM, then the custom kind back to its former 3 replicas once it reports them ready', async () => {
  const i = instance(CONFIG);
  await renewLeases(0);
  // the widget's "controller": reports its replicas ready as the scale-up wait reads status.readyReplicas
  await tickUntil(i, async () => {
    const replicas = await replicasOf(WIDGET, 'machine-widget');
    if (replicas > 0) {
      await seed.patchStatus(
        WIDGET,
        { namespace: NS, name: 'machine-widget' },
        { status: { replicas, readyReplicas: replicas } },
      );
    }
    return (
      replicas === 3 &&
      lines.some(
        (l) => String(l.msg).includes('Successfully scaled resource') && l.resource === 'machine-widget',
      )
    );
  });
  expect(await replicasOf(GVK.Deployment, 'kube-controller-manager')).toBe(1);
  const widget = await seed.get<{ metadata: { name: string; annotations?: Record<string, string> } }>(
    WIDGET,
    NS,
    'machine-widget',
  );
  expect(widget.metadata.annotations?.[REPLICAS]).toBeUndefined();
});

it('a dependent of a kind without a scale subresource fails its level, naming why', async () => {
  const i = instance(CONFIG.replace('kind: Widget, name: machine-widget', 'kind: Gadget, name: g'));
  await renewLeases(60_000);
  await tickUntil(i, () => lines.some((l) => String(l.msg).includes('has no scale subresource')));
  const failed = lines.find((l) => String(l.msg).includes('has no scale subresource'))!;
  expect(String(failed.msg)).toContain(
    'gadgets.example.com (kind "Gadget" in version "example.com/v1") has no scale subresource',
  );
  expect(await replicasOf(GADGET, 'g')).toBe(1);
  expect(await replicasOf(GVK.Deployment, 'kube-controller-manager')).toBe(1);
});
