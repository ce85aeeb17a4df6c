/**
 * The weeder function's handler against the embedded API server and a private redis-server:
 * an EndpointSlice turning ready opens the window, deletes the service's CrashLoopBackOff
 * dependants and requeues the next sweep; each requeue inside the window lists the dependants
 * again and deletes those that started crash-looping; pods with other labels, in other namespaces
 * or after the window are not touched; Endpoints and Pod events are ignored (the source sends
 * EndpointSlices only).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import { createLogger } from '../../../shared/log/index.js';
import {
  createKubeClient,
  isNotFound,
  kubeConfigFromYaml,
  type KubeClient,
} from '../../../shared/kube/index.js';
import { createWeederInstance, runWeederEvent } from '../../../functions/weeder/handler.js';
import { Redis } from 'ioredis';
import { pending } from '../../../shared/requeue/index.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { crdFiles } from '../../../shared/api/crds.js';

const CONFIG = `watchDuration: 1500ms
servicesAndDependantSelectors:
  kube-apiserver:
    podSelectors:
      - matchExpressions:
          - {key: role, operator: In, values: [controller-manager]}
  etcd-main-client:
    podSelectors:
      - matchLabels: {role: apiserver}
`;

let srv: ApiServer;
let redis: TestRedis;
let dir: string;
let client: KubeClient;
let instance: ReturnType<typeof createWeederInstance>;

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['seed'] });
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'weeder-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('seed').kubeconfigYaml());
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('seed').kubeconfigYaml()));
  for (const name of ['shoot--a', 'shoot--b', 'shoot--c', 'shoot--d'])
    await client.create(GVK.Namespace, { metadata: { name } });
  instance = createWeederInstance({
    env: () => ({ KUBECONFIG: kubeconfig, REDIS_URL: redis.url, CONFIG_FILE: '/weeder.yaml' }),
    readFile: () => Promise.resolve(CONFIG),
    log: createLogger({ name: 'test', level: 'error' }),
  });
}, 30_000);

afterAll(async () => {
  await instance?.close();
  await redis?.stop();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function pod(
  namespace: string,
  name: string,
  labels: Record<string, string>,
  reason?: string,
): Promise<Record<string, unknown>> {
  await client.create(GVK.Pod, {
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: 'c', image: 'i' }] },
  });
  const state = reason ? { waiting: { reason } } : { running: { startedAt: new Date().toISOString() } };
  return client.patchStatus(
    GVK.Pod,
    { namespace, name },
    {
      status: {
        phase: 'Running',
        containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: false, restartCount: 3, state }],
      },
    },
  );
}

async function exists(namespace: string, name: string): Promise<boolean> {
  try {
    await client.get(GVK.Pod, namespace, name);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

const slice = (namespace: string, ready: boolean): Record<string, unknown> => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {
    name: 'kube-apiserver-x1',
    namespace,
    labels: { 'kubernetes.io/service-name': 'kube-apiserver' },
  },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready } }],
});

const event = (action: string, data: Record<string, unknown>): Record<string, unknown> => ({
  type: `dev.knative.apiserver.resource.${action}`,
  kind: data.kind,
  namespace: (data.metadata as { namespace: string }).namespace,
  name: (data.metadata as { name: string }).name,
  data,
});

/** The requeue ticker's event for a sweep of `service`'s window in `namespace`. */
const requeued = (namespace: string, service: string): Record<string, unknown> => ({
  type: 'dev.landscape.requeue',
  target: 'weeder',
  kind: 'Service',
  namespace,
  name: service,
});

async function queued(): Promise<string[]> {
  const r = new Redis(redis.url);
  try {
    return (await pending(r, 'weeder')).map((i) => `${i.namespace}/${i.name}`);
  } finally {
    r.disconnect();
  }
}

it('deletes crash-looping dependants when the service recovers, and those that crash-loop inside the window (a requeued sweep)', async () => {
  await pod('shoot--a', 'kcm-1', { role: 'controller-manager' }, 'CrashLoopBackOff');
  await pod('shoot--a', 'kcm-ok', { role: 'controller-manager' });
  await pod('shoot--a', 'other-1', { role: 'other' }, 'CrashLoopBackOff');
  await pod('shoot--b', 'kcm-b', { role: 'controller-manager' }, 'CrashLoopBackOff');

  expect(await runWeederEvent(instance, event('add', slice('shoot--a', false)))).toBe(0);
  expect(await exists('shoot--a', 'kcm-1')).toBe(true);
  expect(await runWeederEvent(instance, event('update', slice('shoot--a', true)))).toBe(1);
  expect(await exists('shoot--a', 'kcm-1')).toBe(false);
  expect(await exists('shoot--a', 'kcm-ok')).toBe(true);
  expect(await exists('shoot--a', 'other-1')).toBe(true);
  expect(await exists('shoot--b', 'kcm-b')).toBe(true);
  // ready → ready is no recovery
  expect(await runWeederEvent(instance, event('update', slice('shoot--a', true)))).toBe(0);

  // the recovery requeued its next sweep (1 s: a tenth of the window, at least a second)
  expect(await queued()).toContain('shoot--a/kube-apiserver');
  const later = await pod('shoot--a', 'kcm-2', { role: 'controller-manager' }, 'CrashLoopBackOff');
  // a Pod event does nothing (no Pod events on Knative: the source sends EndpointSlices only) ...
  expect(await runWeederEvent(instance, event('update', later))).toBe(0);
  expect(await exists('shoot--a', 'kcm-2')).toBe(true);
  // ... the requeued sweep lists it
  expect(await runWeederEvent(instance, requeued('shoot--a', 'kube-apiserver'))).toBe(1);
  expect(await exists('shoot--a', 'kcm-2')).toBe(false);
  await pod('shoot--b', 'kcm-b2', { role: 'controller-manager' }, 'CrashLoopBackOff');
  expect(await runWeederEvent(instance, requeued('shoot--b', 'kube-apiserver'))).toBe(0);
  expect(await exists('shoot--b', 'kcm-b2')).toBe(true);
  // a requeue of another function, or of a service not configured, does nothing
  expect(await runWeederEvent(instance, { ...requeued('shoot--a', 'kube-apiserver'), target: 'other' })).toBe(
    0,
  );
  expect(await runWeederEvent(instance, requeued('shoot--a', 'unknown'))).toBe(0);

  await new Promise((r) => setTimeout(r, 1600));
  await pod('shoot--a', 'kcm-3', { role: 'controller-manager' }, 'CrashLoopBackOff');
  expect(await runWeederEvent(instance, requeued('shoot--a', 'kube-apiserver'))).toBe(0);
  expect(await exists('shoot--a', 'kcm-3')).toBe(true);
}, 30_000);

it('a recovery whose sweep failed half-way is swept again when its event is delivered again, inside the window only', async () => {
  await runWeederEvent(instance, event('add', { ...slice('shoot--c', false) }));
  await pod('shoot--c', 'kcm-c', { role: 'controller-manager' }, 'CrashLoopBackOff');
  const cluster = srv.cluster('seed');
  cluster.faults.set({ share: 1, kinds: ['conflict'], writesOnly: true });
  const recovered = event('update', slice('shoot--c', true));
  await expect(runWeederEvent(instance, recovered)).rejects.toThrow(/409/);
  cluster.faults.set(undefined);
  expect(await exists('shoot--c', 'kcm-c')).toBe(true);
  // the broker delivers it again: the readiness was remembered, the window is open
  expect(await runWeederEvent(instance, recovered)).toBe(1);
  expect(await exists('shoot--c', 'kcm-c')).toBe(false);

  await new Promise((r) => setTimeout(r, 1600));
  await pod('shoot--c', 'kcm-c2', { role: 'controller-manager' }, 'CrashLoopBackOff');
  expect(await runWeederEvent(instance, recovered)).toBe(0);
  expect(await exists('shoot--c', 'kcm-c2')).toBe(true);
}, 30_000);

it('a recovery is seen whatever order its events arrive in (resourceVersions), and only once', async () => {
  const at = (ready: boolean, rv: string): Record<string, unknown> => {
    const s = slice('shoot--d', ready);
    return { ...s, metadata: { ...(s.metadata as object), resourceVersion: rv } };
  };
  const closeWindow = (): Promise<void> => new Promise((r) => setTimeout(r, 1600));
  await pod('shoot--d', 'kcm-d', { role: 'controller-manager' }, 'CrashLoopBackOff');
  // nothing remembered (Redis lost it): a ready slice counts as an add, as upstream after a restart
  expect(await runWeederEvent(instance, event('update', at(true, '20')))).toBe(1);
  expect(await exists('shoot--d', 'kcm-d')).toBe(false);
  // the add that saw it not ready arrives late: nothing more
  expect(await runWeederEvent(instance, event('add', at(false, '10')))).toBe(0);

  await closeWindow();
  await pod('shoot--d', 'kcm-d2', { role: 'controller-manager' }, 'CrashLoopBackOff');
  // ready → ready is no recovery ...
  expect(await runWeederEvent(instance, event('update', at(true, '40')))).toBe(0);
  expect(await exists('shoot--d', 'kcm-d2')).toBe(true);
  // ... until the not-ready in between arrives late: it proves the recovery
  expect(await runWeederEvent(instance, event('update', at(false, '30')))).toBe(1);
  expect(await exists('shoot--d', 'kcm-d2')).toBe(false);
  expect(await runWeederEvent(instance, event('update', at(false, '30')))).toBe(0);

  await closeWindow();
  await pod('shoot--d', 'kcm-d3', { role: 'controller-manager' }, 'CrashLoopBackOff');
  expect(await runWeederEvent(instance, event('update', at(false, '50')))).toBe(0);
  // both events of the next recovery at once, in either order: one recovery
  const both = await Promise.all([
    runWeederEvent(instance, event('update', at(true, '60'))),
    runWeederEvent(instance, event('update', at(false, '55'))),
  ]);
  expect(both.reduce((a, b) => a + b, 0)).toBe(1);
  expect(await exists('shoot--d', 'kcm-d3')).toBe(false);
}, 30_000);

it('ignores core Endpoints (the source sends EndpointSlices only)', async () => {
  await pod('shoot--b', 'api-1', { role: 'apiserver' }, 'CrashLoopBackOff');
  const endpoints = (ready: boolean): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'etcd-main-client', namespace: 'shoot--b' },
    subsets: [ready ? { addresses: [{ ip: '10.0.0.2' }] } : { notReadyAddresses: [{ ip: '10.0.0.2' }] }],
  });
  expect(await runWeederEvent(instance, event('add', endpoints(false)))).toBe(0);
  expect(await runWeederEvent(instance, event('update', endpoints(true)))).toBe(0);
  expect(await exists('shoot--b', 'api-1')).toBe(true);
});

it('ignores services it is not configured for', async () => {
  const unknown = {
    ...slice('shoot--a', true),
    metadata: { name: 'x', namespace: 'shoot--a', labels: { 'kubernetes.io/service-name': 'other' } },
  };
  expect(await runWeederEvent(instance, event('add', unknown))).toBe(0);
  expect(await exists('shoot--a', 'other-1')).toBe(true);
});
