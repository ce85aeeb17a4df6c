/**
 * schedule-shoot's resync against the embedded API server and a private redis-server: the ping of
 * the seed-management resync PingSource binds every unscheduled shoot of this scheduler that no
 * event ever named (created before the function ran: Knative's ApiServerSource sends nothing for
 * them), and leaves bound shoots, shoots of another scheduler and shoots being deleted alone.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import type { Seed, Shoot } from '../../../shared/api/core.js';
import { GVK } from '../../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { createLogger } from '../../../shared/log/index.js';
import {
  createScheduleShootInstance,
  runScheduleShootEvent,
} from '../../../functions/schedule-shoot/handler.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'garden-resync';
const CONFIG = `schedulerName: default-scheduler
seedCacheTtl: 0s
candidateDeterminationStrategy: SameRegion
retrySyncPeriod: 1s
maxRetryPeriod: 10s
reserveAttempts: 10
reservationTimeout: 5s
rebuildTimeout: 10s
`;
const PING = {
  specversion: '1.0',
  id: 'ping-1',
  type: 'dev.knative.sources.ping',
  source: '/apis/v1/namespaces/landscape-system/pingsources/seedmanagement-resync',
  data: { job: 'resync', family: 'seedmanagement' },
};

let srv: ApiServer;
let redis: TestRedis;
let dir: string;
let client: KubeClient;
let instance: ReturnType<typeof createScheduleShootInstance>;

const log = createLogger({ name: 'schedule-shoot', level: 'error' });

async function createSeed(name: string): Promise<void> {
  await client.create<Seed>(GVK.Seed, {
    metadata: { name },
    spec: {
      provider: { type: 'local', region: 'local' },
      settings: { scheduling: { visible: true } },
      networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
    },
  });
  const now = new Date().toISOString();
  await client.patchStatus(
    GVK.Seed,
    { name },
    {
      status: {
        conditions: [{ type: 'GardenletReady', status: 'True', lastTransitionTime: now }],
        lastOperation: { type: 'Reconcile', state: 'Succeeded', lastUpdateTime: now },
        capacity: { shoots: '10' },
        allocatable: { shoots: '10' },
      },
    },
  );
}

async function createShoot(
  name: string,
  spec: Partial<Shoot['spec']> = {},
  finalizers?: string[],
): Promise<void> {
  await client.create<Shoot>(GVK.Shoot, {
    metadata: { name, namespace: NS, ...(finalizers ? { finalizers } : {}) },
    spec: {
      cloudProfileName: 'local',
      region: 'local',
      provider: { type: 'local', workers: [{ name: 'pool', machine: { type: 'm' } }] },
      ...spec,
    },
  });
}

const seedOf = async (name: string): Promise<string | undefined> =>
  (await client.get<Shoot>(GVK.Shoot, NS, name)).spec.seedName;

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['garden'] });
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'schedule-shoot-resync-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('garden').kubeconfigYaml());
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('garden').kubeconfigYaml()));
  for (const name of [NS, 'garden']) await client.create(GVK.Namespace, { metadata: { name } });
  await client.create(GVK.CloudProfile, { metadata: { name: 'local' }, spec: { type: 'local' } });
  instance = createScheduleShootInstance({
    env: () => ({ KUBECONFIG: kubeconfig, REDIS_URL: redis.url, CONFIG_FILE: '/schedule-shoot.yaml' }),
    readFile: () => Promise.resolve(CONFIG),
    log,
  });
}, 30_000);

afterAll(async () => {
  await instance?.close();
  await redis?.stop();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

it('binds every unscheduled shoot of this scheduler, and nothing else', async () => {
  await createSeed('seed-1');
  await createShoot('waiting-1');
  await createShoot('waiting-2');
  await createShoot('bound', { seedName: 'seed-1' });
  await createShoot('elsewhere', { schedulerName: 'other-scheduler' });
  await createShoot('leaving', {}, ['test/keep']);
  await client.delete(GVK.Shoot, { namespace: NS, name: 'leaving' });

  expect(await runScheduleShootEvent(instance, PING)).toBeUndefined();

  expect(await seedOf('waiting-1')).toBe('seed-1');
  expect(await seedOf('waiting-2')).toBe('seed-1');
  expect(await seedOf('bound')).toBe('seed-1');
  expect(await seedOf('elsewhere')).toBeUndefined();
  expect(await seedOf('leaving')).toBeUndefined();

  // a second pass finds nothing to do
  const before = (await client.get<Shoot>(GVK.Shoot, NS, 'waiting-1')).metadata?.resourceVersion;
  await runScheduleShootEvent(instance, PING);
  expect((await client.get<Shoot>(GVK.Shoot, NS, 'waiting-1')).metadata?.resourceVersion).toBe(before);
});
