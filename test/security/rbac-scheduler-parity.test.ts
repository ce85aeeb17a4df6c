/**
 * Issue 15 item 4: schedule-shoot reads a shoot's NamespacedCloudProfile (get) and, for a shoot with
 * `spec.dns.domain`, the Projects (list) with only the ClusterRole of
 * knative/seedmanagement/schedule-shoot.yaml (applied to the embedded API server with RBAC
 * enforced), binds both shoots, logs no 403, and is refused what it does not need.
 */
import { randomUUID } from 'node:crypto';
import type { Seed, Shoot, ShootSpec } from '../../shared/api/core.js';
import { GVK } from '../../shared/api/gvk.js';
import {
  createScheduleShootInstance,
  runScheduleShootEvent,
} from '../../functions/schedule-shoot/handler.js';
import { NAMESPACED_CLOUD_PROFILE_GVK } from '../../functions/schedule-shoot/inputs.js';
import { capturingLogger, forbiddenLines, startRbacCluster, type RbacCluster } from './rbac-support.js';

const NS = 'garden-rbacparity';
const CONFIG = `schedulerName: default-scheduler
seedCacheTtl: 0s
candidateDeterminationStrategy: SameRegion
retrySyncPeriod: 1s
maxRetryPeriod: 10s
reserveAttempts: 10
reservationTimeout: 5s
rebuildTimeout: 10s
`;

let c: RbacCluster;

beforeAll(async () => {
  c = await startRbacCluster();
}, 30_000);

afterAll(async () => {
  await c?.stop();
});

async function createSeed(
  name: string,
  spec: Partial<Seed['spec']>,
  labels?: Record<string, string>,
): Promise<void> {
  await c.admin.create<Seed>(GVK.Seed, {
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: {
      provider: { type: 'rbacp', region: 'rbacp' },
      settings: { scheduling: { visible: true } },
      networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
      ...spec,
    },
  });
  const now = new Date().toISOString();
  await c.admin.patchStatus(
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

it('schedules through a NamespacedCloudProfile and a managed domain with only its ClusterRole', async () => {
  const id = await c.identity('schedule-shoot');
  const { log, lines } = capturingLogger('schedule-shoot');
  await c.ensureNamespace(NS);
  await c.admin.create(GVK.Project, { metadata: { name: 'rbacparity' }, spec: { namespace: NS } });
  await c.admin.create(GVK.CloudProfile, {
    metadata: { name: 'rbacp-parent' },
    spec: { type: 'rbacp', seedSelector: { matchLabels: { tier: 'gold' } } },
  });
  await c.admin.create(NAMESPACED_CLOUD_PROFILE_GVK, {
    metadata: { name: 'rbacp-ncp', namespace: NS },
    spec: { parent: { kind: 'CloudProfile', name: 'rbacp-parent' } },
  });
  const credentialsRef = { apiVersion: 'v1', kind: 'Secret', name: 'dns', namespace: 'garden' };
  await createSeed('rbacp-plain', {});
  await createSeed(
    'rbacp-gold',
    { dns: { defaults: [{ type: 'local', domain: 'example.com', credentialsRef }] } },
    { tier: 'gold' },
  );
  const spec = (extra: Partial<ShootSpec>): ShootSpec => ({
    cloudProfile: { kind: 'NamespacedCloudProfile', name: 'rbacp-ncp' },
    region: 'rbacp',
    provider: { type: 'rbacp', workers: [{ name: 'pool', machine: { type: 'm' } }] },
    ...extra,
  });
  await c.admin.create<Shoot>(GVK.Shoot, { metadata: { name: 'ncp', namespace: NS }, spec: spec({}) });
  await c.admin.create<Shoot>(GVK.Shoot, {
    metadata: { name: 'dom', namespace: NS },
    spec: spec({ dns: { domain: 'dom.rbacparity.example.com' } }),
  });
  const instance = createScheduleShootInstance({
    env: () => ({ KUBECONFIG: id.kubeconfig, REDIS_URL: c.redis.url, CONFIG_FILE: '/schedule-shoot.yaml' }),
    readFile: () => Promise.resolve(CONFIG),
    log,
  });
  try {
    for (const name of ['ncp', 'dom']) {
      const outcome = await runScheduleShootEvent(instance, {
        specversion: '1.0',
        id: randomUUID(),
        source: 'https://garden/apis/v1/namespaces/landscape-system/apiserversources/seedmanagement',
        type: 'dev.knative.apiserver.ref.add',
        kind: 'Shoot',
        apiversion: 'core.gardener.cloud/v1beta1',
        name,
        namespace: NS,
        data: { kind: 'Shoot', apiVersion: 'core.gardener.cloud/v1beta1', name, namespace: NS },
      });
      expect(outcome).toEqual({ result: 'scheduled', seedName: 'rbacp-gold' });
    }
  } finally {
    await instance.close();
  }
  expect(forbiddenLines(lines)).toEqual([]);

  const group = 'core.gardener.cloud';
  expect(
    await c.can(id.token, { verb: 'get', group, resource: 'namespacedcloudprofiles', namespace: NS }),
  ).toBe(true);
  expect(
    await c.can(id.token, { verb: 'list', group, resource: 'namespacedcloudprofiles', namespace: NS }),
  ).toBe(false);
  expect(
    await c.can(id.token, { verb: 'update', group, resource: 'namespacedcloudprofiles', namespace: NS }),
  ).toBe(false);
  expect(await c.can(id.token, { verb: 'list', group, resource: 'projects' })).toBe(true);
  expect(await c.can(id.token, { verb: 'get', group, resource: 'projects' })).toBe(false);
  expect(await c.can(id.token, { verb: 'update', group, resource: 'projects' })).toBe(false);
  expect(await c.can(id.token, { verb: 'get', resource: 'secrets', namespace: NS })).toBe(false);
}, 60_000);
