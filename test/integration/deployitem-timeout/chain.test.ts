/**
 * deployitem-timeout against the embedded API server and a private redis-server: each sweep queues
 * the next one (shared/requeue, target deployitem-timeout) at the time the first pending job can be
 * due, or one pickup timeout less its slack after the sweep; an item due then is failed by that
 * sweep; a warm instance asked early (the resync) skips the list and keeps the queued time; without
 * `redisUrl` nothing is queued. The clock is injected.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import type { DeployItem } from '../../../shared/api/landscaper.js';
import { crdFiles } from '../../../shared/api/crds.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { createLogger } from '../../../shared/log/index.js';
import { due, pending } from '../../../shared/requeue/index.js';
import { createTimeoutInstance, runTimeoutTick } from '../../../functions/deployitem-timeout/handler.js';
import { SWEEP_REF } from '../../../functions/deployitem-timeout/schedule.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

const NS = 'timeout-chain';
const TARGET = 'deployitem-timeout';
const T0 = Date.parse('2026-11-27T12:00:00Z');
const quiet = createLogger({ name: TARGET, level: 'error', destination: { write: () => undefined } });

let srv: ApiServer;
let redis: TestRedis;
let client: Redis;
let kube: KubeClient;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles() });
  redis = await startRedis();
  client = new Redis(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'timeout-chain-'));
  kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster().kubeconfigYaml());
  kube = createKubeClient(kubeConfigFromYaml(srv.cluster().kubeconfigYaml()));
  await kube.create(GVK.Namespace, { metadata: { name: NS } });
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await client.flushall();
});

/** An item whose job was handed out at `handedOutMs` and never picked up. */
async function withJob(name: string, handedOutMs: number): Promise<void> {
  await kube.create(GVK.DeployItem, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name, namespace: NS },
    spec: { type: 'example.com/nobody', config: {} },
  });
  await kube.patchStatus(
    GVK.DeployItem,
    { namespace: NS, name },
    {
      status: {
        observedGeneration: 0,
        jobID: `job-${name}`,
        jobIDGenerationTime: new Date(handedOutMs).toISOString(),
      },
    },
  );
}

function instance(
  clock: { ms: number },
  redisUrl: string | undefined,
): ReturnType<typeof createTimeoutInstance> {
  return createTimeoutInstance(
    {
      env: () => ({
        KUBECONFIG: kubeconfig,
        CONFIG_FILE: '/c.yaml',
        ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
      }),
      readFile: () => Promise.resolve('pickupTimeout: 5m\n'),
      log: quiet,
    },
    { now: () => new Date(clock.ms) },
  );
}

async function queued(): Promise<number[]> {
  const items = await pending(client, TARGET);
  expect(items.every((i) => i.kind === SWEEP_REF.kind && i.name === SWEEP_REF.name)).toBe(true);
  return items.map((i) => i.at.getTime());
}

async function phase(name: string): Promise<string | undefined> {
  return (await kube.get<DeployItem>(GVK.DeployItem, NS, name)).status?.phase;
}

it('queues the next sweep when the first job is due, and that sweep fails the item', async () => {
  await withJob('early', T0 - 240_000); // due at T0 + 60 s
  await withJob('late', T0 - 10_000); // due at T0 + 290 s
  const clock = { ms: T0 };
  const fn = instance(clock, redis.url);
  try {
    expect(await runTimeoutTick(fn)).toMatchObject({ checked: 2, timedOut: 0 });
    expect(await queued()).toEqual([T0 + 60_000]);

    // the resync pings a warm instance early: no list; it queues its next sweep again (here the
    // entry was lost meanwhile)
    await client.flushall();
    clock.ms = T0 + 30_000;
    expect(await runTimeoutTick(fn)).toMatchObject({ skipped: true, checked: 0 });
    expect(await queued()).toEqual([T0 + 60_000]);

    // requeue-tick pops the entry when due (the event): the sweep fails 'early', queues 'late'
    clock.ms = T0 + 61_000;
    expect((await due(client, TARGET, new Date(clock.ms), 10)).map((i) => i.name)).toEqual([SWEEP_REF.name]);
    expect(await queued()).toEqual([]);
    expect(await runTimeoutTick(fn)).toMatchObject({ checked: 2, timedOut: 1 });
    expect(await phase('early')).toBe('Failed');
    expect(await phase('late')).toBeUndefined();
    expect(await queued()).toEqual([T0 + 290_000]);
  } finally {
    await fn.close();
    await kube.delete(GVK.DeployItem, { namespace: NS, name: 'early' });
    await kube.delete(GVK.DeployItem, { namespace: NS, name: 'late' });
  }
});

it('with nothing pending, the next sweep is one timeout less its slack later; a cold instance keeps an earlier entry', async () => {
  const clock = { ms: T0 };
  const first = instance(clock, redis.url);
  const second = instance(clock, redis.url);
  try {
    expect(await runTimeoutTick(first)).toMatchObject({ checked: 0, next: new Date(T0 + 270_000) });
    expect(await queued()).toEqual([T0 + 270_000]);
    clock.ms = T0 + 10_000;
    expect(await runTimeoutTick(second)).toMatchObject({ checked: 0, next: new Date(T0 + 280_000) });
    expect(await queued()).toEqual([T0 + 270_000]);
  } finally {
    await first.close();
    await second.close();
  }
});

it('a sweep the API server fails queues a retry a minute later, then throws', async () => {
  const clock = { ms: T0 };
  const failing = createTimeoutInstance(
    {
      env: () => ({ KUBECONFIG: kubeconfig, CONFIG_FILE: '/c.yaml', REDIS_URL: redis.url }),
      readFile: () => Promise.resolve('pickupTimeout: 5m\n'),
      log: quiet,
    },
    {
      now: () => new Date(clock.ms),
      client: { list: () => Promise.reject(new Error('503 from the API server')) } as never,
    },
  );
  try {
    await expect(runTimeoutTick(failing)).rejects.toThrow('503 from the API server');
    expect(await queued()).toEqual([T0 + 60_000]);
  } finally {
    await failing.close();
  }
});

it('queues nothing without redisUrl and still sweeps', async () => {
  await withJob('old', T0 - 600_000);
  const fn = instance({ ms: T0 }, undefined);
  try {
    const r = await runTimeoutTick(fn);
    expect(r).toMatchObject({ checked: 1, timedOut: 1 });
    expect(r.next).toBeUndefined();
    expect(await phase('old')).toBe('Failed');
    expect(await client.keys('*')).toEqual([]);
  } finally {
    await fn.close();
    await kube.delete(GVK.DeployItem, { namespace: NS, name: 'old' });
  }
});
