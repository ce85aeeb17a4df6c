/**
 * managedseedset against the embedded API server and a private redis-server, events handed in as
 * the seed-management source (Reference mode) sends them; the test plays gardenlet (Shoot status,
 * ManagedSeed registration, the Seed). A set with replicas 2 creates `<set>-0`, its ManagedSeed
 * once the Shoot is reconciled, then `<set>-1`; scale-in deletes one deletable replica per pass and
 * keeps protected and non-empty ones ("no deletable replicas found" as a Warning Event when none is
 * left); a failed Shoot is retried up to 3 times; a set being deleted loses its replicas, then its
 * finalizer; a pass that finds the set held asks to be requeued.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import type { Seed, Shoot } from '../../../shared/api/core.js';
import type { ManagedSeed, ManagedSeedSet } from '../../../shared/api/seedmanagement.js';
import { createLogger } from '../../../shared/log/index.js';
import {
  createKubeClient,
  kubeConfigFromYaml,
  resourcePath,
  type KubeClient,
} from '../../../shared/kube/index.js';
import { pending, queueKey } from '../../../shared/requeue/index.js';
import {
  createManagedSeedSetInstance,
  runManagedSeedSetEvent,
} from '../../../functions/managedseedset/handler.js';
import { LOCKS } from '../../../functions/managedseedset/reconcile.js';
import type { PassResult } from '../../../functions/managedseedset/reconcile.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'garden';
const CONFIG =
  'syncPeriod: 30m\nmaxShootRetries: 3\nerrorRequeueDelay: 1m\nlockRetryDelay: 1s\nlogLevel: debug\n';
const LABELS = { app: 'seeds' };

let srv: ApiServer;
let redis: TestRedis;
let client: Redis;
let dir: string;
let kube: KubeClient;
let instance: ReturnType<typeof createManagedSeedSetInstance>;
const lines: Record<string, unknown>[] = [];

const log = createLogger({
  name: 'managedseedset',
  level: 'debug',
  destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
});

function managedSeedSet(name: string, replicas: number): ManagedSeedSet {
  return {
    apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
    kind: 'ManagedSeedSet',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { ...LABELS, set: name } },
      template: {
        metadata: { labels: { ...LABELS, set: name } },
        spec: {
          gardenlet: {
            config: {
              apiVersion: 'gardenlet.config.gardener.cloud/v1alpha1',
              kind: 'GardenletConfiguration',
              seedConfig: {
                metadata: { labels: { ...LABELS, set: name } },
                spec: {
                  provider: { type: 'local', region: 'local' },
                  networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
                  ingress: { domain: 'ingress.replica-name.seeds.local', controller: { kind: 'nginx' } },
                },
              },
            },
          },
        },
      },
      shootTemplate: {
        metadata: { labels: { ...LABELS, set: name } },
        spec: {
          region: 'local',
          provider: { type: 'local' },
          dns: { domain: 'replica-name.seeds.local' },
        },
      },
    },
  };
}

/** An API-server event (Reference mode) of an object. */
function event(
  kind: string,
  name: string,
  action: 'add' | 'update' | 'delete' = 'update',
  namespace = NS,
): object {
  const apiVersion = Object.values(GVK).find((g) => g.kind === kind)?.apiVersion ?? '';
  return {
    specversion: '1.0',
    id: `${kind}-${name}-${Math.random()}`,
    source: 'https://127.0.0.1',
    type: `dev.knative.apiserver.ref.${action}`,
    kind,
    apiversion: apiVersion,
    name,
    namespace,
    data: { kind, ...(namespace ? { namespace } : {}), name, apiVersion },
  };
}

const run = async (ce: object): Promise<PassResult> => {
  const results = await runManagedSeedSetEvent(instance, ce);
  expect(results).toHaveLength(1);
  return results[0];
};

const getSet = (name: string): Promise<ManagedSeedSet> =>
  kube.get<ManagedSeedSet>(GVK.ManagedSeedSet, NS, name);
const getShoot = (name: string): Promise<Shoot> => kube.get<Shoot>(GVK.Shoot, NS, name);

async function exists(gvk: typeof GVK.Shoot | typeof GVK.ManagedSeed, name: string): Promise<boolean> {
  return kube.get(gvk, NS, name).then(
    () => true,
    () => false,
  );
}

/** gardenlet's part: the Shoot's last operation at its current generation. */
async function markShoot(name: string, type: string, state: string, healthy = false): Promise<void> {
  const shoot = await getShoot(name);
  if (healthy) {
    await kube.mergePatch(
      GVK.Shoot,
      { namespace: NS, name },
      { metadata: { labels: { 'shoot.gardener.cloud/status': 'healthy' } } },
    );
  }
  await kube.patchStatus(
    GVK.Shoot,
    { namespace: NS, name },
    {
      status: {
        observedGeneration: shoot.metadata?.generation,
        lastOperation: {
          type,
          state,
          progress: state === 'Succeeded' ? 100 : 50,
          lastUpdateTime: new Date().toISOString(),
        },
      },
    },
  );
}

/** gardenlet's part: the ManagedSeed's Seed registered and ready, `allocatable` shoots. */
async function registerSeed(name: string, allocatable = 10): Promise<void> {
  const ms = await kube.get<ManagedSeed>(GVK.ManagedSeed, NS, name);
  const ready = (type: string): Record<string, string> => ({
    type,
    status: 'True',
    reason: 'Ready',
    message: 'ok',
    lastTransitionTime: new Date().toISOString(),
  });
  await kube.patchStatus(
    GVK.ManagedSeed,
    { namespace: NS, name },
    {
      status: {
        observedGeneration: ms.metadata?.generation,
        conditions: [ready('ShootReconciled'), ready('SeedRegistered')],
      },
    },
  );
  const seed = await kube.create<Seed>(GVK.Seed, {
    metadata: { name, labels: { ...LABELS } },
    spec: {
      provider: { type: 'local', region: 'local' },
      networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
    },
  });
  await kube.patchStatus(
    GVK.Seed,
    { name },
    {
      status: {
        observedGeneration: seed.metadata?.generation,
        allocatable: { shoots: allocatable },
        conditions: [ready('GardenletReady'), ready('SeedSystemComponentsHealthy')],
      },
    },
  );
}

/** A replica whose Shoot was just created, driven to ready: the pass after that moves the set on. */
async function makeReady(name: string): Promise<PassResult> {
  await markShoot(name, 'Create', 'Succeeded', true);
  expect(await run(event('Shoot', name))).toMatchObject({ replica: { name, step: 'create-managed-seed' } });
  expect((await kube.get<ManagedSeed>(GVK.ManagedSeed, NS, name)).spec.shoot).toEqual({ name });
  expect(await run(event('ManagedSeed', name, 'add'))).toMatchObject({
    replica: { name, step: 'wait-managed-seed-registered' },
  });
  await registerSeed(name);
  return run(event('Seed', name, 'add', ''));
}

async function eventsOf(set: string): Promise<{ type: string; reason: string; message: string }[]> {
  const list = await kube.list<{
    metadata: { name: string };
    type: string;
    reason: string;
    message: string;
    involvedObject: { name: string };
    firstTimestamp: string;
  }>(GVK.Event, NS);
  return list.items
    .filter((e) => e.involvedObject.name === set)
    .map(({ type, reason, message }) => ({ type, reason, message }));
}

async function scale(name: string): Promise<{ spec: { replicas: number }; status: { replicas: number } }> {
  const res = await kube.request({
    method: 'GET',
    path: resourcePath(GVK.ManagedSeedSet, { namespace: NS, name, subresource: 'scale' }),
  });
  return JSON.parse(res.body) as { spec: { replicas: number }; status: { replicas: number } };
}

async function setReplicas(name: string, replicas: number): Promise<void> {
  await kube.mergePatch(
    GVK.ManagedSeedSet,
    { namespace: NS, name },
    { spec: { replicas } },
    { subresource: 'scale' },
  );
}

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles() });
  redis = await startRedis();
  client = new Redis(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'managedseedset-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster().kubeconfigYaml());
  kube = createKubeClient(kubeConfigFromYaml(srv.cluster().kubeconfigYaml()));
  await kube.create(GVK.Namespace, { metadata: { name: NS } });
  instance = createManagedSeedSetInstance({
    env: () => ({ KUBECONFIG: kubeconfig, REDIS_URL: redis.url, CONFIG_FILE: '/managedseedset.yaml' }),
    readFile: () => Promise.resolve(CONFIG),
    log,
  });
}, 30_000);

afterAll(async () => {
  await instance?.close();
  client?.disconnect();
  await redis?.stop();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('scale-out', () => {
  it('creates <set>-0, its ManagedSeed once the Shoot is reconciled, then <set>-1', async () => {
    await kube.create(GVK.ManagedSeedSet, managedSeedSet('seeds', 2));
    const first = await run(event('ManagedSeedSet', 'seeds', 'add'));
    expect(first).toMatchObject({
      outcome: 'scale-out',
      replica: { name: 'seeds-0', step: 'create-shoot' },
      actions: ['add-finalizer', 'create-shoot'],
      requeueAfterMs: 1_800_000,
    });
    const shoot = await getShoot('seeds-0');
    expect(shoot.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'ManagedSeedSet', name: 'seeds', controller: true }),
    ]);
    expect(shoot.spec.dns?.domain).toBe('seeds-0.seeds.local');
    const set = await getSet('seeds');
    expect(set.metadata?.finalizers).toEqual(['gardener']);
    expect(set.status).toMatchObject({
      observedGeneration: 1,
      replicas: 1,
      readyReplicas: 0,
      nextReplicaNumber: 1,
      pendingReplica: { name: 'seeds-0', reason: 'ShootReconciling' },
    });
    expect(await exists(GVK.Shoot, 'seeds-1')).toBe(false);
    expect(await eventsOf('seeds')).toContainEqual({
      type: 'Normal',
      reason: 'CreatingShoot',
      message: 'Creating Shoot garden/seeds-0',
    });
    const queued = await pending(client, 'managedseedset');
    expect(queued).toContainEqual(
      expect.objectContaining({ kind: 'ManagedSeedSet', namespace: NS, name: 'seeds' }),
    );

    // its own status write comes back as an update: nothing new to do
    expect(await run(event('ManagedSeedSet', 'seeds'))).toMatchObject({ outcome: 'unchanged' });
    expect(await run(event('Shoot', 'seeds-0', 'add'))).toMatchObject({
      outcome: 'replica',
      replica: { name: 'seeds-0', step: 'wait-shoot-reconciled' },
      actions: [],
    });
    expect(await exists(GVK.ManagedSeed, 'seeds-0')).toBe(false);

    const next = await makeReady('seeds-0');
    expect(next).toMatchObject({ outcome: 'scale-out', replica: { name: 'seeds-1', step: 'create-shoot' } });
    expect(await exists(GVK.Shoot, 'seeds-1')).toBe(true);
    expect((await getSet('seeds')).status).toMatchObject({
      replicas: 2,
      readyReplicas: 1,
      nextReplicaNumber: 2,
    });
    expect(await scale('seeds')).toMatchObject({ spec: { replicas: 2 }, status: { replicas: 2 } });
  });

  it('goes idle once every replica is ready; a scale-up through the scale subresource adds the next', async () => {
    expect(await makeReady('seeds-1')).toMatchObject({ outcome: 'idle', actions: [] });
    expect((await getSet('seeds')).status).toMatchObject({ replicas: 2, readyReplicas: 2 });
    expect((await getSet('seeds')).status?.pendingReplica).toBeUndefined();
    await setReplicas('seeds', 3);
    expect(await run(event('ManagedSeedSet', 'seeds'))).toMatchObject({
      outcome: 'scale-out',
      replica: { name: 'seeds-2', step: 'create-shoot' },
    });
    expect(await makeReady('seeds-2')).toMatchObject({ outcome: 'idle' });
    expect(await scale('seeds')).toMatchObject({ spec: { replicas: 3 }, status: { replicas: 3 } });
  });
});

describe('scale-in', () => {
  it('deletes one deletable replica per pass, keeps protected and non-empty ones, then warns', async () => {
    await kube.mergePatch(
      GVK.ManagedSeed,
      { namespace: NS, name: 'seeds-0' },
      {
        metadata: { annotations: { 'seedmanagement.gardener.cloud/protect-from-deletion': 'true' } },
      },
    );
    await kube.create(GVK.Namespace, { metadata: { name: 'garden-dev' } });
    await kube.create<Shoot>(GVK.Shoot, {
      metadata: { name: 'workload', namespace: 'garden-dev' },
      spec: { region: 'local', provider: { type: 'local' }, seedName: 'seeds-1' },
    });
    await setReplicas('seeds', 1);

    // seeds-2 is the only deletable replica: its ManagedSeed first
    expect(await run(event('ManagedSeedSet', 'seeds'))).toMatchObject({
      outcome: 'scale-in',
      replica: { name: 'seeds-2', step: 'delete-managed-seed' },
      actions: ['delete-managed-seed'],
    });
    expect(await exists(GVK.ManagedSeed, 'seeds-2')).toBe(false);
    expect(await exists(GVK.Shoot, 'seeds-2')).toBe(true);
    // the ManagedSeed's delete event: now its Shoot, with the deletion confirmation
    expect(await run(event('ManagedSeed', 'seeds-2', 'delete'))).toMatchObject({
      outcome: 'replica',
      replica: { name: 'seeds-2', step: 'delete-shoot' },
    });
    expect(await exists(GVK.Shoot, 'seeds-2')).toBe(false);
    expect(await exists(GVK.Shoot, 'seeds-0')).toBe(true);
    expect(await exists(GVK.Shoot, 'seeds-1')).toBe(true);

    // the Shoot's delete event (mapped by its name): nothing deletable is left
    const none = await run(event('Shoot', 'seeds-2', 'delete'));
    expect(none).toMatchObject({
      outcome: 'error',
      error: 'no deletable replicas found',
      requeueAfterMs: 60_000,
    });
    expect(await eventsOf('seeds')).toContainEqual({
      type: 'Warning',
      reason: 'ReconcileError',
      message: 'no deletable replicas found',
    });
    expect((await getSet('seeds')).status).toMatchObject({ replicas: 2, readyReplicas: 2 });

    // the workload leaves seeds-1: it is deletable now
    await kube.delete(GVK.Shoot, { namespace: 'garden-dev', name: 'workload' });
    expect(await run(event('Seed', 'seeds-1', 'update', ''))).toMatchObject({
      outcome: 'scale-in',
      replica: { name: 'seeds-1', step: 'delete-managed-seed' },
    });
    expect(await exists(GVK.ManagedSeed, 'seeds-0')).toBe(true);
  });
});

describe('retries', () => {
  it('annotates a failed Shoot with gardener.cloud/operation=retry up to 3 times', async () => {
    await kube.create(GVK.ManagedSeedSet, managedSeedSet('retry', 1));
    expect(await run(event('ManagedSeedSet', 'retry', 'add'))).toMatchObject({ outcome: 'scale-out' });
    const steps: string[] = [];
    for (let i = 0; i < 4; i++) {
      await markShoot('retry-0', 'Create', 'Failed');
      const generation = (await getShoot('retry-0')).metadata?.generation ?? 0;
      const r = await run(event('Shoot', 'retry-0'));
      steps.push(r.replica?.step ?? r.outcome);
      if (r.replica?.step !== 'retry-shoot-reconcile') break;
      // gardener-apiserver's part (the embedded server plays it): the retry annotation of a failed
      // Shoot raises its generation and goes away, so the Shoot is reconciling again
      const retried = await getShoot('retry-0');
      expect(retried.metadata?.generation).toBe(generation + 1);
      expect(retried.metadata?.annotations?.['gardener.cloud/operation']).toBeUndefined();
      expect(await run(event('Shoot', 'retry-0'))).toMatchObject({
        replica: { name: 'retry-0', step: 'wait-shoot-reconciled' },
      });
    }
    expect(steps).toEqual([
      'retry-shoot-reconcile',
      'retry-shoot-reconcile',
      'retry-shoot-reconcile',
      'max-reconcile-retries',
    ]);
    expect((await getSet('retry')).status?.pendingReplica).toMatchObject({
      name: 'retry-0',
      reason: 'ShootReconcileFailed',
      retries: 3,
    });
    const events = await eventsOf('retry');
    expect(events.filter((e) => e.reason === 'RetryingShootReconciliation')).toHaveLength(3);
    expect(events).toContainEqual({
      type: 'Normal',
      reason: 'NotRetryingShootReconciliation',
      message: 'Not retrying Shoot garden/retry-0 reconciliation since max retries have been reached',
    });
  });

  it('a set being deleted loses its replicas, then its finalizer', async () => {
    await kube.delete(GVK.ManagedSeedSet, { namespace: NS, name: 'retry' });
    expect(await run(event('ManagedSeedSet', 'retry'))).toMatchObject({
      outcome: 'scale-in',
      replica: { name: 'retry-0', step: 'delete-shoot' },
    });
    expect(await exists(GVK.Shoot, 'retry-0')).toBe(false);
    expect(await run(event('Shoot', 'retry-0', 'delete'))).toMatchObject({
      outcome: 'idle',
      actions: ['remove-finalizer'],
    });
    await expect(getSet('retry')).rejects.toThrow();
    expect(await run(event('Shoot', 'retry-0', 'delete'))).toMatchObject({ outcome: 'not-found' });
  });
});

describe('events and requeues', () => {
  it('ignores Shoots no set controls, and requeues a set another pass holds', async () => {
    await kube.create<Shoot>(GVK.Shoot, {
      metadata: { name: 'other-1', namespace: NS },
      spec: { region: 'local', provider: { type: 'local' } },
    });
    expect(await runManagedSeedSetEvent(instance, event('Shoot', 'other-1', 'add'))).toEqual([]);
    await client.set(LOCKS.key('lease', NS, 'seeds'), 'someone', 'PX', 10_000);
    const held = await runManagedSeedSetEvent(instance, {
      specversion: '1.0',
      id: 'requeue-1',
      source: '/apis/landscape/functions/requeue-tick',
      type: 'dev.landscape.requeue',
      target: 'managedseedset',
      kind: 'ManagedSeedSet',
      namespace: NS,
      name: 'seeds',
    });
    expect(held).toEqual([expect.objectContaining({ outcome: 'locked', requeueAfterMs: 1000 })]);
    await client.del(LOCKS.key('lease', NS, 'seeds'));
  });
});

describe('resync', () => {
  it('the seedmanagement-resync ping requeues every set now (each then gets an invocation of its own)', async () => {
    await client.del(queueKey('managedseedset'));
    const sets = (await kube.list<{ metadata: { name?: string } }>(GVK.ManagedSeedSet, NS)).items;
    expect(sets.length).toBeGreaterThan(0);
    const results = await runManagedSeedSetEvent(instance, {
      specversion: '1.0',
      id: 'ping-1',
      source: '/apis/v1/namespaces/landscape-system/pingsources/seedmanagement-resync',
      type: 'dev.knative.sources.ping',
      data: { job: 'resync', family: 'seedmanagement' },
    });
    expect(results).toEqual([]); // no pass here: each set is requeued instead
    const queued = await pending(client, 'managedseedset');
    for (const s of sets)
      expect(queued).toContainEqual(expect.objectContaining({ namespace: NS, name: s.metadata.name }));
  });
});
