/**
 * The managedseed and deletion-protection functions' handlers against the embedded API server
 * (the main cluster serves the Gardener CRDs) and a private redis-server, driven by the events
 * the seed-management source would send: a ManagedSeed waits (ShootReconciled=False, requeued)
 * until its Shoot is reconciled, then registers its Seed (SeedRegistered=True) and leaves it alone
 * on the next pass; a Seed used by a shoot is not deleted (the finalizer stays, a Warning Event
 * with upstream's message, counted again) until the shoot moves away; a Shoot referenced by a
 * ManagedSeed likewise until the ManagedSeed is gone; deleting a ManagedSeed waits for the shoots
 * on its Seed, deletes the Seed, and drops the finalizer only once the Seed is gone.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import type { GardenerCondition, Seed, Shoot } from '../../../shared/api/core.js';
import { GVK } from '../../../shared/api/gvk.js';
import type { ManagedSeed } from '../../../shared/api/seedmanagement.js';
import { createLogger } from '../../../shared/log/index.js';
import {
  createKubeClient,
  isNotFound,
  kubeConfigFromYaml,
  type KubeClient,
} from '../../../shared/kube/index.js';
import { pending } from '../../../shared/requeue/index.js';
import { createManagedSeedInstance, runManagedSeedEvent } from '../../../functions/managedseed/handler.js';
import {
  createProtectionInstance,
  runProtectionEvent,
} from '../../../functions/deletion-protection/handler.js';
import { PROTECTION_FINALIZER } from '../../../functions/deletion-protection/decide.js';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { crdFiles } from '../../../shared/api/crds.js';

let srv: ApiServer;
let redis: TestRedis;
let rc: Redis;
let dir: string;
let client: KubeClient;
let managed: ReturnType<typeof createManagedSeedInstance>;
let protection: ReturnType<typeof createProtectionInstance>;

const log = createLogger({ name: 'test', level: 'error' });

type Kind = 'ManagedSeed' | 'Seed' | 'Shoot';
const API_VERSION: Record<Kind, string> = {
  ManagedSeed: 'seedmanagement.gardener.cloud/v1alpha1',
  Seed: 'core.gardener.cloud/v1beta1',
  Shoot: 'core.gardener.cloud/v1beta1',
};

/** A Reference-mode ApiServerSource event. */
function apiEvent(action: 'add' | 'update' | 'delete', kind: Kind, namespace: string, name: string): unknown {
  return {
    specversion: '1.0',
    id: randomUUID(),
    source: 'https://apiserver',
    type: `dev.knative.apiserver.ref.${action}`,
    kind,
    apiversion: API_VERSION[kind],
    namespace,
    name,
    data: { kind, ...(namespace ? { namespace } : {}), name, apiVersion: API_VERSION[kind] },
  };
}

function requeueEvent(target: string, kind: Kind, namespace: string, name: string): unknown {
  return {
    specversion: '1.0',
    id: randomUUID(),
    source: '/requeue',
    type: 'dev.landscape.requeue',
    target,
    kind,
    namespace,
    name,
  };
}

const managedSeed = (
  kind: Kind,
  ns: string,
  name: string,
  action: 'add' | 'update' | 'delete' = 'update',
): Promise<string[]> => runManagedSeedEvent(managed, apiEvent(action, kind, ns, name));
const protect = (
  kind: Kind,
  ns: string,
  name: string,
  action: 'add' | 'update' | 'delete' = 'update',
): Promise<unknown[]> => runProtectionEvent(protection, apiEvent(action, kind, ns, name));

const seedSpec = {
  provider: { type: 'local', region: 'local' },
  networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
};

function shoot(namespace: string, name: string, seedName?: string): Shoot {
  return {
    metadata: { name, namespace },
    spec: { region: 'local', provider: { type: 'local' }, ...(seedName ? { seedName } : {}) },
  };
}

/** Moves a shoot to another seed as gardener-apiserver allows it: a PUT to shoots/binding. */
async function bindShoot(namespace: string, name: string, seedName: string): Promise<void> {
  const current = await client.get<Shoot>(GVK.Shoot, namespace, name);
  await client.replace(
    GVK.Shoot,
    { ...current, spec: { ...current.spec, seedName } },
    { subresource: 'binding' },
  );
}

async function getMs(): Promise<ManagedSeed> {
  return client.get<ManagedSeed>(GVK.ManagedSeed, 'garden', 'ms-1');
}

function cond(ms: ManagedSeed, type: string): GardenerCondition | undefined {
  return ms.status?.conditions?.find((c) => c.type === type);
}

async function gone(
  gvk: (typeof GVK)[keyof typeof GVK],
  namespace: string | undefined,
  name: string,
): Promise<boolean> {
  try {
    await client.get(gvk, namespace, name);
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

interface EventObj {
  involvedObject: { kind: string; name: string };
  type: string;
  reason: string;
  message: string;
  count: number;
}

async function events(namespace: string, kind: string, name: string): Promise<EventObj[]> {
  const list = await client.list<EventObj & { metadata: object }>(GVK.Event, namespace);
  return list.items.filter((e) => e.involvedObject.kind === kind && e.involvedObject.name === name);
}

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['garden'] });
  redis = await startRedis();
  rc = new Redis(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'managedseed-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('garden').kubeconfigYaml());
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('garden').kubeconfigYaml()));
  for (const name of ['garden', 'garden-p']) await client.create(GVK.Namespace, { metadata: { name } });
  const env = { KUBECONFIG: kubeconfig, REDIS_URL: redis.url, CONFIG_FILE: '/config.yaml' };
  managed = createManagedSeedInstance({
    env: () => env,
    readFile: () => Promise.resolve('waitSyncPeriod: 15s\nerrorBackoff: {min: 2s, max: 1m}\n'),
    log,
  });
  protection = createProtectionInstance({
    env: () => env,
    readFile: () => Promise.resolve('recheckInterval: 20s\n'),
    log,
  });
}, 30_000);

afterAll(async () => {
  await managed?.close();
  await protection?.close();
  rc?.disconnect();
  await redis?.stop();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

it('the API server serves the Gardener kinds', async () => {
  await expect(client.list(GVK.ManagedSeed, 'garden')).resolves.toMatchObject({ items: [] });
  await expect(client.list(GVK.Seed)).resolves.toMatchObject({ items: [] });
});

it('waits (ShootReconciled=False, requeued) until the Shoot is reconciled, then registers the Seed', async () => {
  await client.create(GVK.Shoot, shoot('garden', 'shoot-1'));
  await client.create(GVK.ManagedSeed, {
    metadata: { name: 'ms-1', namespace: 'garden' },
    spec: {
      shoot: { name: 'shoot-1' },
      gardenlet: { config: { seedConfig: { metadata: { labels: { zone: 'a' } }, spec: seedSpec } } },
    },
  });
  const before = Date.now();
  expect(await managedSeed('ManagedSeed', 'garden', 'ms-1', 'add')).toEqual(['waiting-for-shoot']);
  // the handler ran between before and after: its "now + delay" is bracketed by them, however slow
  const after = Date.now();
  let ms = await getMs();
  expect(ms.metadata?.finalizers).toEqual(['gardener']);
  expect(cond(ms, 'ShootReconciled')).toMatchObject({
    status: 'False',
    reason: 'Reconciling',
    message: 'Waiting for shoot "garden/shoot-1" to be reconciled',
  });
  const queued = await pending(rc, 'managedseed');
  expect(queued).toEqual([
    expect.objectContaining({ kind: 'ManagedSeed', namespace: 'garden', name: 'ms-1' }),
  ]);
  expect(queued[0].at.getTime() - before).toBeGreaterThanOrEqual(14_000);
  expect(queued[0].at.getTime() - after).toBeLessThan(20_000);
  expect(await events('garden', 'ManagedSeed', 'ms-1')).toEqual([
    expect.objectContaining({ type: 'Normal', reason: 'Reconciling' }),
  ]);
  expect(await gone(GVK.Seed, undefined, 'ms-1')).toBe(true);

  // the ManagedSeed's Shoot is protected from deletion from now on
  await protect('ManagedSeed', 'garden', 'ms-1', 'add');
  const s = await client.get<Shoot>(GVK.Shoot, 'garden', 'shoot-1');
  expect(s.metadata?.finalizers).toEqual([PROTECTION_FINALIZER]);

  // last operation succeeded, but on an older generation: still waiting
  await client.patchStatus(
    GVK.Shoot,
    { namespace: 'garden', name: 'shoot-1' },
    {
      status: { observedGeneration: 0, lastOperation: { type: 'Create', state: 'Succeeded' } },
    },
  );
  expect(await managedSeed('Shoot', 'garden', 'shoot-1')).toEqual(['waiting-for-shoot']);

  await client.patchStatus(
    GVK.Shoot,
    { namespace: 'garden', name: 'shoot-1' },
    {
      status: {
        observedGeneration: s.metadata?.generation,
        lastOperation: { type: 'Create', state: 'Succeeded' },
      },
    },
  );
  expect(await managedSeed('Shoot', 'garden', 'shoot-1')).toEqual(['registered']);
  ms = await getMs();
  expect(cond(ms, 'ShootReconciled')).toMatchObject({ status: 'True', reason: 'Reconciled' });
  expect(cond(ms, 'SeedRegistered')).toMatchObject({
    status: 'True',
    reason: 'Reconciled',
    message: 'Seed ms-1 has been registered',
  });
  expect(ms.status?.observedGeneration).toBe(ms.metadata?.generation);
  const seed = await client.get<Seed>(GVK.Seed, undefined, 'ms-1');
  expect(seed.metadata?.labels).toEqual({ zone: 'a', 'gardener.cloud/role': 'seed' });
  expect(seed.metadata?.ownerReferences).toEqual([
    expect.objectContaining({ kind: 'ManagedSeed', name: 'ms-1', uid: ms.metadata?.uid, controller: true }),
  ]);
  expect(seed.spec).toMatchObject(seedSpec);

  // the Seed is protected from deletion from now on
  await protect('Seed', '', 'ms-1', 'add');
  const protectedSeed = await client.get<Seed>(GVK.Seed, undefined, 'ms-1');
  expect(protectedSeed.metadata?.finalizers).toEqual([PROTECTION_FINALIZER]);

  // a pass with nothing new writes nothing (the Seed event, a requeue)
  expect(await managedSeed('Seed', '', 'ms-1')).toEqual(['registered']);
  expect(
    await runManagedSeedEvent(managed, requeueEvent('managedseed', 'ManagedSeed', 'garden', 'ms-1')),
  ).toEqual(['registered']);
  expect((await getMs()).metadata?.resourceVersion).toBe(ms.metadata?.resourceVersion);
  expect((await client.get<Seed>(GVK.Seed, undefined, 'ms-1')).metadata?.resourceVersion).toBe(
    protectedSeed.metadata?.resourceVersion,
  );
  // a requeue for another function is not this one's
  expect(await runManagedSeedEvent(managed, requeueEvent('other', 'ManagedSeed', 'garden', 'ms-1'))).toEqual(
    [],
  );
});

it('a Seed used by a shoot is not deleted until the shoot moves away', async () => {
  await client.create(GVK.Seed, { metadata: { name: 'plain-1' }, spec: seedSpec });
  await protect('Seed', '', 'plain-1', 'add');
  await client.create(GVK.Shoot, shoot('garden-p', 'app-1', 'plain-1'));
  await protect('Shoot', 'garden-p', 'app-1', 'add');

  await client.delete(GVK.Seed, { name: 'plain-1' });
  expect(await protect('Seed', '', 'plain-1')).toEqual([
    { kind: 'Seed', namespace: '', name: 'plain-1', op: 'keep' },
  ]);
  const seed = await client.get<Seed>(GVK.Seed, undefined, 'plain-1');
  expect(seed.metadata?.deletionTimestamp).toBeDefined();
  expect(seed.metadata?.finalizers).toEqual([PROTECTION_FINALIZER]);
  expect(await pending(rc, 'deletion-protection')).toEqual([
    expect.objectContaining({ kind: 'Seed', namespace: '', name: 'plain-1' }),
  ]);
  // looked at again (the requeue): the same Warning Event, counted
  await runProtectionEvent(protection, requeueEvent('deletion-protection', 'Seed', '', 'plain-1'));
  expect(await events('default', 'Seed', 'plain-1')).toEqual([
    expect.objectContaining({
      type: 'Warning',
      reason: 'DeletionBlocked',
      message: 'cannot delete seed plain-1 since it is still used by shoot(s)',
      count: 2,
    }),
  ]);

  // scheduled elsewhere, but still there per status.seedName (migrating): still blocked
  await bindShoot('garden-p', 'app-1', 'ms-1');
  await client.patchStatus(
    GVK.Shoot,
    { namespace: 'garden-p', name: 'app-1' },
    { status: { seedName: 'plain-1' } },
  );
  expect(await protect('Shoot', 'garden-p', 'app-1')).toEqual([
    { kind: 'Shoot', namespace: 'garden-p', name: 'app-1', op: 'none' },
    { kind: 'Seed', namespace: '', name: 'plain-1', op: 'keep' },
  ]);
  // moved away: the Shoot event frees the Seed
  await client.patchStatus(
    GVK.Shoot,
    { namespace: 'garden-p', name: 'app-1' },
    { status: { seedName: 'ms-1' } },
  );
  expect(await protect('Shoot', 'garden-p', 'app-1')).toContainEqual({
    kind: 'Seed',
    namespace: '',
    name: 'plain-1',
    op: 'remove-finalizer',
  });
  expect(await gone(GVK.Seed, undefined, 'plain-1')).toBe(true);
});

it('a Shoot referenced by a ManagedSeed is not deleted; deleting the ManagedSeed deletes its Seed first', async () => {
  // app-1 now runs on ms-1's Seed
  await client.delete(GVK.Shoot, { namespace: 'garden', name: 'shoot-1' });
  expect(await protect('Shoot', 'garden', 'shoot-1')).toContainEqual({
    kind: 'Shoot',
    namespace: 'garden',
    name: 'shoot-1',
    op: 'keep',
  });
  expect(await events('garden', 'Shoot', 'shoot-1')).toEqual([
    expect.objectContaining({
      type: 'Warning',
      reason: 'DeletionBlocked',
      message: 'cannot delete shoot garden/shoot-1 since it is still referenced by a managed seed',
    }),
  ]);

  await client.delete(GVK.ManagedSeed, { namespace: 'garden', name: 'ms-1' });
  // the Seed is still used by app-1: not deleted, the error reported, looked at again later
  expect(await managedSeed('ManagedSeed', 'garden', 'ms-1')).toEqual(['error']);
  const ms = await getMs();
  expect(cond(ms, 'SeedRegistered')).toMatchObject({
    status: 'False',
    reason: 'DeleteError',
    message: 'could not delete seed ms-1: cannot delete seed ms-1 since it is still used by shoot(s)',
  });
  expect((await client.get<Seed>(GVK.Seed, undefined, 'ms-1')).metadata?.deletionTimestamp).toBeUndefined();
  expect(await events('garden', 'ManagedSeed', 'ms-1')).toContainEqual(
    expect.objectContaining({ type: 'Warning', reason: 'DeleteError' }),
  );
  // still referenced by the deleting ManagedSeed: the Shoot stays
  expect(await protect('ManagedSeed', 'garden', 'ms-1')).toEqual([
    { kind: 'Shoot', namespace: 'garden', name: 'shoot-1', op: 'keep' },
  ]);

  // app-1 leaves the Seed: its Shoot event brings the deleting ManagedSeed back, which deletes the Seed
  await client.create(GVK.Seed, { metadata: { name: 'elsewhere' }, spec: seedSpec });
  await bindShoot('garden-p', 'app-1', 'elsewhere');
  await client.patchStatus(
    GVK.Shoot,
    { namespace: 'garden-p', name: 'app-1' },
    { status: { seedName: 'elsewhere' } },
  );
  expect(await managedSeed('Shoot', 'garden-p', 'app-1')).toEqual(['deleting-seed']);
  const seed = await client.get<Seed>(GVK.Seed, undefined, 'ms-1');
  expect(seed.metadata?.deletionTimestamp).toBeDefined();
  // the Seed waits on the protection finalizer: so does the ManagedSeed (finalizer kept)
  expect(await managedSeed('ManagedSeed', 'garden', 'ms-1')).toEqual(['waiting-for-seed-deletion']);
  expect((await getMs()).metadata?.finalizers).toEqual(['gardener']);

  // the Seed's update event: nobody uses it, the protection lets it go
  expect(await protect('Seed', '', 'ms-1')).toEqual([
    { kind: 'Seed', namespace: '', name: 'ms-1', op: 'remove-finalizer' },
  ]);
  expect(await gone(GVK.Seed, undefined, 'ms-1')).toBe(true);
  // the Seed's delete event: the ManagedSeed's finalizer goes, and the ManagedSeed with it
  expect(await managedSeed('Seed', '', 'ms-1', 'delete')).toEqual(['deleted']);
  expect(await gone(GVK.ManagedSeed, 'garden', 'ms-1')).toBe(true);

  // the ManagedSeed's delete event: its Shoot is free now
  expect(await protect('ManagedSeed', 'garden', 'ms-1', 'delete')).toEqual([
    { kind: 'Shoot', namespace: 'garden', name: 'shoot-1', op: 'remove-finalizer' },
  ]);
  expect(await gone(GVK.Shoot, 'garden', 'shoot-1')).toBe(true);
});

it('a Shoot no ManagedSeed references loses the finalizer; a resync looks at everything', async () => {
  await client.create(GVK.Shoot, shoot('garden', 'shoot-2'));
  await client.create(GVK.ManagedSeed, {
    metadata: { name: 'ms-2', namespace: 'garden' },
    spec: { shoot: { name: 'shoot-2' }, gardenlet: { config: { seedConfig: { spec: seedSpec } } } },
  });
  const resync = (): unknown => ({
    specversion: '1.0',
    id: randomUUID(),
    source: '/apis/v1/namespaces/landscape-system/pingsources/seedmanagement-resync',
    type: 'dev.knative.sources.ping',
    data: { job: 'resync', family: 'seedmanagement' },
  });
  expect(await runProtectionEvent(protection, resync())).toContainEqual({
    kind: 'Shoot',
    namespace: 'garden',
    name: 'shoot-2',
    op: 'add-finalizer',
  });
  expect(await runManagedSeedEvent(managed, resync())).toEqual(['waiting-for-shoot']);
  // the ManagedSeed now names another Shoot: shoot-2 is free again
  await client.mergePatch(
    GVK.ManagedSeed,
    { namespace: 'garden', name: 'ms-2' },
    { spec: { shoot: { name: 'shoot-3' } } },
  );
  expect(await protect('ManagedSeed', 'garden', 'ms-2')).toEqual([
    { kind: 'Shoot', namespace: 'garden', name: 'shoot-2', op: 'remove-finalizer' },
    { kind: 'Shoot', namespace: 'garden', name: 'shoot-3', op: 'gone' },
  ]);
  expect((await client.get<Shoot>(GVK.Shoot, 'garden', 'shoot-2')).metadata?.finalizers ?? []).toEqual([]);
  // its Shoot does not exist: an error, looked at again with the backoff's minimum (2s)
  const before = Date.now();
  expect(await managedSeed('ManagedSeed', 'garden', 'ms-2')).toEqual(['error']);
  const after = Date.now();
  const queued = (await pending(rc, 'managedseed')).find((i) => i.name === 'ms-2');
  expect(queued!.at.getTime() - before).toBeGreaterThanOrEqual(1_500);
  expect(queued!.at.getTime() - after).toBeLessThan(3_000);
  expect(
    cond(await client.get<ManagedSeed>(GVK.ManagedSeed, 'garden', 'ms-2'), 'SeedRegistered'),
  ).toMatchObject({
    status: 'False',
    message: 'could not get shoot garden/shoot-3: shoots.core.gardener.cloud "shoot-3" not found',
  });
});
