/**
 * The deployer contract host with the mock deployer, against the embedded API server and a
 * private redis-server, one event at a time (the job hand-out and the deployer called as their
 * functions would be): job handed out, picked up, finished with jobIDFinished == jobID in one
 * write; export Secret; nothing written for a finished item; deletion with and without
 * uninstall; missing Target; invalid and empty config; progressing timeout; interrupt;
 * test-reconcile; another replica holding the lock; another type's item never touched; the
 * locked step starting from the object the event carried (no read: the optimistic finalizer write
 * checks it), reading when that object is stale or already finalized.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { trafficDelta } from '@landscape/kube-apiserver/testing';
import { GVK } from '../../../shared/api/gvk.js';
import type { DeployItem, SyncObject } from '../../../shared/api/landscaper.js';
import { createLogger } from '../../../shared/log/index.js';
import {
  createKubeClient,
  isNotFound,
  kubeConfigFromYaml,
  type KubeClient,
} from '../../../shared/kube/index.js';
import { pending } from '../../../shared/requeue/index.js';
import { lazyRedis, type RedisHandle } from '../../../shared/redis/index.js';
import {
  createDeployerInstance,
  runDeployerEvent,
  type DeployerConfig,
  type DeployerInstanceDeps,
} from '../../../shared/deployer/host/function.js';
import type { FunctionInstance } from '../../../shared/function/index.js';
import {
  HOOK_TYPES,
  registerHook,
  type HookResult,
  type HookType,
  type ReconcileHook,
  type ReconcileHooks,
} from '../../../shared/deployer/index.js';
import { createMockDeployer } from '../../../functions/deployer-mock/plugin.js';
import { triggerJob } from '../../../functions/responsibility-check/jobs.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'mock-test';
const FN = 'deployer-mock';
const plugin = createMockDeployer();
const log = createLogger({ name: 'test', level: 'error' });

let srv: ApiServer;
let redisServer: TestRedis;
let redis: RedisHandle;
let dir: string;
let client: KubeClient;
let instance: FunctionInstance<DeployerConfig, DeployerInstanceDeps>;
/** The deployer's clock: real time, or frozen by a test that must not let a timeout pass by itself. */
let frozen: number | undefined;
const nowMs = (): number => frozen ?? Date.now();
afterEach(() => {
  frozen = undefined;
});

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: [{ name: 'main', countTraffic: true }] });
  redisServer = await startRedis();
  redis = lazyRedis({ url: redisServer.url });
  dir = await mkdtemp(join(tmpdir(), 'deployer-mock-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('main').kubeconfigYaml());
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()), {
    fieldManager: 'test',
  });
  for (const name of [NS, 'landscape-system']) await client.create(GVK.Namespace, { metadata: { name } });
  await client.create(GVK.Pod, {
    metadata: { name: 'replica-a', namespace: 'landscape-system' },
    spec: { containers: [{ name: 'fn', image: 'fn' }] },
  });
  instance = createDeployerInstance(FN, plugin, {
    nowMs,
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

const trigger = (name: string): ReturnType<typeof triggerJob> =>
  triggerJob(
    { client, now: () => new Date(nowMs()), newId: () => crypto.randomUUID(), log },
    { ensureDefaultContext: true },
    { namespace: NS, name },
  );

const reconcile = (name: string): ReturnType<typeof runDeployerEvent> =>
  runDeployerEvent(FN, plugin, instance, {
    type: 'dev.landscape.deployitem.reconcile',
    deployertype: 'mock',
    namespace: NS,
    name,
  });

const get = (name: string): Promise<DeployItem> => client.get<DeployItem>(GVK.DeployItem, NS, name);

async function create(
  name: string,
  spec: Record<string, unknown>,
  annotations: Record<string, string> = {},
): Promise<void> {
  await client.create(GVK.DeployItem, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name, namespace: NS, annotations },
    spec: { type: 'landscaper.gardener.cloud/mock', ...spec },
  });
}

/** Trigger, then reconcile until the deployer has nothing more to do in this step. */
async function settle(name: string): Promise<string | undefined> {
  await trigger(name);
  return reconcile(name);
}

/** True when the read fails with NotFound. */
async function gone(read: Promise<unknown>): Promise<boolean> {
  try {
    await read;
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

const mockConfig = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
  kind: 'ProviderConfiguration',
  ...extra,
});

it('hands out a job and finishes it: Succeeded, jobIDFinished == jobID, times, deployer, finalizer, export', async () => {
  await create('ok', { config: mockConfig({ providerStatus: { key: 'v' }, export: { answer: 42 } }) });
  expect(await trigger('ok')).toBe('Created');
  const handedOut = await get('ok');
  expect(handedOut.status?.jobID).toBeTruthy();
  expect(handedOut.metadata?.annotations).toMatchObject({
    'landscaper.gardener.cloud/deployer-type': 'landscaper.gardener.cloud/mock',
  });
  expect(await reconcile('ok')).toBe('finished');
  const item = await get('ok');
  expect(item.status).toMatchObject({
    phase: 'Succeeded',
    jobID: handedOut.status?.jobID,
    jobIDFinished: handedOut.status?.jobID,
    observedGeneration: 1,
    providerStatus: { key: 'v' },
    deployer: { name: FN, identity: FN, version: '0.1.0' },
    exportRef: { name: `mock-export-${item.metadata?.uid}`, namespace: NS },
  });
  expect(item.status?.transitionTimes?.initTime).toBeTruthy();
  expect(item.status?.transitionTimes?.finishedTime).toBeTruthy();
  expect(item.status?.lastReconcileTime).toBeTruthy();
  expect(item.metadata?.finalizers).toEqual(['finalizer.landscaper.gardener.cloud']);
  const secret = (await client.get(GVK.Secret, NS, item.status!.exportRef!.name)) as unknown as {
    data: Record<string, string>;
    metadata: { ownerReferences: unknown[] };
  };
  expect(JSON.parse(Buffer.from(secret.data.config, 'base64').toString())).toEqual({ answer: 42 });
  expect(secret.metadata.ownerReferences).toEqual([
    expect.objectContaining({ kind: 'DeployItem', uid: item.metadata?.uid }),
  ]);
  const lock = await client.get<SyncObject>(GVK.SyncObject, NS, `mock-${item.metadata?.uid}`);
  expect(lock.spec).toMatchObject({ podName: '', kind: 'DeployItem', name: 'ok', prefix: 'mock' });

  // a finished item: no write at all
  expect(await reconcile('ok')).toBe('nothing-to-do');
  expect((await get('ok')).metadata?.resourceVersion).toBe(item.metadata?.resourceVersion);
  expect(await trigger('ok')).toBe('unchanged');

  // a spec change → a new job → applied
  await client.mergePatch(
    GVK.DeployItem,
    { namespace: NS, name: 'ok' },
    { spec: { config: mockConfig({ providerStatus: { key: 'w' } }) } },
  );
  expect(await settle('ok')).toBe('finished');
  const changed = await get('ok');
  expect(changed.status).toMatchObject({
    phase: 'Succeeded',
    observedGeneration: 2,
    providerStatus: { key: 'w' },
  });
  expect(changed.status?.jobID).not.toBe(item.status?.jobID);
  expect(changed.status?.jobIDFinished).toBe(changed.status?.jobID);
});

it('uninstalls on deletion (export Secret gone, finalizer removed), or keeps with delete-without-uninstall', async () => {
  await create('del', { config: mockConfig({ export: 'x' }) });
  await create(
    'keep',
    { config: mockConfig({ export: 'y' }) },
    { 'landscaper.gardener.cloud/delete-without-uninstall': 'true' },
  );
  expect(await settle('del')).toBe('finished');
  expect(await settle('keep')).toBe('finished');
  const del = await get('del');
  await client.delete(GVK.DeployItem, { namespace: NS, name: 'del' });
  await client.delete(GVK.DeployItem, { namespace: NS, name: 'keep' });
  expect(await trigger('del')).toBe('Deleting');
  expect(await reconcile('del')).toBe('deleted');
  expect(await settle('keep')).toBe('deleted');
  expect(await gone(get('del'))).toBe(true);
  expect(await gone(get('keep'))).toBe(true);
  expect(await gone(client.get(GVK.Secret, NS, del.status!.exportRef!.name))).toBe(true);
  // (the mock's only artifact, the export Secret, is owned by the item and goes with it either way;
  // test/integration/deployers/manifest.test.ts shows delete-without-uninstall keeping objects)
});

it('fails with NoTargetFound and a Warning Event when the Target is missing', async () => {
  await create('no-target', { target: { name: 'absent' }, config: mockConfig() });
  expect(await settle('no-target')).toBe('finished');
  const item = await get('no-target');
  expect(item.status?.phase).toBe('Failed');
  expect(item.status?.jobIDFinished).toBe(item.status?.jobID);
  expect(item.status?.lastError).toMatchObject({
    reason: 'NoTargetFound',
    message: 'setting deploy item to failed due to missing target',
    codes: ['ERR_CONFIGURATION_PROBLEM'],
  });
  const events = await client.list(GVK.Event, NS);
  expect(events.items).toContainEqual(
    expect.objectContaining({
      type: 'Warning',
      reason: 'NoTargetFound',
      involvedObject: expect.objectContaining({ name: 'no-target' }),
    }),
  );
});

it.each([
  ['an invalid provider config', { config: mockConfig({ phase: 'Done' }) }, 'ProviderConfigurationInvalid'],
  ['an empty provider config', {}, 'ProviderConfigurationMissing'],
  ['an invalid timeout', { config: mockConfig(), timeout: 'soon' }, 'InvalidTimeout'],
])('fails at once, without retrying, on %s', async (_what, spec, reason) => {
  const name = `bad-${reason.toLowerCase()}`;
  await create(name, spec);
  expect(await settle(name)).toBe('finished');
  const item = await get(name);
  expect(item.status?.phase).toBe('Failed');
  expect(item.status?.lastError).toMatchObject({ reason, codes: ['ERR_CONFIGURATION_PROBLEM'] });
  expect(item.status?.jobIDFinished).toBe(item.status?.jobID);
});

it('ends an unfinished job with ProgressingTimeout when spec.timeout passes, and requeues for that moment', async () => {
  // frozen at a whole second (initTime has no fraction) so that a loaded machine cannot let the
  // 1 s pass before the first reconcile ends; then moved past it
  frozen = Math.floor(Date.now() / 1000) * 1000;
  await create('slow', { config: mockConfig({ initialPhase: 'Progressing' }), timeout: '1s' });
  expect(await settle('slow')).toBe('unfinished');
  const open = await get('slow');
  expect(open.status?.phase).toBe('Progressing');
  expect(open.status?.jobIDFinished).toBeUndefined();
  const queued = await pending(await redis.get(), FN);
  expect(queued.map((q) => q.name)).toContain('slow');
  frozen += 1100;
  expect(await reconcile('slow')).toBe('finished');
  const item = await get('slow');
  expect(item.status?.phase).toBe('Failed');
  expect(item.status?.lastError).toMatchObject({
    operation: 'StandardTimeoutChecker.TimeoutExceeded',
    reason: 'ProgressingTimeout',
    message: 'timeout at: "reconcile"',
    codes: ['ERR_TIMEOUT'],
  });
});

it('interrupts an unfinished item, and test-reconcile starts a new job on a finished one', async () => {
  await create('stuck', { config: mockConfig({ initialPhase: 'Progressing' }) });
  expect(await settle('stuck')).toBe('unfinished');
  await client.mergePatch(
    GVK.DeployItem,
    { namespace: NS, name: 'stuck' },
    {
      metadata: { annotations: { 'landscaper.gardener.cloud/operation': 'interrupt' } },
    },
  );
  expect(await reconcile('stuck')).toBe('interrupted');
  const item = await get('stuck');
  expect(item.status).toMatchObject({
    phase: 'Failed',
    lastError: { reason: 'InterruptOperation', message: 'operation was interrupted' },
  });
  expect(item.status?.jobIDFinished).toBe(item.status?.jobID);
  expect(item.metadata?.annotations?.['landscaper.gardener.cloud/operation']).toBeUndefined();

  await client.mergePatch(
    GVK.DeployItem,
    { namespace: NS, name: 'stuck' },
    {
      spec: { config: { initialPhase: null } },
      metadata: { annotations: { 'landscaper.gardener.cloud/operation': 'test-reconcile' } },
    },
  );
  expect(await reconcile('stuck')).toBe('finished');
  const again = await get('stuck');
  expect(again.status?.jobID).not.toBe(item.status?.jobID);
  expect(again.status).toMatchObject({ phase: 'Succeeded', jobIDFinished: again.status?.jobID });
  expect(again.status?.transitionTimes?.triggerTime).toBeTruthy();
});

it('leaves an item locked by a live replica alone (requeued), and takes it over once that Pod is gone', async () => {
  await create('contended', { config: mockConfig() });
  await trigger('contended');
  const item = await get('contended');
  await client.create(GVK.Pod, {
    metadata: { name: 'replica-b', namespace: 'landscape-system' },
    spec: { containers: [{ name: 'fn', image: 'fn' }] },
  });
  await client.create(GVK.SyncObject, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'SyncObject',
    metadata: { name: `mock-${item.metadata?.uid}`, namespace: NS },
    spec: {
      podName: 'replica-b',
      kind: 'DeployItem',
      name: 'contended',
      prefix: 'mock',
      lastUpdateTime: new Date().toISOString(),
    },
  });
  expect(await reconcile('contended')).toBe('locked-elsewhere');
  expect((await get('contended')).status?.jobIDFinished).toBeUndefined();
  expect((await pending(await redis.get(), FN)).map((q) => q.name)).toContain('contended');
  await client.delete(GVK.Pod, { namespace: 'landscape-system', name: 'replica-b' });
  expect(await reconcile('contended')).toBe('finished');
});

describe('the locked step starts from the object the event carried', () => {
  /** A reconcile event as responsibility-check sends it: the item as its data. */
  const reconcileCarrying = (item: DeployItem): ReturnType<typeof runDeployerEvent> =>
    runDeployerEvent(FN, plugin, instance, {
      type: 'dev.landscape.deployitem.reconcile',
      deployertype: 'mock',
      namespace: NS,
      name: item.metadata?.name,
      uid: item.metadata?.uid,
      data: item,
    });

  /** The requests `fn` made, by verb and resource. */
  async function requests(fn: () => Promise<unknown>): Promise<Record<string, number>> {
    const traffic = srv.cluster('main').traffic!;
    const before = traffic.snapshot();
    await fn();
    return Object.fromEntries(
      Object.entries(trafficDelta(traffic.snapshot(), before)).map(([k, c]) => [k, c.requests]),
    );
  }

  it('an open job not finalized yet: no read under the lock, the finalizer write is the check', async () => {
    await create('carried', { config: mockConfig() });
    await trigger('carried');
    const carried = await get('carried');
    let outcome: string | undefined;
    const made = await requests(async () => {
      outcome = await reconcileCarrying(carried);
    });
    expect(outcome).toBe('finished');
    expect(made['get deployitems']).toBeUndefined();
    expect(made['patch deployitems']).toBe(1);
    const item = await get('carried');
    expect(item.status?.jobIDFinished).toBe(item.status?.jobID);
    expect(item.metadata?.finalizers).toEqual(['finalizer.landscaper.gardener.cloud']);
  });

  it('a stale carried object: the finalizer write answers 409, the item is read, nothing is lost', async () => {
    await create('stale', { config: mockConfig() });
    await trigger('stale');
    const carried = await get('stale');
    // someone else writes after the event was sent (a label the deployer must not overwrite)
    await client.mergePatch(
      GVK.DeployItem,
      { namespace: NS, name: 'stale' },
      { metadata: { labels: { team: 'a' } } },
    );
    let outcome: string | undefined;
    const made = await requests(async () => {
      outcome = await reconcileCarrying(carried);
    });
    expect(outcome).toBe('finished');
    expect(made['get deployitems']).toBe(1);
    expect(made['patch deployitems']).toBe(2);
    const item = await get('stale');
    expect(item.metadata?.labels).toEqual({ team: 'a' });
    expect(item.status?.jobIDFinished).toBe(item.status?.jobID);
  });

  it('an item deleted after the event was sent: the finalizer write answers 404, the step ends as gone', async () => {
    await create('deleted', { config: mockConfig() });
    await trigger('deleted');
    const carried = await get('deleted');
    await client.delete(GVK.DeployItem, { namespace: NS, name: 'deleted' });
    let outcome: string | undefined;
    const made = await requests(async () => {
      outcome = await reconcileCarrying(carried);
    });
    expect(outcome).toBe('gone');
    expect(made['patch deployitems']).toBe(1);
    expect(made['get deployitems']).toBe(1);
    expect(made['patch deployitems/status']).toBeUndefined();
  });

  it('an item recreated under the same name: the old object answers 409, the new item is left alone', async () => {
    await create('reborn', { config: mockConfig() });
    await trigger('reborn');
    const carried = await get('reborn');
    await client.delete(GVK.DeployItem, { namespace: NS, name: 'reborn' });
    await create('reborn', { config: mockConfig() });
    const fresh = await get('reborn');
    let outcome: string | undefined;
    const made = await requests(async () => {
      outcome = await reconcileCarrying(carried);
    });
    expect(outcome).toBe('gone');
    expect(made['patch deployitems']).toBe(1);
    expect(made['patch deployitems/status']).toBeUndefined();
    const after = await get('reborn');
    expect(after.metadata?.resourceVersion).toBe(fresh.metadata?.resourceVersion);
    expect(after.metadata?.finalizers).toBeUndefined();
  });

  it('an item already finalized (a new job after a spec edit) is read under the lock, as upstream reads it', async () => {
    await create('again', { config: mockConfig() });
    await settle('again');
    await client.mergePatch(
      GVK.DeployItem,
      { namespace: NS, name: 'again' },
      { spec: { config: mockConfig({ providerStatus: { v: 2 } }) } },
    );
    await trigger('again');
    const carried = await get('again');
    const made = await requests(() => reconcileCarrying(carried));
    expect(made['get deployitems']).toBe(1);
    expect(made['patch deployitems']).toBeUndefined();
    const item = await get('again');
    expect(item.status?.jobIDFinished).toBe(item.status?.jobID);
  });
});

it('never writes to an item of another type', async () => {
  await client.create(GVK.DeployItem, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name: 'helm-item', namespace: NS },
    spec: { type: 'landscaper.gardener.cloud/helm', config: { a: 1 } },
    status: { observedGeneration: 0, jobID: 'j1' },
  });
  const before = await get('helm-item');
  expect(await reconcile('helm-item')).toBe('not-responsible');
  expect((await get('helm-item')).metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
});

describe('extension hooks (seed 002) in the runtime', () => {
  let calls: string[];
  let saved: ReconcileHooks;
  const recorder =
    (result?: (type: HookType) => HookResult | undefined): ReconcileHook =>
    (input, type) => {
      calls.push(`${type}${input.item ? `:${input.item.metadata?.name}` : ''}`);
      return result?.(type);
    };
  const runtime = async (): Promise<DeployerInstanceDeps['runtime']> => {
    const r = await instance.ready();
    if (!r.ok) throw new Error('instance not ready');
    return r.deps.runtime;
  };
  beforeEach(async () => {
    calls = [];
    saved = (await runtime()).hooks;
  });
  afterEach(async () => {
    (await runtime()).hooks = saved;
  });
  const useHooks = async (hook: ReconcileHook, ...types: HookType[]): Promise<void> => {
    (await runtime()).hooks = registerHook(saved, hook, ...types);
  };

  it('runs every hook point of a reconcile, a delete, an interrupt and a test-reconcile, in order', async () => {
    await useHooks(recorder(), ...HOOK_TYPES);
    await create('hooked', { config: mockConfig({ initialPhase: 'Progressing' }) });
    expect(await settle('hooked')).toBe('unfinished');
    expect(calls).toEqual([
      'Start',
      'DuringResponsibilityCheck:hooked',
      'AfterResponsibilityCheck:hooked',
      'BeforeAnyReconcile:hooked',
      'BeforeReconcile:hooked',
      'End:hooked',
    ]);
    calls = [];
    await client.mergePatch(
      GVK.DeployItem,
      { namespace: NS, name: 'hooked' },
      {
        metadata: { annotations: { 'landscaper.gardener.cloud/operation': 'interrupt' } },
      },
    );
    expect(await reconcile('hooked')).toBe('interrupted');
    expect(calls).toContain('BeforeAbort:hooked');
    calls = [];
    await client.mergePatch(
      GVK.DeployItem,
      { namespace: NS, name: 'hooked' },
      {
        spec: { config: { initialPhase: null } },
        metadata: { annotations: { 'landscaper.gardener.cloud/operation': 'test-reconcile' } },
      },
    );
    expect(await reconcile('hooked')).toBe('finished');
    expect(calls).toContain('BeforeForceReconcile:hooked');
    expect(calls.indexOf('BeforeForceReconcile:hooked')).toBeLessThan(
      calls.indexOf('BeforeReconcile:hooked'),
    );
    calls = [];
    await client.delete(GVK.DeployItem, { namespace: NS, name: 'hooked' });
    expect(await settle('hooked')).toBe('deleted');
    expect(calls).toContain('BeforeDelete:hooked');
    expect(calls).not.toContain('BeforeReconcile:hooked');
  });

  it('aborts the step without a write when a BeforeReconcile hook says so, and requeues as it asks', async () => {
    await useHooks(
      recorder(() => ({ abortReconcile: true, requeue: false, requeueAfterMs: 60_000 })),
      'BeforeReconcile',
    );
    await create('aborted', { config: mockConfig() });
    await trigger('aborted');
    const before = await get('aborted');
    expect(await reconcile('aborted')).toBe('aborted-by-hook');
    const after = await get('aborted');
    expect(after.status).toEqual(before.status);
    expect((await pending(await redis.get(), FN)).map((q) => q.name)).toContain('aborted');
  });

  it('leaves an item alone when a DuringResponsibilityCheck hook aborts', async () => {
    await useHooks(
      recorder(() => ({ abortReconcile: true, requeue: false, requeueAfterMs: 0 })),
      'DuringResponsibilityCheck',
    );
    await create('not-mine', { config: mockConfig() });
    await trigger('not-mine');
    expect(await reconcile('not-mine')).toBe('not-responsible');
    expect((await get('not-mine')).status?.jobIDFinished).toBeUndefined();
  });

  it('re-applies a Succeeded item by continuous reconcile: a new job when its interval has passed', async () => {
    await create('continuous', { config: mockConfig({ continuousReconcile: { every: '1s' } }) });
    expect(await settle('continuous')).toBe('finished');
    const first = await get('continuous');
    await new Promise((r) => setTimeout(r, 2100));
    expect(await reconcile('continuous')).toBe('finished');
    const second = await get('continuous');
    expect(second.status?.jobID).not.toBe(first.status?.jobID);
    expect(second.status).toMatchObject({ phase: 'Succeeded', jobIDFinished: second.status?.jobID });
    expect(second.status?.transitionTimes?.triggerTime).toBeTruthy();
    const off = await client.mergePatch<DeployItem>(
      GVK.DeployItem,
      { namespace: NS, name: 'continuous' },
      {
        metadata: {
          annotations: { 'continuousreconcile.extensions.landscaper.gardener.cloud/active': 'false' },
        },
      },
    );
    await new Promise((r) => setTimeout(r, 2100));
    expect(await reconcile('continuous')).toBe('nothing-to-do');
    expect((await get('continuous')).status?.jobID).toBe(off.status?.jobID);
  });
});
