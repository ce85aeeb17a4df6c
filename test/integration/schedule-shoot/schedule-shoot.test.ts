/**
 * schedule-shoot against the embedded API server (the garden cluster with the product's Gardener
 * CRDs) and a private redis-server: a shoot is bound to the seed with the fewest shoots with a
 * SchedulingSuccessful Event; a full landscape leaves a shoot unscheduled with upstream's message
 * in lastOperation, a SchedulingFailed Event and a requeue entry (the status write's own update
 * event does not write again; a requeue does); 50 shoots handled at once by three instances never
 * overcommit a seed; the counts are rebuilt (once) after Redis lost them; a deleted shoot frees
 * its count; a binding that loses to a concurrent change is decided again (or not at all when the
 * shoot got bound meanwhile); a binding the API server refuses is a failure; the binding goes
 * through `shoots/binding` (a direct change of spec.seedName is refused, as gardener-apiserver
 * does); MinimalDistance reads the region-config ConfigMaps of namespace garden. Each case uses a provider type of its own, so only its seeds pass the provider stage.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import type { Seed, Shoot } from '../../../shared/api/core.js';
import { GVK } from '../../../shared/api/gvk.js';
import {
  createKubeClient,
  kubeConfigFromYaml,
  statusOf,
  type KubeClient,
} from '../../../shared/kube/index.js';
import { createLogger } from '../../../shared/log/index.js';
import { pending } from '../../../shared/requeue/index.js';
import { seedUsage } from '../../../functions/schedule-shoot/scheduler.js';
import {
  createScheduleShootInstance,
  FUNCTION_NAME,
  runScheduleShootEvent,
} from '../../../functions/schedule-shoot/handler.js';
import type { ScheduleOutcome } from '../../../functions/schedule-shoot/schedule.js';
import {
  BUILT_MARK,
  COUNTS_KEY,
  createUsageStore,
  RECORDS_KEY,
  type UsageStore,
} from '../../../functions/schedule-shoot/usage.js';
import { SEED_CACHE_KEYS } from '../../../functions/schedule-shoot/seed-cache.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'garden-p';
const PROFILE = 'local';
const PROVIDER = 'local';

const CONFIG = `schedulerName: default-scheduler
# the tests change Seeds between steps and expect the next decision to see them
seedCacheTtl: 0s
candidateDeterminationStrategy: SameRegion
retrySyncPeriod: 1s
maxRetryPeriod: 10s
reserveAttempts: 10
reservationTimeout: 5s
rebuildTimeout: 10s
`;

let srv: ApiServer;
let redis: TestRedis;
let rc: Redis;
let dir: string;
let client: KubeClient;
let lines: Record<string, unknown>[] = [];
const instances: ReturnType<typeof createScheduleShootInstance>[] = [];
const connections: Redis[] = [];

const log = createLogger({
  name: 'schedule-shoot',
  level: 'debug',
  destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
});

function newInstance(
  kubeconfig: string,
  overrides: Parameters<typeof createScheduleShootInstance>[1] = {},
): ReturnType<typeof createScheduleShootInstance> {
  const i = createScheduleShootInstance(
    {
      env: () => ({ KUBECONFIG: kubeconfig, REDIS_URL: redis.url, CONFIG_FILE: '/schedule-shoot.yaml' }),
      readFile: () => Promise.resolve(CONFIG),
      log,
    },
    overrides,
  );
  instances.push(i);
  return i;
}

async function createSeed(name: string, region: string, allocatable?: number, type = region): Promise<void> {
  await client.create<Seed>(GVK.Seed, {
    metadata: { name },
    spec: {
      provider: { type, region },
      settings: { scheduling: { visible: true } },
      networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
    },
  });
  const status: Record<string, unknown> = {
    conditions: [{ type: 'GardenletReady', status: 'True', lastTransitionTime: new Date().toISOString() }],
    lastOperation: { type: 'Reconcile', state: 'Succeeded', lastUpdateTime: new Date().toISOString() },
  };
  if (allocatable !== undefined) {
    status.capacity = { shoots: String(allocatable) };
    status.allocatable = { shoots: String(allocatable) };
  }
  await client.patchStatus(GVK.Seed, { name }, { status });
}

async function createShoot(name: string, region: string, seedName?: string, type = region): Promise<void> {
  await client.create<Shoot>(GVK.Shoot, {
    metadata: { name, namespace: NS },
    spec: {
      cloudProfileName: PROFILE,
      region,
      provider: { type, workers: [{ name: 'pool', machine: { type: 'm' } }] },
      ...(seedName ? { seedName } : {}),
    },
  });
}

const getShoot = (name: string): Promise<Shoot> => client.get<Shoot>(GVK.Shoot, NS, name);

function apiEvent(name: string, action: 'add' | 'update' | 'delete' = 'add'): Record<string, unknown> {
  return {
    specversion: '1.0',
    id: `${name}-${action}-${Math.random()}`,
    source: 'https://garden/apis/v1/namespaces/landscape-system/apiserversources/seedmanagement',
    type: `dev.knative.apiserver.ref.${action}`,
    kind: 'Shoot',
    apiversion: 'core.gardener.cloud/v1beta1',
    name,
    namespace: NS,
    data: { kind: 'Shoot', apiVersion: 'core.gardener.cloud/v1beta1', name, namespace: NS },
  };
}

function requeueEvent(name: string): Record<string, unknown> {
  return {
    specversion: '1.0',
    id: `${name}-requeue-${Math.random()}`,
    source: '/apis/landscape/functions/requeue-tick',
    type: 'dev.landscape.requeue',
    target: FUNCTION_NAME,
    kind: 'Shoot',
    name,
    namespace: NS,
  };
}

async function counts(): Promise<Record<string, number>> {
  const all = await rc.hgetall(COUNTS_KEY);
  delete all[BUILT_MARK];
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, Number(v)]));
}

async function events(name: string): Promise<{ reason: string; type: string; message: string }[]> {
  const list = await client.list<{
    metadata: { name: string };
    involvedObject: { name: string; kind: string };
    reason: string;
    type: string;
    message: string;
  }>(GVK.Event, NS);
  return list.items
    .filter((e) => e.involvedObject.kind === 'Shoot' && e.involvedObject.name === name)
    .map(({ reason, type, message }) => ({ reason, type, message }));
}

async function allShoots(): Promise<Shoot[]> {
  return (await client.list<Shoot>(GVK.Shoot)).items;
}

/** An instance whose counts reads are followed by a pause of up to 150 ms (a slow replica). */
/**
 * Holds each caller until `size` callers wait (or `maxWaitMs` passed), then lets them all go: the
 * lagging instances' decisions overlap however busy the machine is (random lags did not always
 * make two decisions meet on a loaded machine).
 */
function barrier(size: number, maxWaitMs: number): () => Promise<void> {
  let waiting: Array<() => void> = [];
  let timer: NodeJS.Timeout | undefined;
  const release = (): void => {
    clearTimeout(timer);
    timer = undefined;
    const go = waiting;
    waiting = [];
    for (const resolve of go) resolve();
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length >= size) release();
      else timer ??= setTimeout(release, maxWaitMs);
    });
}

/** Six decisions at a time are taken from counts read before any of them reserved. */
const overlap = barrier(6, 300);

function laggingInstance(): ReturnType<typeof createScheduleShootInstance> {
  const conn = new Redis(redis.url);
  connections.push(conn);
  const store = createUsageStore(
    {
      client,
      redis: () => Promise.resolve(conn),
      now: Date.now,
      owner: `lagging-${connections.length}`,
      log,
    },
    { reservationTtlMs: 5000, rebuildTimeoutMs: 10_000 },
  );
  const usage: UsageStore = {
    sync: (shoot) => store.sync(shoot),
    forget: (key) => store.forget(key),
    reserve: (key, seed, n) => store.reserve(key, seed, n),
    release: (key, seed) => store.release(key, seed),
    ensure: () => store.ensure(),
    counts: async () => {
      const c = await store.counts();
      await overlap();
      return c;
    },
    countsOf: async (seeds) => {
      const c = await store.countsOf(seeds);
      await overlap();
      return c;
    },
  };
  return newInstance(kubeconfig, { usage });
}

let one: ReturnType<typeof createScheduleShootInstance>;
let kubeconfig: string;

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['garden'] });
  redis = await startRedis();
  rc = new Redis(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'schedule-shoot-'));
  kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('garden').kubeconfigYaml());
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('garden').kubeconfigYaml()));
  for (const name of [NS, 'garden']) await client.create(GVK.Namespace, { metadata: { name } });
  await client.create(GVK.CloudProfile, { metadata: { name: PROFILE }, spec: { type: PROVIDER } });
  one = newInstance(kubeconfig);
}, 30_000);

afterAll(async () => {
  for (const i of instances) await i.close();
  for (const c of connections) c.disconnect();
  rc?.disconnect();
  await redis?.stop();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  lines = [];
});

it('binds a new shoot to the seed with the fewest shoots, with a SchedulingSuccessful Event', async () => {
  await createSeed('fewest-a', 'fewest');
  await createSeed('fewest-b', 'fewest');
  await createShoot('old-1', 'fewest', 'fewest-a');
  await createShoot('new-1', 'fewest');
  const outcome = await runScheduleShootEvent(one, apiEvent('new-1'));
  expect(outcome).toEqual({ result: 'scheduled', seedName: 'fewest-b' });
  const bound = await getShoot('new-1');
  expect(bound.spec.seedName).toBe('fewest-b');
  // through shoots/binding, as gardener-scheduler binds (the only way spec.seedName changes)
  expect(bound.metadata?.managedFields).toContainEqual(
    expect.objectContaining({ manager: 'gardener-scheduler', operation: 'Update', subresource: 'binding' }),
  );
  expect(await events('new-1')).toEqual([
    { reason: 'SchedulingSuccessful', type: 'Normal', message: "Scheduled to seed 'fewest-b'" },
  ]);
  // The first event found no counts: they were rebuilt from the API (old-1 on fewest-a).
  expect(lines.map((l) => l.msg)).toContain('rebuilt the shoot usage counts from the API');
  expect(await counts()).toMatchObject({ 'fewest-a': 1, 'fewest-b': 1 });
  // The binding's own update event changes nothing.
  expect(await runScheduleShootEvent(one, apiEvent('new-1', 'update'))).toEqual({
    result: 'skipped',
    seedName: 'fewest-b',
  });
  expect(await counts()).toMatchObject({ 'fewest-a': 1, 'fewest-b': 1 });
});

it('ignores shoots of another scheduler and events that are not Shoot events', async () => {
  await client.create<Shoot>(GVK.Shoot, {
    metadata: { name: 'other-scheduler', namespace: NS },
    spec: {
      cloudProfileName: PROFILE,
      region: 'fewest',
      schedulerName: 'custom',
      provider: { type: PROVIDER },
    },
  });
  expect(await runScheduleShootEvent(one, apiEvent('other-scheduler'))).toEqual({ result: 'skipped' });
  expect((await getShoot('other-scheduler')).spec.seedName).toBeUndefined();
  expect(await runScheduleShootEvent(one, { ...apiEvent('x'), kind: 'Seed' })).toBeUndefined();
  expect(await runScheduleShootEvent(one, { ...requeueEvent('x'), target: 'weeder' })).toBeUndefined();
});

it('a full landscape: unscheduled, upstream message in lastOperation, SchedulingFailed Event, a requeue', async () => {
  await createSeed('full-1', 'full', 1);
  await createShoot('full-old', 'full', 'full-1');
  await runScheduleShootEvent(one, apiEvent('full-old'));
  await createShoot('full-new', 'full');
  const outcome = (await runScheduleShootEvent(one, apiEvent('full-new'))) as ScheduleOutcome & {
    description: string;
  };
  const description =
    'Failed to schedule Shoot: 0/1 seed cluster candidate(s) are eligible for scheduling: {full-1 => seed does not have available capacity for shoots}';
  expect(outcome).toMatchObject({ result: 'failed', description });
  const shoot = await getShoot('full-new');
  expect(shoot.spec.seedName).toBeUndefined();
  expect(shoot.status?.lastOperation).toMatchObject({ type: 'Create', state: 'Pending', description });
  expect(await events('full-new')).toEqual([
    { reason: 'SchedulingFailed', type: 'Warning', message: description },
  ]);
  const queued = await pending(rc, FUNCTION_NAME);
  const item = queued.find((q) => q.name === 'full-new');
  expect(item).toMatchObject({ kind: 'Shoot', namespace: NS, target: FUNCTION_NAME });
  expect(item!.at.getTime()).toBeGreaterThan(Date.now());
  expect(item!.at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);

  // The status write's update event: same failure, nothing written again.
  await runScheduleShootEvent(one, apiEvent('full-new', 'update'));
  expect(await events('full-new')).toHaveLength(1);
  // The retry (requeue event): written again, the backoff doubled.
  const retried = await runScheduleShootEvent(one, requeueEvent('full-new'));
  expect(retried).toMatchObject({ result: 'failed' });
  expect((retried as { retryInMs: number }).retryInMs).toBeGreaterThanOrEqual(1000);
  expect(await events('full-new')).toHaveLength(2);
});

it('a deleted shoot frees its count; the requeued shoot then gets the slot', async () => {
  expect((await counts())['full-1']).toBe(1);
  await client.delete(GVK.Shoot, { namespace: NS, name: 'full-old' });
  expect(await runScheduleShootEvent(one, apiEvent('full-old', 'delete'))).toEqual({ result: 'deleted' });
  expect((await counts())['full-1']).toBeUndefined();
  expect(await rc.hexists(RECORDS_KEY, `${NS}/full-old`)).toBe(0);
  expect(await runScheduleShootEvent(one, requeueEvent('full-new'))).toEqual({
    result: 'scheduled',
    seedName: 'full-1',
  });
  expect((await counts())['full-1']).toBe(1);
  // Scheduled: its retries are cancelled.
  expect((await pending(rc, FUNCTION_NAME)).find((q) => q.name === 'full-new')).toBeUndefined();
});

it('50 shoots handled at once by three instances never overcommit a seed', async () => {
  const allocatable: Record<string, number> = { 'race-1': 7, 'race-2': 10, 'race-3': 13 };
  for (const [name, n] of Object.entries(allocatable)) await createSeed(name, 'race', n);
  const names = Array.from({ length: 50 }, (_, i) => `race-${String(i).padStart(2, '0')}`);
  await Promise.all(names.map((n) => createShoot(n, 'race')));
  // Decisions overlap: every instance reads the counts, then waits for five other decisions
  // (barrier above), so they reserve on the same counts and reservations find seeds full.
  const three = [laggingInstance(), laggingInstance(), laggingInstance()];
  // Every shoot gets an add event on one instance and an update event on another, all at once.
  const outcomes = await Promise.all(
    names.flatMap((n, i) => [
      runScheduleShootEvent(three[i % 3], apiEvent(n)),
      runScheduleShootEvent(three[(i + 1) % 3], apiEvent(n, 'update')),
    ]),
  );
  expect(outcomes.every((o) => o !== undefined)).toBe(true);
  expect(
    lines.filter((l) => l.msg === 'the seed filled up meanwhile; deciding again').length,
  ).toBeGreaterThan(0);
  const afterBurst = seedUsage((await allShoots()).filter((s) => s.spec.region === 'race'));
  for (const [seed, n] of Object.entries(allocatable)) expect(afterBurst[seed] ?? 0).toBeLessThanOrEqual(n);
  // Shoots that lost every race were requeued: their retries run until the landscape is full.
  for (let round = 0; round < 5; round++) {
    const shoots = (await allShoots()).filter((s) => s.spec.region === 'race' && !s.spec.seedName);
    await Promise.all(
      shoots.map((s, i) => runScheduleShootEvent(three[i % 3], requeueEvent(s.metadata!.name!))),
    );
  }
  const race = (await allShoots()).filter((s) => s.spec.region === 'race');
  const bound = seedUsage(race);
  expect(bound).toEqual(allocatable);
  expect(race.filter((s) => !s.spec.seedName)).toHaveLength(50 - 30);
  const c = await counts();
  for (const seed of Object.keys(allocatable)) expect(c[seed]).toBe(bound[seed]);
  const scheduled = race.filter((s) => s.spec.seedName);
  for (const s of scheduled) {
    const e = await events(s.metadata!.name!);
    expect(e.filter((x) => x.reason === 'SchedulingSuccessful')).toHaveLength(1);
  }
}, 60_000);

/** An instance whose client runs `meanwhile` once, right before the first binding (a PUT). */
function interruptedInstance(meanwhile: () => Promise<void>): ReturnType<typeof createScheduleShootInstance> {
  let done = false;
  const racing = Object.create(client) as KubeClient;
  racing.replace = async (gvk, object, opts) => {
    if (!done) {
      done = true;
      await meanwhile();
    }
    return client.replace(gvk, object, opts);
  };
  return newInstance(kubeconfig, { client: racing });
}

/** Binds a shoot as another scheduler would: a PUT of the Shoot to shoots/binding. */
async function bindElsewhere(name: string, seedName: string): Promise<void> {
  const shoot = await getShoot(name);
  await client.replace(
    GVK.Shoot,
    { ...shoot, spec: { ...shoot.spec, seedName } },
    { subresource: 'binding' },
  );
}

it('a shoot that changed while being scheduled is decided again (the binding is optimistic)', async () => {
  await createSeed('conflict-1', 'conflict');
  await createShoot('conflict-a', 'conflict');
  const i = interruptedInstance(async () => {
    await client.mergePatch(
      GVK.Shoot,
      { namespace: NS, name: 'conflict-a' },
      { metadata: { labels: { x: 'y' } } },
    );
  });
  expect(await runScheduleShootEvent(i, apiEvent('conflict-a'))).toEqual({
    result: 'scheduled',
    seedName: 'conflict-1',
  });
  expect(lines.map((l) => l.msg)).toContain('the shoot changed while scheduling; deciding again');
  const shoot = await getShoot('conflict-a');
  expect(shoot.spec.seedName).toBe('conflict-1');
  expect(shoot.metadata?.labels).toEqual({ x: 'y' });
  expect((await counts())['conflict-1']).toBe(1);
});

it('a shoot bound by someone else meanwhile is not bound again and its reservation is released', async () => {
  await createSeed('conflict-2', 'conflict');
  await createShoot('conflict-b', 'conflict');
  // conflict-1 has one shoot, so the decision is conflict-2; someone binds it to conflict-1.
  const i = interruptedInstance(() => bindElsewhere('conflict-b', 'conflict-1'));
  expect(await runScheduleShootEvent(i, apiEvent('conflict-b'))).toEqual({
    result: 'skipped',
    seedName: 'conflict-1',
  });
  expect((await getShoot('conflict-b')).spec.seedName).toBe('conflict-1');
  expect(await counts()).toMatchObject({ 'conflict-1': 2 });
  expect((await counts())['conflict-2']).toBeUndefined();
  expect(await events('conflict-b')).toEqual([]);
});

it('a binding the API server refuses (the seed marked for deletion meanwhile) is a failure, its slot released', async () => {
  await createSeed('refuse-1', 'refuse', 5);
  await createShoot('refuse-a', 'refuse');
  const i = interruptedInstance(async () => {
    await client.mergePatch(GVK.Seed, { name: 'refuse-1' }, { metadata: { finalizers: ['test/hold'] } });
    await client.delete(GVK.Seed, { name: 'refuse-1' });
  });
  const refused =
    "Failed to schedule Shoot: shoots.core.gardener.cloud \"refuse-a\" is forbidden: cannot schedule shoot 'refuse-a' on seed 'refuse-1' that is already marked for deletion";
  expect(await runScheduleShootEvent(i, apiEvent('refuse-a'))).toEqual({
    result: 'failed',
    description: refused,
    retryInMs: expect.any(Number),
  });
  const shoot = await getShoot('refuse-a');
  expect(shoot.spec.seedName).toBeUndefined();
  expect(shoot.status?.lastOperation).toMatchObject({
    type: 'Create',
    state: 'Pending',
    description: refused,
  });
  expect(await events('refuse-a')).toEqual([
    { reason: 'SchedulingFailed', type: 'Warning', message: refused },
  ]);
  expect((await counts())['refuse-1'] ?? 0).toBe(0);
  await client.mergePatch(GVK.Seed, { name: 'refuse-1' }, { metadata: { finalizers: null } });
});

it('the API server serves shoots/binding and refuses a direct change of spec.seedName', async () => {
  const resources = await client.request({ method: 'GET', path: '/apis/core.gardener.cloud/v1beta1' });
  const list = JSON.parse(resources.body) as { resources: { name: string; verbs: string[] }[] };
  expect(list.resources).toContainEqual(
    expect.objectContaining({ name: 'shoots/binding', verbs: ['get', 'patch', 'update'] }),
  );
  await createSeed('direct-1', 'direct');
  await createShoot('direct-a', 'direct');
  const err: unknown = await client
    .mergePatch(GVK.Shoot, { namespace: NS, name: 'direct-a' }, { spec: { seedName: 'direct-1' } })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(statusOf(err)).toMatchObject({
    code: 403,
    reason: 'Forbidden',
    message:
      "shoots.core.gardener.cloud \"direct-a\" is forbidden: spec.seedName 'nil' cannot be changed to 'direct-1' by patching the shoot, please use the shoots/binding subresource",
  });
  expect((await getShoot('direct-a')).spec.seedName).toBeUndefined();
  await bindElsewhere('direct-a', 'direct-1');
  expect((await getShoot('direct-a')).spec.seedName).toBe('direct-1');
  // the binding's update event: counted, not bound again
  expect(await runScheduleShootEvent(one, apiEvent('direct-a', 'update'))).toEqual({
    result: 'skipped',
    seedName: 'direct-1',
  });
});

it('MinimalDistance: the region-config ConfigMap of namespace garden decides', async () => {
  await createSeed('md-1-far', 'md-a', undefined, 'md');
  await createSeed('md-2-near', 'md-b', undefined, 'md');
  await client.create(GVK.ConfigMap, {
    metadata: {
      name: 'region-config',
      namespace: 'garden',
      labels: { 'scheduling.gardener.cloud/purpose': 'region-config' },
      annotations: { 'scheduling.gardener.cloud/cloudprofiles': PROFILE },
    },
    data: { 'md-shoot': 'md-a: 10\nmd-b: 1\n' },
  });
  await createShoot('md', 'md-shoot', undefined, 'md');
  const sameRegion = await runScheduleShootEvent(one, apiEvent('md'));
  expect(sameRegion).toMatchObject({ result: 'failed' });
  const minimal = createScheduleShootInstance({
    env: () => ({
      KUBECONFIG: kubeconfig,
      REDIS_URL: redis.url,
      CONFIG_FILE: '/schedule-shoot.yaml',
      CANDIDATE_DETERMINATION_STRATEGY: 'MinimalDistance',
    }),
    readFile: () => Promise.resolve(CONFIG),
    log,
  });
  instances.push(minimal);
  expect(await runScheduleShootEvent(minimal, requeueEvent('md'))).toEqual({
    result: 'scheduled',
    seedName: 'md-2-near',
  });
});

it('rebuilds the counts once, from the API, after Redis lost them', async () => {
  const before = await counts();
  await rc.del(COUNTS_KEY);
  await createSeed('rebuild-1', 'rebuild');
  await createShoot('rebuild-new', 'rebuild');
  await createShoot('rebuild-other', 'rebuild');
  const three = [newInstance(kubeconfig), newInstance(kubeconfig), newInstance(kubeconfig)];
  const outcomes = await Promise.all([
    runScheduleShootEvent(three[0], apiEvent('rebuild-new')),
    runScheduleShootEvent(three[1], apiEvent('rebuild-other')),
    runScheduleShootEvent(three[2], apiEvent('race-00', 'update')),
  ]);
  expect(outcomes.slice(0, 2)).toEqual([
    { result: 'scheduled', seedName: 'rebuild-1' },
    { result: 'scheduled', seedName: 'rebuild-1' },
  ]);
  expect(lines.filter((l) => l.msg === 'rebuilt the shoot usage counts from the API')).toHaveLength(1);
  expect(await counts()).toEqual({ ...before, 'rebuild-1': 2 });
  expect(await counts()).toEqual(seedUsage(await allShoots()));
});

it('with the Seed cache (seedCacheTtl > 0): the Seeds listed into Redis once, the next decisions from it', async () => {
  await createSeed('cached-a', 'cached');
  await createShoot('cached-1', 'cached');
  await createShoot('cached-2', 'cached');
  const cachedConfig = CONFIG.replace('seedCacheTtl: 0s', 'seedCacheTtl: 60s');
  const cached = createScheduleShootInstance({
    env: () => ({ KUBECONFIG: kubeconfig, REDIS_URL: redis.url, CONFIG_FILE: '/schedule-shoot.yaml' }),
    readFile: () => Promise.resolve(cachedConfig),
    log,
  });
  instances.push(cached);
  expect(await runScheduleShootEvent(cached, apiEvent('cached-1'))).toEqual({
    result: 'scheduled',
    seedName: 'cached-a',
  });
  expect(await runScheduleShootEvent(cached, apiEvent('cached-2'))).toEqual({
    result: 'scheduled',
    seedName: 'cached-a',
  });
  expect(lines.filter((l) => l.msg === 'listed the Seeds into the seed cache')).toHaveLength(1);
  expect(await rc.hexists(SEED_CACHE_KEYS[0], 'listedAt')).toBe(1);
});
