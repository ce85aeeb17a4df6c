/**
 * Issue 8, the seed-management family: managedseedset, seed-autoscaler and deletion-protection run
 * their happy path with a kubeconfig holding only a token of their own ServiceAccount (the RBAC of
 * their knative/ manifests, applied to the embedded API server with RBAC enforced), do their job,
 * log no 403, and are refused a request beyond their Role. The test plays gardenlet and the users
 * (Shoot status, Seeds, deletions) as the admin.
 */
import { randomUUID } from 'node:crypto';
import type { Seed, Shoot } from '../../shared/api/core.js';
import { GVK, type GroupVersionKind } from '../../shared/api/gvk.js';
import type { ManagedSeed, ManagedSeedSet } from '../../shared/api/seedmanagement.js';
import type { SeedAutoscaler } from '../../shared/api/seedautoscaler.js';
import { resourcePath } from '../../shared/kube/index.js';
import {
  createManagedSeedSetInstance,
  runManagedSeedSetEvent,
} from '../../functions/managedseedset/handler.js';
import {
  createSeedAutoscalerInstance,
  runSeedAutoscalerEvent,
} from '../../functions/seed-autoscaler/handler.js';
import { createProtectionInstance, runProtectionEvent } from '../../functions/deletion-protection/handler.js';
import { PROTECTION_FINALIZER } from '../../functions/deletion-protection/decide.js';
import {
  capturingLogger,
  forbiddenLines,
  gone,
  manifestConfig,
  refEvent,
  startRbacCluster,
  type RbacCluster,
} from './rbac-support.js';

let c: RbacCluster;

beforeAll(async () => {
  c = await startRbacCluster();
}, 30_000);

afterAll(async () => {
  await c?.stop();
});

const SM = 'seedmanagement.gardener.cloud';
const CORE = 'core.gardener.cloud';
const seedSpec = {
  provider: { type: 'local', region: 'local' },
  networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
};
async function scaleOf(namespace: string, name: string): Promise<number> {
  const res = await c.admin.request({
    method: 'GET',
    path: resourcePath(GVK.ManagedSeedSet, { namespace, name, subresource: 'scale' }),
  });
  return (JSON.parse(res.body) as { spec: { replicas: number } }).spec.replicas;
}

describe('managedseedset', () => {
  const NS = 'garden-rbac-mss';
  const LABELS = { app: 'rbac-seeds' };
  const set: ManagedSeedSet = {
    apiVersion: `${SM}/v1alpha1`,
    kind: 'ManagedSeedSet',
    metadata: { name: 'rbac-seeds', namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS },
        spec: { gardenlet: { config: { seedConfig: { metadata: { labels: LABELS }, spec: seedSpec } } } },
      },
      shootTemplate: {
        metadata: { labels: LABELS },
        spec: { region: 'local', provider: { type: 'local' }, dns: { domain: 'replica-name.seeds.local' } },
      },
    },
  };

  it('creates its Shoot and ManagedSeed, then scales in, with only its ClusterRole; cannot patch ManagedSeeds', async () => {
    const id = await c.identity('managedseedset');
    const { log, lines } = capturingLogger('managedseedset');
    await c.ensureNamespace(NS);
    await c.admin.create(GVK.ManagedSeedSet, set);
    const instance = createManagedSeedSetInstance({
      env: () => ({
        KUBECONFIG: id.kubeconfig,
        REDIS_URL: c.redis.url,
        CONFIG_FILE: '/etc/landscape/config.yaml',
      }),
      readFile: () => manifestConfig('seedmanagement', 'managedseedset'),
      log,
    });
    const run = (ce: object): Promise<unknown> => runManagedSeedSetEvent(instance, ce);
    try {
      expect(await run(refEvent('ManagedSeedSet', 'rbac-seeds', 'add', NS))).toEqual([
        expect.objectContaining({
          outcome: 'scale-out',
          replica: { name: 'rbac-seeds-0', step: 'create-shoot' },
        }),
      ]);
      const shoot = await c.admin.get<Shoot>(GVK.Shoot, NS, 'rbac-seeds-0');
      expect(shoot.metadata?.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'ManagedSeedSet', name: 'rbac-seeds', controller: true }),
      ]);
      const created = await c.admin.get<ManagedSeedSet>(GVK.ManagedSeedSet, NS, 'rbac-seeds');
      expect(created.metadata?.finalizers).toEqual(['gardener']);
      expect(created.status).toMatchObject({ replicas: 1, pendingReplica: { name: 'rbac-seeds-0' } });
      expect(await c.eventReasons('rbac-seeds', NS)).toMatchObject({ CreatingShoot: 1 });

      // gardenlet reconciled the Shoot: its ManagedSeed next
      await c.admin.patchStatus(
        GVK.Shoot,
        { namespace: NS, name: 'rbac-seeds-0' },
        {
          status: {
            observedGeneration: shoot.metadata?.generation,
            lastOperation: {
              type: 'Create',
              state: 'Succeeded',
              progress: 100,
              lastUpdateTime: new Date().toISOString(),
            },
          },
        },
      );
      expect(await run(refEvent('Shoot', 'rbac-seeds-0', 'update', NS))).toEqual([
        expect.objectContaining({ replica: { name: 'rbac-seeds-0', step: 'create-managed-seed' } }),
      ]);
      const ms = await c.admin.get<ManagedSeed>(GVK.ManagedSeed, NS, 'rbac-seeds-0');
      expect(ms.spec.shoot).toEqual({ name: 'rbac-seeds-0' });

      // scale-in to 0: the ManagedSeed, then its Shoot
      await c.admin.mergePatch(
        GVK.ManagedSeedSet,
        { namespace: NS, name: 'rbac-seeds' },
        { spec: { replicas: 0 } },
        { subresource: 'scale' },
      );
      expect(await run(refEvent('ManagedSeedSet', 'rbac-seeds', 'update', NS))).toEqual([
        expect.objectContaining({
          outcome: 'scale-in',
          replica: { name: 'rbac-seeds-0', step: 'delete-managed-seed' },
        }),
      ]);
      expect(await gone(c.admin.get(GVK.ManagedSeed, NS, 'rbac-seeds-0'))).toBe(true);
      expect(await run(refEvent('ManagedSeed', 'rbac-seeds-0', 'delete', NS))).toEqual([
        expect.objectContaining({ replica: { name: 'rbac-seeds-0', step: 'delete-shoot' } }),
      ]);
      expect(await gone(c.admin.get(GVK.Shoot, NS, 'rbac-seeds-0'))).toBe(true);
      expect(await c.queued('managedseedset')).toContainEqual(
        expect.objectContaining({ name: 'rbac-seeds' }),
      );
    } finally {
      await instance.close();
    }
    expect(forbiddenLines(lines)).toEqual([]);

    // ManagedSeeds are created and deleted, never changed; the set itself is never deleted
    expect(await c.can(id.token, { verb: 'patch', group: SM, resource: 'managedseeds', namespace: NS })).toBe(
      false,
    );
    expect(
      await c.can(id.token, { verb: 'update', group: SM, resource: 'managedseeds', namespace: NS }),
    ).toBe(false);
    expect(
      await c.can(id.token, { verb: 'delete', group: SM, resource: 'managedseedsets', namespace: NS }),
    ).toBe(false);
    expect(
      await c.statusOf(
        id.token,
        `/apis/${SM}/v1alpha1/namespaces/${NS}/managedseedsets/rbac-seeds`,
        'DELETE',
      ),
    ).toBe(403);
    expect(await c.can(id.token, { verb: 'create', group: CORE, resource: 'seeds' })).toBe(false);
    expect(await c.statusOf(id.token, `/api/v1/namespaces/${NS}/secrets`)).toBe(403);
  });
});

describe('seed-autoscaler', () => {
  const NS = 'garden-rbac-auto';
  const DEV = 'garden-rbac-dev';
  const SET = 'rbac-auto';
  const LABELS = { app: 'rbac-auto-seeds' };

  async function replica(name: string, setUid: string): Promise<void> {
    await c.admin.create<ManagedSeed>(GVK.ManagedSeed, {
      metadata: {
        name,
        namespace: NS,
        labels: LABELS,
        ownerReferences: [
          {
            apiVersion: GVK.ManagedSeedSet.apiVersion,
            kind: 'ManagedSeedSet',
            name: SET,
            uid: setUid,
            controller: true,
          },
        ],
      },
      spec: { shoot: { name } },
    });
    await c.admin.create<Seed>(GVK.Seed, { metadata: { name, labels: LABELS }, spec: seedSpec });
    await c.admin.patchStatus(
      GVK.Seed,
      { name },
      { status: { allocatable: { shoots: '4' }, capacity: { shoots: '4' } } },
    );
    for (let i = 0; i < 3; i++) {
      await c.admin.create<Shoot>(GVK.Shoot, {
        metadata: { name: `${name}-shoot-${i}`, namespace: DEV },
        spec: { region: 'local', provider: { type: 'local' }, seedName: name },
      });
    }
  }

  it("raises the set's replicas through its scale subresource with only its ClusterRole, and cannot patch the set", async () => {
    const id = await c.identity('seed-autoscaler');
    const { log, lines } = capturingLogger('seed-autoscaler');
    await c.ensureNamespace(NS);
    await c.ensureNamespace(DEV);
    const created = await c.admin.create<ManagedSeedSet>(GVK.ManagedSeedSet, {
      metadata: { name: SET, namespace: NS },
      spec: {
        replicas: 2,
        selector: { matchLabels: LABELS },
        template: { metadata: { labels: LABELS }, spec: {} },
        shootTemplate: {
          metadata: { labels: LABELS },
          spec: { region: 'local', provider: { type: 'local' } },
        },
      },
    });
    await replica(`${SET}-0`, created.metadata!.uid!);
    await replica(`${SET}-1`, created.metadata!.uid!);
    const autoscaler: SeedAutoscaler = {
      metadata: { name: SET, namespace: NS },
      spec: {
        scaleTargetRef: { apiVersion: `${SM}/v1alpha1`, kind: 'ManagedSeedSet', name: SET },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'shoots', target: { type: 'Utilization', averageUtilization: 50 } },
          },
        ],
      },
    };
    await c.admin.create(GVK.SeedAutoscaler, autoscaler);
    const instance = createSeedAutoscalerInstance({
      env: () => ({ KUBECONFIG: id.kubeconfig, CONFIG_FILE: '/etc/landscape/config.yaml' }),
      readFile: () => manifestConfig('seedmanagement', 'seed-autoscaler'),
      log,
    });
    try {
      const tick = {
        specversion: '1.0',
        id: randomUUID(),
        source: '/apis/v1/namespaces/landscape-system/pingsources/seedmanagement-resync',
        type: 'dev.knative.sources.ping',
        data: { job: 'resync', family: 'seedmanagement' },
      };
      // 3 of 4 shoots on each seed: 75 % against a 50 % target, so 3 replicas
      expect(await runSeedAutoscalerEvent(instance, tick)).toEqual([
        expect.objectContaining({ outcome: 'rescaled', currentReplicas: 2, desiredReplicas: 3 }),
      ]);
    } finally {
      await instance.close();
    }
    expect(await scaleOf(NS, SET)).toBe(3);
    const a = await c.admin.get<SeedAutoscaler>(GVK.SeedAutoscaler, NS, SET);
    expect(a.status).toMatchObject({ currentReplicas: 2, desiredReplicas: 3 });
    expect(await c.eventReasons(SET, NS)).toMatchObject({ SuccessfulRescale: 1 });
    expect(forbiddenLines(lines)).toEqual([]);

    // only the scale subresource of the set; the autoscaler's spec and single Seeds are not its own
    const sets = `/apis/${SM}/v1alpha1/namespaces/${NS}/managedseedsets`;
    expect(
      await c.can(id.token, { verb: 'patch', group: SM, resource: 'managedseedsets', namespace: NS }),
    ).toBe(false);
    expect(await c.statusOf(id.token, `${sets}/${SET}`)).toBe(403);
    expect(await c.statusOf(id.token, `${sets}/${SET}/scale`)).toBe(200);
    expect(
      await c.can(id.token, {
        verb: 'update',
        group: 'autoscaling.landscape.dev',
        resource: 'seedautoscalers',
        namespace: NS,
      }),
    ).toBe(false);
    expect(await c.statusOf(id.token, `/apis/${CORE}/v1beta1/seeds/${SET}-0`)).toBe(403);
  });
});

describe('deletion-protection', () => {
  const NS = 'garden-rbac-dp';
  const SEED = 'rbac-dp-seed';
  const SHOOT = 'rbac-dp-shoot';

  it('keeps its finalizer and warns while a Seed is used, with only its ClusterRole; cannot delete or update', async () => {
    const id = await c.identity('deletion-protection');
    const { log, lines } = capturingLogger('deletion-protection');
    await c.ensureNamespace(NS);
    await c.admin.create<Seed>(GVK.Seed, { metadata: { name: SEED }, spec: seedSpec });
    await c.admin.create<Shoot>(GVK.Shoot, {
      metadata: {
        name: SHOOT,
        namespace: NS,
        annotations: { 'confirmation.gardener.cloud/deletion': 'true' },
      },
      spec: { region: 'local', provider: { type: 'local' }, seedName: SEED },
    });
    await c.admin.create<ManagedSeed>(GVK.ManagedSeed, {
      metadata: { name: 'rbac-dp-ms', namespace: NS },
      spec: { shoot: { name: SHOOT } },
    });
    const instance = createProtectionInstance({
      env: () => ({
        KUBECONFIG: id.kubeconfig,
        REDIS_URL: c.redis.url,
        CONFIG_FILE: '/etc/landscape/config.yaml',
      }),
      readFile: () => manifestConfig('seedmanagement', 'deletion-protection'),
      log,
    });
    const run = (ce: object): Promise<unknown> => runProtectionEvent(instance, ce);
    const finalizers = async (
      gvk: GroupVersionKind,
      namespace: string | undefined,
      name: string,
    ): Promise<string[]> => (await c.admin.get<Seed>(gvk, namespace, name)).metadata?.finalizers ?? [];
    try {
      expect(await run(refEvent('Seed', SEED, 'add'))).toEqual([
        expect.objectContaining({ op: 'add-finalizer' }),
      ]);
      expect(await finalizers(GVK.Seed, undefined, SEED)).toContain(PROTECTION_FINALIZER);
      expect(await run(refEvent('ManagedSeed', 'rbac-dp-ms', 'add', NS))).toEqual([
        expect.objectContaining({ kind: 'Shoot', name: SHOOT, op: 'add-finalizer' }),
      ]);
      expect(await finalizers(GVK.Shoot, NS, SHOOT)).toContain(PROTECTION_FINALIZER);

      // the Seed is deleted while the Shoot uses it: kept, a Warning (counted again), a look later
      await c.admin.delete(GVK.Seed, { name: SEED });
      expect(await run(refEvent('Seed', SEED, 'update'))).toEqual([expect.objectContaining({ op: 'keep' })]);
      expect(await run(refEvent('Seed', SEED, 'update'))).toEqual([expect.objectContaining({ op: 'keep' })]);
      expect(await c.eventReasons(SEED)).toEqual({ DeletionBlocked: 2 });
      expect(await c.queued('deletion-protection')).toContainEqual(
        expect.objectContaining({ kind: 'Seed', name: SEED }),
      );

      // the ManagedSeed goes, the Shoot is released and deleted, then the Seed
      await c.admin.delete(GVK.ManagedSeed, { namespace: NS, name: 'rbac-dp-ms' });
      expect(await run(refEvent('ManagedSeed', 'rbac-dp-ms', 'delete', NS))).toEqual([
        expect.objectContaining({ kind: 'Shoot', name: SHOOT, op: 'remove-finalizer' }),
      ]);
      await c.admin.delete(GVK.Shoot, { namespace: NS, name: SHOOT });
      expect(await gone(c.admin.get(GVK.Shoot, NS, SHOOT))).toBe(true);
      expect(await run(refEvent('Shoot', SHOOT, 'delete', NS))).toEqual([
        expect.objectContaining({ kind: 'Seed', name: SEED, op: 'remove-finalizer' }),
      ]);
      expect(await gone(c.admin.get(GVK.Seed, undefined, SEED))).toBe(true);
    } finally {
      await instance.close();
    }
    expect(forbiddenLines(lines)).toEqual([]);

    // it keeps finalizers; it never deletes, replaces or changes ManagedSeeds
    for (const resource of ['seeds', 'shoots']) {
      expect(await c.can(id.token, { verb: 'delete', group: CORE, resource, namespace: NS })).toBe(false);
      expect(await c.can(id.token, { verb: 'update', group: CORE, resource, namespace: NS })).toBe(false);
    }
    expect(await c.statusOf(id.token, `/apis/${CORE}/v1beta1/seeds/${SEED}`, 'DELETE')).toBe(403);
    expect(await c.can(id.token, { verb: 'patch', group: SM, resource: 'managedseeds', namespace: NS })).toBe(
      false,
    );
    expect(
      await c.can(id.token, {
        verb: 'patch',
        group: CORE,
        resource: 'shoots',
        subresource: 'status',
        namespace: NS,
      }),
    ).toBe(false);
    expect(await c.statusOf(id.token, `/api/v1/namespaces/${NS}/secrets`)).toBe(403);
  });
});
