/**
 * The activator's Pod writes against the embedded API server with every request dropped for a
 * while (the connection cut, a write applied first half of the time): they are retried until they
 * hold, as a ReplicaSet controller and a kubelet retry theirs. A lost delete left a dead replica's
 * Pod behind, and with it every SyncObject lock it held (liveness reads the Pod): the api-drop
 * drill found a deleted DeployItem locked for ever by such a replica.
 */
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import {
  createKubeClient,
  isNotFound,
  kubeConfigFromYaml,
  type KubeClient,
} from '../../../shared/kube/index.js';
import type { Logger } from '../../../shared/log/index.js';
import { ApiPods } from '../../../local/activator/pods.js';
import type { FunctionService } from '../../../local/activator/services.js';
import { until } from '../../support/timing.js';

const NS = 'landscape-system';

const service: FunctionService = {
  name: 'deployer-mock',
  namespace: NS,
  revision: 'deployer-mock-00001',
  containerConcurrency: 0,
  maxScale: 0,
  minScale: 0,
  target: 10,
  windowMs: 60_000,
  timeoutSeconds: 60,
  env: [],
};

const warnings: string[] = [];
const log: Logger = {
  name: 'test',
  level: 'info',
  debug: () => undefined,
  info: () => undefined,
  warn: (msg) => void warnings.push(msg),
  error: (msg) => void warnings.push(msg),
  isLevelEnabled: () => true,
  child: () => log,
};

let srv: ApiServer;
let client: KubeClient;
let pods: ApiPods;

beforeAll(async () => {
  srv = await startApiServer({ clusters: ['main'] });
  const kubeConfig = kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml());
  client = createKubeClient(kubeConfig, { fieldManager: 'pods-test' });
  pods = new ApiPods({ kubeConfig, log, onDeleted: () => undefined });
  await pods.ensureNamespace(NS);
});

afterEach(() => {
  srv.cluster('main').faults.set(undefined);
  warnings.length = 0;
});

afterAll(async () => {
  await pods?.stop();
  await srv?.stop();
});

const drops = (): number => srv.cluster('main').faults.counts().drop;

function dropEverything(): void {
  srv.cluster('main').faults.set({ share: 1, kinds: ['drop'] });
}

async function podOf(name: string): Promise<{ status?: { phase?: string } } | undefined> {
  try {
    return (await client.get(GVK.Pod, NS, name)) as { status?: { phase?: string } };
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

it('a create whose requests are dropped is retried until the Pod is there and Running', async () => {
  const name = 'deployer-mock-00001-deployment-bcdfghjklm-aaaaa';
  dropEverything();
  let done = false;
  const created = pods.created(service, name, 4242).then(() => (done = true));
  await until('three dropped tries', () => (drops() >= 3 ? true : undefined), { intervalMs: 20 });
  expect(done).toBe(false);
  srv.cluster('main').faults.set(undefined);
  await created;
  expect((await podOf(name))?.status?.phase).toBe('Running');
  expect(warnings).toContain(`create Pod ${NS}/${name}: retrying`);
});

it('a delete whose requests are dropped is retried until the Pod is gone', async () => {
  const name = 'deployer-mock-00001-deployment-bcdfghjklm-bbbbb';
  await pods.created(service, name, 4243);
  expect(await podOf(name)).toBeDefined();
  dropEverything();
  let done = false;
  const deleted = pods.deleted(service, name).then(() => (done = true));
  await until('three dropped tries', () => (drops() >= 3 ? true : undefined), { intervalMs: 20 });
  expect(done).toBe(false);
  srv.cluster('main').faults.set(undefined);
  await deleted;
  expect(await podOf(name)).toBeUndefined();
  expect(warnings).toContain(`delete Pod ${NS}/${name}: retrying`);
});

it('a replica gone while its create still retries leaves no Pod behind', async () => {
  const name = 'deployer-mock-00001-deployment-bcdfghjklm-ccccc';
  dropEverything();
  const created = pods.created(service, name, 4244);
  await until('two dropped tries', () => (drops() >= 2 ? true : undefined), { intervalMs: 20 });
  const deleted = pods.deleted(service, name);
  srv.cluster('main').faults.set(undefined);
  await Promise.all([created, deleted]);
  expect(await podOf(name)).toBeUndefined();
});
