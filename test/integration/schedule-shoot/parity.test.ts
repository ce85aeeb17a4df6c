/**
 * Issue 15 item 4, schedule-shoot against the embedded API server (the product's Gardener CRDs)
 * and a private redis-server: upstream's network-disjointedness candidate check (a shoot whose IPv6
 * pods network overlaps the only seed's stays unscheduled with upstream's message in
 * status.lastOperation and a SchedulingFailed Event), a Seed with `spec.dns.defaults` is accepted
 * and kept, the domain stage picks the seed whose default domain carries `<shoot>.<project>.`, and
 * a shoot's NamespacedCloudProfile is merged onto its parent (the parent's seed selector applies).
 * Each case uses a provider type of its own, so only its seeds pass the provider stage.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import type { NamespacedCloudProfile, Seed, SeedSpec, Shoot, ShootSpec } from '../../../shared/api/core.js';
import { GVK } from '../../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { createLogger } from '../../../shared/log/index.js';
import {
  createScheduleShootInstance,
  runScheduleShootEvent,
} from '../../../functions/schedule-shoot/handler.js';
import { NAMESPACED_CLOUD_PROFILE_GVK } from '../../../functions/schedule-shoot/inputs.js';
import type { ScheduleOutcome } from '../../../functions/schedule-shoot/schedule.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'garden-parity';
const PROFILE = 'parity';

const CONFIG = `schedulerName: default-scheduler
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
let dir: string;
let client: KubeClient;
let instance: ReturnType<typeof createScheduleShootInstance>;

const log = createLogger({ name: 'schedule-shoot', level: 'warn', destination: { write: () => undefined } });

const secretRef = (name: string): Record<string, string> => ({
  apiVersion: 'v1',
  kind: 'Secret',
  name,
  namespace: 'garden',
});

async function createSeed(
  name: string,
  type: string,
  patch: Partial<SeedSpec> = {},
  labels?: Record<string, string>,
): Promise<void> {
  await client.create<Seed>(GVK.Seed, {
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: {
      provider: { type, region: type },
      settings: { scheduling: { visible: true } },
      networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
      ...patch,
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
      },
    },
  );
}

async function createShoot(name: string, type: string, patch: Partial<ShootSpec> = {}): Promise<void> {
  await client.create<Shoot>(GVK.Shoot, {
    metadata: { name, namespace: NS },
    spec: {
      cloudProfileName: PROFILE,
      region: type,
      provider: { type, workers: [{ name: 'pool', machine: { type: 'm' } }] },
      ...patch,
    },
  });
}

function schedule(name: string): Promise<ScheduleOutcome | undefined> {
  return runScheduleShootEvent(instance, {
    specversion: '1.0',
    id: `${name}-${Math.random()}`,
    source: 'https://garden/apis/v1/namespaces/landscape-system/apiserversources/seedmanagement',
    type: 'dev.knative.apiserver.ref.add',
    kind: 'Shoot',
    apiversion: 'core.gardener.cloud/v1beta1',
    name,
    namespace: NS,
    data: { kind: 'Shoot', apiVersion: 'core.gardener.cloud/v1beta1', name, namespace: NS },
  });
}

async function events(name: string): Promise<{ reason: string; message: string }[]> {
  const list = await client.list<{
    metadata: { name: string };
    involvedObject: { name: string };
    reason: string;
    message: string;
  }>(GVK.Event, NS);
  return list.items
    .filter((e) => e.involvedObject.name === name)
    .map(({ reason, message }) => ({ reason, message }));
}

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['garden'] });
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'schedule-parity-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('garden').kubeconfigYaml());
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('garden').kubeconfigYaml()));
  for (const name of [NS, 'garden']) await client.create(GVK.Namespace, { metadata: { name } });
  await client.create(GVK.CloudProfile, { metadata: { name: PROFILE }, spec: { type: 'netv6' } });
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

it('leaves a shoot whose IPv6 pods network overlaps the only seed unscheduled, with upstream message', async () => {
  await createSeed('netv6-a', 'netv6', {
    networks: { pods: '2001:db8:1::/48', services: '2001:db8:2::/108', ipFamilies: ['IPv6'] },
  });
  await createShoot('overlap', 'netv6', { networking: { pods: '2001:db8:1:4::/64', ipFamilies: ['IPv6'] } });
  const outcome = await schedule('overlap');
  const message =
    'Failed to schedule Shoot: 0/1 seed cluster candidate(s) are eligible for scheduling: {netv6-a => invalid networks: ' +
    '[Invalid value: "2001:db8:1:4::/64": shoot pod network intersects with seed pod network]}';
  expect(outcome).toMatchObject({ result: 'failed', description: message });
  const shoot = await client.get<Shoot>(GVK.Shoot, NS, 'overlap');
  expect(shoot.spec.seedName).toBeUndefined();
  expect(shoot.status?.lastOperation).toMatchObject({
    type: 'Create',
    state: 'Pending',
    description: message,
  });
  expect(await events('overlap')).toContainEqual({ reason: 'SchedulingFailed', message });

  // An IPv4 shoot equal to the seed's networks is placed (upstream allows IPv4 overlap).
  await createShoot('v4-equal', 'netv6', { networking: { pods: '10.1.0.0/16', services: '10.2.0.0/16' } });
  expect(await schedule('v4-equal')).toEqual({ result: 'scheduled', seedName: 'netv6-a' });
});

it('accepts a Seed with spec.dns.defaults and schedules a Gardener-managed domain to it', async () => {
  await client.create(GVK.Project, { metadata: { name: 'parity' }, spec: { namespace: NS } });
  const dns = {
    provider: { type: 'local', credentialsRef: secretRef('dns') },
    internal: { type: 'local', domain: 'internal.example.com', credentialsRef: secretRef('internal') },
    defaults: [{ type: 'local', domain: 'example.com', credentialsRef: secretRef('default') }],
  };
  await createSeed('dom-other', 'dom', { dns: { defaults: [{ ...dns.defaults[0], domain: 'other.com' }] } });
  await createSeed('dom-example', 'dom', { dns });
  expect((await client.get<Seed>(GVK.Seed, undefined, 'dom-example')).spec.dns).toEqual(dns);

  await createShoot('managed', 'dom', { dns: { domain: 'managed.parity.example.com' } });
  expect(await schedule('managed')).toEqual({ result: 'scheduled', seedName: 'dom-example' });

  await createShoot('wrong', 'dom', { dns: { domain: 'wrong.other-project.example.com' } });
  const failed = await schedule('wrong');
  expect(failed).toMatchObject({
    result: 'failed',
    description:
      'Failed to schedule Shoot: none of the 2 seeds support the domain "wrong.other-project.example.com" configured in the shoot specification',
  });

  await createShoot('custom', 'dom', { dns: { domain: 'custom.domain.io' } });
  expect(await schedule('custom')).toMatchObject({ result: 'scheduled' });
});

it("schedules with a NamespacedCloudProfile merged onto its parent (the parent's seed selector)", async () => {
  await client.create(GVK.CloudProfile, {
    metadata: { name: 'ncp-parent' },
    spec: { type: 'ncp', seedSelector: { matchLabels: { tier: 'gold' } } },
  });
  await client.create<NamespacedCloudProfile>(NAMESPACED_CLOUD_PROFILE_GVK, {
    metadata: { name: 'ncp-dev', namespace: NS },
    spec: {
      parent: { kind: 'CloudProfile', name: 'ncp-parent' },
      machineTypes: [{ name: 'big', cpu: '64' }],
    },
  });
  await createSeed('ncp-plain', 'ncp');
  await createSeed('ncp-gold', 'ncp', {}, { tier: 'gold' });
  const spec = { cloudProfile: { kind: 'NamespacedCloudProfile', name: 'ncp-dev' } };
  await client.create<Shoot>(GVK.Shoot, {
    metadata: { name: 'namespaced', namespace: NS },
    spec: {
      ...spec,
      region: 'ncp',
      provider: { type: 'ncp', workers: [{ name: 'pool', machine: { type: 'm' } }] },
    },
  });
  expect(await schedule('namespaced')).toEqual({ result: 'scheduled', seedName: 'ncp-gold' });

  await client.create<Shoot>(GVK.Shoot, {
    metadata: { name: 'missing-ncp', namespace: NS },
    spec: {
      cloudProfile: { kind: 'NamespacedCloudProfile', name: 'nope' },
      region: 'ncp',
      provider: { type: 'ncp' },
    },
  });
  expect(await schedule('missing-ncp')).toMatchObject({
    result: 'failed',
    description: 'Failed to schedule Shoot: namespacedcloudprofiles.core.gardener.cloud "nope" not found',
  });
});
