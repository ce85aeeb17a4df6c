/**
 * Issue 8, the deployers family: deployer-manifest, deployitem-timeout and syncobject-cleanup run
 * their happy path with a kubeconfig holding only a token of their own ServiceAccount (the RBAC of
 * their knative/ manifests, applied to the embedded API server with RBAC enforced), do their job,
 * log no 403, and are refused a request beyond their Role. The manifest deployer's Target is a
 * second cluster reached with the Target's own (admin) credentials: the Role under test is the
 * host side's. landscaper-monitoring is in rbac-runtime.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem, SyncObject } from '../../shared/api/landscaper.js';
import { createKubeClient, kubeConfigFromYaml } from '../../shared/kube/index.js';
import { createLogger } from '../../shared/log/index.js';
import { expectedSyncObjectName, newSyncObject } from '../../shared/lock/index.js';
import { createDeployerInstance, runDeployerEvent } from '../../shared/deployer/host/function.js';
import { triggerJob } from '../../functions/responsibility-check/jobs.js';
import { FUNCTION_NAME as MANIFEST, plugin } from '../../functions/deployer-manifest/handler.js';
import { createTimeoutInstance, runTimeoutTick } from '../../functions/deployitem-timeout/handler.js';
import { createCleanupInstance, runCleanupTick } from '../../functions/syncobject-cleanup/handler.js';
import {
  capturingLogger,
  forbiddenLines,
  gone,
  manifestConfig,
  startRbacCluster,
  SYSTEM,
  type RbacCluster,
} from './rbac-support.js';

const LS = 'landscaper.gardener.cloud/v1alpha1';
let c: RbacCluster;

beforeAll(async () => {
  c = await startRbacCluster({ others: [{ name: 'target' }] });
}, 30_000);

afterAll(async () => {
  await c?.stop();
});

function deployItem(namespace: string, name: string, spec: Partial<DeployItem['spec']> = {}): DeployItem {
  return {
    apiVersion: LS,
    kind: 'DeployItem',
    metadata: { name, namespace },
    spec: { type: 'landscaper.gardener.cloud/kubernetes-manifest', config: { a: 1 }, ...spec },
  };
}

describe('deployer-manifest', () => {
  const NS = 'rbac-manifest';
  const ITEM = 'app';
  const POD = 'deployer-manifest-replica-a';
  const log = createLogger({ name: 'admin', level: 'error' });
  const trigger = (): Promise<unknown> =>
    triggerJob(
      { client: c.admin, now: () => new Date(), newId: randomUUID, log },
      { ensureDefaultContext: true },
      { namespace: NS, name: ITEM },
    );

  it('applies its manifests to the Target and writes the status with only its Roles, and cannot write the host', async () => {
    const id = await c.identity(MANIFEST);
    const { log: fnLog, lines } = capturingLogger(MANIFEST);
    await c.ensureNamespace(NS);
    const target = c.srv.cluster('target');
    await c.admin.create(GVK.Secret, {
      metadata: { name: 'tgt-kubeconfig', namespace: NS },
      data: { kubeconfig: Buffer.from(target.kubeconfigYaml()).toString('base64') },
    });
    await c.admin.create(GVK.Target, {
      apiVersion: LS,
      kind: 'Target',
      metadata: { name: 'tgt', namespace: NS },
      spec: {
        type: 'landscaper.gardener.cloud/kubernetes-cluster',
        secretRef: { name: 'tgt-kubeconfig' },
      },
    });
    const manifests = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'rbac-app' } },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'app', namespace: 'rbac-app' },
        data: { a: '1' },
      },
    ];
    const created = await c.admin.create<DeployItem>(
      GVK.DeployItem,
      deployItem(NS, ITEM, {
        target: { name: 'tgt' },
        config: {
          apiVersion: 'manifest.deployer.landscaper.gardener.cloud/v1alpha2',
          kind: 'ProviderConfiguration',
          manifests: manifests.map((manifest) => ({ policy: 'manage', manifest })),
        },
      }),
    );
    // a lock left by a replica that is gone: its Pod is looked up (the Role on landscape-system)
    const lockName = expectedSyncObjectName('manifest', created.metadata!.uid!);
    await c.admin.create<SyncObject>(
      GVK.SyncObject,
      newSyncObject({
        name: lockName,
        prefix: 'manifest',
        target: { kind: 'DeployItem', namespace: NS, name: ITEM, uid: created.metadata!.uid! },
        owner: 'deployer-manifest-replica-gone',
        now: new Date(),
      }),
    );
    expect(await trigger()).toBe('Created');

    const instance = createDeployerInstance(MANIFEST, plugin, {
      env: () => ({
        KUBECONFIG: id.kubeconfig,
        REDIS_URL: c.redis.url,
        CONFIG_FILE: '/etc/landscape/config.yaml',
        POD_NAME: POD,
        POD_NAMESPACE: SYSTEM,
      }),
      readFile: () => manifestConfig('deployers', MANIFEST),
      log: fnLog,
    });
    const event = {
      type: 'dev.landscape.deployitem.reconcile',
      deployertype: 'manifest',
      namespace: NS,
      name: ITEM,
    };
    const tgt = createKubeClient(kubeConfigFromYaml(target.kubeconfigYaml()));
    try {
      expect(await runDeployerEvent(MANIFEST, plugin, instance, event)).toBe('finished');
      const item = await c.admin.get<DeployItem>(GVK.DeployItem, NS, ITEM);
      expect(item.status).toMatchObject({ phase: 'Succeeded', deployer: { identity: MANIFEST } });
      const cm = await tgt.get<{ metadata: object; data: Record<string, string> }>(
        GVK.ConfigMap,
        'rbac-app',
        'app',
      );
      expect(cm.data).toEqual({ a: '1' });
      expect(item.status?.jobIDFinished).toBe(item.status?.jobID);
      expect((item.status?.providerStatus as { managedResources: unknown[] }).managedResources).toHaveLength(
        2,
      );
      expect(item.metadata?.finalizers).toContain('finalizer.landscaper.gardener.cloud');
      // the dead replica's lock was taken over, and released
      expect((await c.admin.get<SyncObject>(GVK.SyncObject, NS, lockName)).spec.podName).toBe('');
      // the objects went to the Target's cluster only
      expect(await gone(c.admin.get(GVK.ConfigMap, 'rbac-app', 'app'))).toBe(true);

      // the host cluster is not written with the function's token, and no Secret is listed
      expect(await c.can(id.token, { verb: 'create', resource: 'configmaps', namespace: NS })).toBe(false);
      expect(await c.can(id.token, { verb: 'list', resource: 'secrets', namespace: NS })).toBe(false);
      expect(await c.statusOf(id.token, `/api/v1/namespaces/${NS}/secrets`)).toBe(403);
      const di = { group: 'landscaper.gardener.cloud', resource: 'deployitems', namespace: NS };
      expect(await c.can(id.token, { verb: 'delete', ...di })).toBe(false);
      expect(await c.can(id.token, { verb: 'update', ...di, subresource: 'status' })).toBe(false);
      expect(
        await c.statusOf(
          id.token,
          `/apis/landscaper.gardener.cloud/v1alpha1/namespaces/${NS}/deployitems/${ITEM}`,
          'DELETE',
        ),
      ).toBe(403);
      expect(await c.statusOf(id.token, `/api/v1/namespaces/${NS}/pods`)).toBe(403);

      // uninstall: the Target's objects are deleted, then the finalizer
      await c.admin.delete(GVK.DeployItem, { namespace: NS, name: ITEM });
      expect(await trigger()).toBe('Deleting');
      let outcome: unknown;
      for (let i = 0; i < 20 && outcome !== 'deleted'; i++) {
        outcome = await runDeployerEvent(MANIFEST, plugin, instance, event);
        if (outcome !== 'deleted') await new Promise((r) => setTimeout(r, 200));
      }
      expect(outcome).toBe('deleted');
    } finally {
      await instance.close();
    }
    expect(await gone(tgt.get(GVK.ConfigMap, 'rbac-app', 'app'))).toBe(true);
    expect(await gone(c.admin.get(GVK.DeployItem, NS, ITEM))).toBe(true);
    expect(forbiddenLines(lines)).toEqual([]);
  });
});

describe('deployitem-timeout', () => {
  const NS = 'rbac-timeout';

  async function withJob(name: string, target: string, ageMs: number): Promise<void> {
    await c.admin.create(GVK.DeployItem, deployItem(NS, name, { target: { name: target } }));
    await c.admin.patchStatus(
      GVK.DeployItem,
      { namespace: NS, name },
      {
        status: {
          observedGeneration: 0,
          jobID: `job-${name}`,
          jobIDGenerationTime: new Date(Date.now() - ageMs).toISOString(),
        },
      },
    );
  }

  it('fails the items no deployer picked up with only its ClusterRole, and cannot read one item', async () => {
    const id = await c.identity('deployitem-timeout');
    const { log, lines } = capturingLogger('deployitem-timeout');
    await c.ensureNamespace(NS);
    await c.admin.create(GVK.Target, {
      apiVersion: LS,
      kind: 'Target',
      metadata: { name: 'here', namespace: NS },
      spec: { type: 'landscaper.gardener.cloud/kubernetes-cluster', config: { kubeconfig: 'x' } },
    });
    await withJob('stuck-missing', 'absent', 600_000);
    await withJob('stuck-here', 'here', 600_000);
    await withJob('fresh', 'here', 0);
    const instance = createTimeoutInstance({
      env: () => ({ KUBECONFIG: id.kubeconfig, CONFIG_FILE: '/etc/landscape/config.yaml' }),
      readFile: () => manifestConfig('deployers', 'deployitem-timeout'),
      log,
    });
    try {
      expect(await runTimeoutTick(instance)).toMatchObject({ timedOut: 2, conflicts: 0 });
    } finally {
      await instance.close();
    }
    const status = async (name: string): Promise<DeployItem['status']> =>
      (await c.admin.get<DeployItem>(GVK.DeployItem, NS, name)).status;
    expect(await status('stuck-missing')).toMatchObject({
      phase: 'Failed',
      jobIDFinished: 'job-stuck-missing',
      lastError: { reason: 'PickupTimeout', codes: ['ERR_TIMEOUT'] },
    });
    expect((await status('stuck-missing'))?.lastError?.message).toContain('Target does not exist');
    expect((await status('stuck-here'))?.lastError?.message).not.toContain('Target');
    expect(await status('stuck-here')).toMatchObject({ phase: 'Failed' });
    expect((await status('fresh'))?.phase).toBeUndefined();
    expect(forbiddenLines(lines)).toEqual([]);

    // it lists; it never reads, patches or deletes one item
    const items = `/apis/landscaper.gardener.cloud/v1alpha1/namespaces/${NS}/deployitems`;
    expect(await c.statusOf(id.token, `${items}/fresh`)).toBe(403);
    expect(await c.statusOf(id.token, `${items}/fresh`, 'DELETE')).toBe(403);
    const di = { group: 'landscaper.gardener.cloud', resource: 'deployitems', namespace: NS };
    expect(await c.can(id.token, { verb: 'patch', ...di })).toBe(false);
    expect(await c.can(id.token, { verb: 'patch', ...di, subresource: 'status' })).toBe(false);
    expect(
      await c.can(id.token, { verb: 'list', group: 'landscaper.gardener.cloud', resource: 'targets' }),
    ).toBe(false);
  });
});

describe('syncobject-cleanup', () => {
  const NS = 'rbac-cleanup';

  async function locked(name: string, owner = '', since = new Date()): Promise<string> {
    const item = await c.admin.create<DeployItem>(GVK.DeployItem, deployItem(NS, name));
    const uid = item.metadata!.uid!;
    const so = expectedSyncObjectName('mock', uid);
    await c.admin.create<SyncObject>(
      GVK.SyncObject,
      newSyncObject({
        name: so,
        prefix: 'mock',
        target: { kind: 'DeployItem', namespace: NS, name, uid },
        owner,
        now: since,
      }),
    );
    return so;
  }

  it('deletes the SyncObject of a gone DeployItem and unlocks a gone Pod’s lock with only its Roles, and reads nothing else', async () => {
    const id = await c.identity('syncobject-cleanup');
    const { log, lines } = capturingLogger('syncobject-cleanup');
    await c.ensureNamespace(NS);
    const live = await locked('live');
    const stale = await locked('stale');
    await c.admin.delete(GVK.DeployItem, { namespace: NS, name: 'stale' });
    // locks held for a minute: by a deployer Pod that is gone, and by one that runs
    const minuteAgo = new Date(Date.now() - 60_000);
    const orphan = await locked('orphan', 'deployer-mock-gone', minuteAgo);
    const held = await locked('held', 'deployer-mock-running', minuteAgo);
    await c.admin.create(GVK.Pod, {
      metadata: { name: 'deployer-mock-running', namespace: SYSTEM },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    const instance = createCleanupInstance({
      env: () => ({
        KUBECONFIG: id.kubeconfig,
        CONFIG_FILE: '/etc/landscape/config.yaml',
        POD_NAMESPACE: SYSTEM,
      }),
      readFile: () => manifestConfig('deployers', 'syncobject-cleanup'),
      log,
    });
    try {
      const counts = await runCleanupTick(instance);
      expect(counts).toMatchObject({ failed: 0, skipped: 0, unlocked: 1 });
      expect(counts?.deleted).toBeGreaterThanOrEqual(1);
    } finally {
      await instance.close();
    }
    expect(await gone(c.admin.get(GVK.SyncObject, NS, stale))).toBe(true);
    expect(await gone(c.admin.get(GVK.SyncObject, NS, live))).toBe(false);
    const podOf = async (so: string): Promise<string> =>
      (await c.admin.get<SyncObject>(GVK.SyncObject, NS, so)).spec.podName;
    expect(await podOf(orphan)).toBe('');
    expect(await podOf(held)).toBe('deployer-mock-running');
    expect(forbiddenLines(lines)).toEqual([]);

    // a SyncObject of another kind could not be judged; it never creates locks nor lists items
    expect(await c.can(id.token, { verb: 'get', resource: 'configmaps', namespace: NS })).toBe(false);
    const so = { group: 'landscaper.gardener.cloud', resource: 'syncobjects', namespace: NS };
    expect(await c.can(id.token, { verb: 'create', ...so })).toBe(false);
    expect(await c.can(id.token, { verb: 'patch', ...so })).toBe(false);
    // Pods: read one by name in its own namespace only
    expect(await c.statusOf(id.token, `/api/v1/namespaces/${SYSTEM}/pods`)).toBe(403);
    expect(await c.statusOf(id.token, `/api/v1/namespaces/${NS}/pods/x`)).toBe(403);
    expect(
      await c.statusOf(id.token, `/apis/landscaper.gardener.cloud/v1alpha1/namespaces/${NS}/deployitems`),
    ).toBe(403);
    expect(
      await c.statusOf(
        id.token,
        `/apis/landscaper.gardener.cloud/v1alpha1/namespaces/${NS}/deployitems/live`,
        'DELETE',
      ),
    ).toBe(403);
  });
});
