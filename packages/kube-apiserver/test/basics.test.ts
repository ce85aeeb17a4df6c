import * as k8s from '@kubernetes/client-node';
import { expectStatus, startTestServer, type TestServer } from './support/cluster.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe('discovery through client-node', () => {
  it('serves /version', async () => {
    const v = await t.kc.makeApiClient(k8s.VersionApi).getCode();
    expect(v.major).toBe('1');
    expect(v.gitVersion).toMatch(/^v1\.32\./);
  });

  it('lists core resources with their verbs, short names and subresources', async () => {
    const list = await t.core.getAPIResources();
    const cm = list.resources.find((r) => r.name === 'configmaps')!;
    expect(cm).toMatchObject({ kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] });
    expect(cm.verbs).toEqual(
      expect.arrayContaining([
        'create',
        'get',
        'list',
        'watch',
        'patch',
        'update',
        'delete',
        'deletecollection',
      ]),
    );
    expect(list.resources.map((r) => r.name)).toContain('namespaces/status');
  });

  it('lists API groups including the product CRD groups', async () => {
    const groups = await t.kc.makeApiClient(k8s.ApisApi).getAPIVersions();
    const names = groups.groups.map((g) => g.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'apps',
        'coordination.k8s.io',
        'autoscaling',
        'apiextensions.k8s.io',
        'discovery.k8s.io',
        'landscaper.gardener.cloud',
        'core.gardener.cloud',
        'seedmanagement.gardener.cloud',
        'extensions.gardener.cloud',
        'machine.sapcloud.io',
      ]),
    );
  });

  it('describes scale subresources of Deployment and ManagedSeedSet', async () => {
    const apps = await t.apps.getAPIResources();
    expect(apps.resources.find((r) => r.name === 'deployments/scale')).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    const sm = await t.raw('/apis/seedmanagement.gardener.cloud/v1alpha1');
    expect(sm.json.resources.map((r: { name: string }) => r.name)).toEqual(
      expect.arrayContaining(['managedseedsets/scale', 'managedseedsets/status']),
    );
  });

  it('serves ReplicationControllers with status and scale, DaemonSets with status only', async () => {
    const core = await t.core.getAPIResources();
    expect(core.resources.find((r) => r.name === 'replicationcontrollers')).toMatchObject({
      kind: 'ReplicationController',
      namespaced: true,
      shortNames: ['rc'],
      categories: ['all'],
    });
    expect(core.resources.map((r) => r.name)).toEqual(
      expect.arrayContaining(['replicationcontrollers/status', 'replicationcontrollers/scale']),
    );
    const apps = await t.apps.getAPIResources();
    expect(apps.resources.find((r) => r.name === 'daemonsets')).toMatchObject({
      kind: 'DaemonSet',
      shortNames: ['ds'],
      categories: ['all'],
    });
    const names = apps.resources.map((r) => r.name);
    expect(names).toContain('daemonsets/status');
    expect(names).not.toContain('daemonsets/scale');
  });

  it("renders a ReplicationController's label map selector in its Scale", async () => {
    await t.core.createNamespacedReplicationController({
      namespace: 'default',
      body: {
        metadata: { name: 'scaled' },
        spec: {
          replicas: 2,
          template: {
            metadata: { labels: { tier: 'web', app: 'legacy' } },
            spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
          },
        },
      },
    });
    const scale = await t.core.readNamespacedReplicationControllerScale({
      name: 'scaled',
      namespace: 'default',
    });
    expect(scale.spec?.replicas).toBe(2);
    expect(scale.status).toEqual({ replicas: 0, selector: 'app=legacy,tier=web' });
  });
});

describe('authentication', () => {
  it('answers 401 Unauthorized without a token', async () => {
    const res = await t.raw('/api/v1/namespaces', { token: null });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('answers 401 with a wrong token', async () => {
    const res = await t.raw('/version', { token: 'not-the-token' });
    expect(res.status).toBe(401);
  });

  it('rejects client-node with a wrong token', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(t.server.cluster().kubeconfigYaml().replace(t.server.cluster().token, 'wrong'));
    const s = await expectStatus(() => kc.makeApiClient(k8s.CoreV1Api).listNamespace());
    expect(s.code).toBe(401);
  });
});
