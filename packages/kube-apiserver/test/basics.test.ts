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
