/**
 * A Target with `spec.secretRef` (upstream's recommended form: the kubeconfig in a Secret of the
 * Target's namespace, not in the Target) through the deployer host with the manifest deployer,
 * against the embedded API server (host + a target cluster) and a private redis-server:
 * - the Secret missing: the job stays Progressing with lastError TargetSecretNotFound naming the
 *   Secret, a Warning Event, and a requeue (not Failed); then the key missing, named likewise;
 * - the Secret completed: the same job ends Succeeded and its object exists in the target cluster;
 * - a bare kubeconfig under the key (not the Target content upstream expects): Failed InvalidTarget
 *   with a message saying what the value must be; no secret in any status or Event.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import type { DeployItem } from '../../../shared/api/landscaper.js';
import { createLogger } from '../../../shared/log/index.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { pending } from '../../../shared/requeue/index.js';
import { lazyRedis, type RedisHandle } from '../../../shared/redis/index.js';
import {
  createDeployerInstance,
  runDeployerEvent,
  type DeployerConfig,
  type DeployerInstanceDeps,
} from '../../../shared/deployer/host/function.js';
import type { FunctionInstance } from '../../../shared/function/index.js';
import { createManifestDeployer } from '../../../functions/deployer-manifest/deployer.js';
import { triggerJob } from '../../../functions/responsibility-check/jobs.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'secretref-test';
const FN = 'deployer-manifest';
const plugin = createManifestDeployer();
const log = createLogger({ name: 'test', level: 'error' });
const b64 = (s: string): string => Buffer.from(s).toString('base64');

let srv: ApiServer;
let redisServer: TestRedis;
let redis: RedisHandle;
let dir: string;
let host: KubeClient;
let target: KubeClient;
let targetKubeconfig: string;
let instance: FunctionInstance<DeployerConfig, DeployerInstanceDeps>;

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main', 'target'] });
  redisServer = await startRedis();
  redis = lazyRedis({ url: redisServer.url });
  dir = await mkdtemp(join(tmpdir(), 'target-secretref-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('main').kubeconfigYaml());
  host = createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()), { fieldManager: 'test' });
  targetKubeconfig = srv.cluster('target').kubeconfigYaml();
  target = createKubeClient(kubeConfigFromYaml(targetKubeconfig));
  for (const name of [NS, 'landscape-system']) await host.create(GVK.Namespace, { metadata: { name } });
  await host.create(GVK.Pod, {
    metadata: { name: 'replica-a', namespace: 'landscape-system' },
    spec: { containers: [{ name: 'fn', image: 'fn' }] },
  });
  instance = createDeployerInstance(FN, plugin, {
    env: () => ({
      KUBECONFIG: kubeconfig,
      REDIS_URL: redisServer.url,
      POD_NAME: 'replica-a',
      POD_NAMESPACE: 'landscape-system',
    }),
    log,
  });
}, 30_000);

afterAll(async () => {
  await instance?.close();
  await redis?.close();
  await redisServer?.stop();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

const reconcile = (name: string): ReturnType<typeof runDeployerEvent> =>
  runDeployerEvent(FN, plugin, instance, {
    type: 'dev.landscape.deployitem.reconcile',
    deployertype: 'manifest',
    namespace: NS,
    name,
  });

const get = (name: string): Promise<DeployItem> => host.get<DeployItem>(GVK.DeployItem, NS, name);

async function createItem(name: string, targetName: string): Promise<void> {
  await host.create(GVK.Target, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'Target',
    metadata: { name: targetName, namespace: NS },
    spec: {
      type: 'landscaper.gardener.cloud/kubernetes-cluster',
      secretRef: { name: `${targetName}-access`, key: 'cluster1' },
    },
  });
  await host.create(GVK.DeployItem, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name, namespace: NS },
    spec: {
      type: 'landscaper.gardener.cloud/kubernetes-manifest',
      target: { name: targetName },
      config: {
        apiVersion: 'manifest.deployer.landscaper.gardener.cloud/v1alpha2',
        kind: 'ProviderConfiguration',
        manifests: [
          {
            policy: 'manage',
            manifest: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name, namespace: 'default' },
              data: { a: '1' },
            },
          },
        ],
      },
    },
  });
  await triggerJob(
    { client: host, now: () => new Date(), newId: () => crypto.randomUUID(), log },
    { ensureDefaultContext: true },
    { namespace: NS, name },
  );
}

async function warnings(name: string): Promise<{ reason: string; message: string }[]> {
  const events = await host.list<{
    metadata: { name: string };
    type: string;
    reason: string;
    message: string;
    involvedObject: { name: string };
  }>(GVK.Event, NS);
  return events.items.filter((e) => e.type === 'Warning' && e.involvedObject.name === name);
}

it('a missing Secret, then a missing key: Progressing, named in lastError and an Event, requeued; then Succeeded', async () => {
  await createItem('app', 'shoot');
  expect(await reconcile('app')).toBe('retrying');
  let item = await get('app');
  expect(item.status?.phase).toBe('Progressing');
  expect(item.status?.jobIDFinished).toBeUndefined();
  expect(item.status?.lastError).toMatchObject({
    operation: 'Reconcile',
    reason: 'TargetSecretNotFound',
    message: `target ${NS}/shoot: spec.secretRef: secret ${NS}/shoot-access not found`,
  });
  expect(item.status?.lastError?.codes ?? []).toEqual([]);
  expect(await warnings('app')).toContainEqual(
    expect.objectContaining({
      reason: 'TargetSecretNotFound',
      message: expect.stringContaining(`secret ${NS}/shoot-access not found`),
    }),
  );
  expect((await pending(await redis.get(), FN)).map((q) => q.name)).toContain('app');

  await host.create(GVK.Secret, {
    metadata: { name: 'shoot-access', namespace: NS },
    data: { other: b64('x') },
  });
  expect(await reconcile('app')).toBe('retrying');
  item = await get('app');
  expect(item.status?.phase).toBe('Progressing');
  expect(item.status?.lastError?.message).toContain(
    `key cluster1 in secret ${NS}/shoot-access does not exist`,
  );

  await host.mergePatch(
    GVK.Secret,
    { namespace: NS, name: 'shoot-access' },
    { data: { cluster1: b64(stringify({ kubeconfig: targetKubeconfig })) } },
  );
  expect(await reconcile('app')).toBe('finished');
  item = await get('app');
  expect(item.status?.phase).toBe('Succeeded');
  expect(item.status?.jobIDFinished).toBe(item.status?.jobID);
  expect(item.status?.lastError).toBeUndefined();
  const cm = await target.get<{ metadata: { name: string }; data: Record<string, string> }>(
    GVK.ConfigMap,
    'default',
    'app',
  );
  expect(cm.data).toEqual({ a: '1' });
});

it('a bare kubeconfig under the key: Failed InvalidTarget saying what the value must be, no secret leaked', async () => {
  await host.create(GVK.Secret, {
    metadata: { name: 'bare-access', namespace: NS },
    data: { cluster1: b64(targetKubeconfig) },
  });
  await createItem('bare', 'bare');
  expect(await reconcile('bare')).toBe('finished');
  const item = await get('bare');
  expect(item.status?.phase).toBe('Failed');
  expect(item.status?.lastError).toMatchObject({
    reason: 'InvalidTarget',
    codes: ['ERR_CONFIGURATION_PROBLEM'],
  });
  expect(item.status?.lastError?.message).toContain('is a kubeconfig itself');
  const token = srv.cluster('target').token;
  expect(targetKubeconfig).toContain(token);
  expect(JSON.stringify([item.status, await warnings('bare')])).not.toContain(token);
  await expect(target.get(GVK.ConfigMap, 'default', 'bare')).rejects.toMatchObject({ code: 404 });
});
