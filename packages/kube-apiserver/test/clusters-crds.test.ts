/**
 * Conformance: several clusters in one process (own port, own token, own objects), and CRD
 * lifecycle (a created CRD is served at once; deleting it removes its objects), driven through
 * @kubernetes/client-node.
 */
import * as k8s from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../src/index.js';
import {
  expectStatus,
  kubeConfigFor,
  rawRequest,
  startTestServer,
  type TestServer,
} from './support/cluster.js';
import { deployItem, DEPLOYITEMS, eventually, freshNamespace, MERGE_PATCH } from './conformance.js';
import { productCrdFiles } from './support/crds.js';

describe('several clusters in one process', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ crdFiles: productCrdFiles(), clusters: ['garden', 'seed'] });
  });
  afterAll(() => server.stop());

  const core = (cluster: string): k8s.CoreV1Api =>
    kubeConfigFor(server, cluster).makeApiClient(k8s.CoreV1Api);

  it('gives each cluster its own port and its own token', () => {
    const [garden, seed] = server.clusters();
    expect(new URL(garden.url).port).not.toBe(new URL(seed.url).port);
    expect(garden.token).not.toBe(seed.token);
    expect(server.cluster().name).toBe('garden');
  });

  it('refuses the token of one cluster on the other with 401', async () => {
    const kc = kubeConfigFor(server, 'seed');
    const crossed = new k8s.KubeConfig();
    crossed.loadFromString(
      server
        .cluster('seed')
        .kubeconfigYaml()
        .replace(server.cluster('seed').token, server.cluster('garden').token),
    );
    const s = await expectStatus(() => crossed.makeApiClient(k8s.CoreV1Api).listNamespace());
    expect(s.code).toBe(401);
    const res = await rawRequest(server, 'seed', '/api/v1/namespaces', {
      token: server.cluster('garden').token,
    });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    expect((await kc.makeApiClient(k8s.CoreV1Api).listNamespace()).items.length).toBeGreaterThan(0);
  });

  it('keeps the objects of each cluster apart', async () => {
    await core('garden').createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'only-in-garden' }, data: { where: 'garden' } },
    });
    await core('seed').createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'only-in-seed' } },
    });
    expect(
      (await core('garden').readNamespacedConfigMap({ name: 'only-in-garden', namespace: 'default' })).data,
    ).toEqual({ where: 'garden' });
    expect(
      await expectStatus(() =>
        core('seed').readNamespacedConfigMap({ name: 'only-in-garden', namespace: 'default' }),
      ),
    ).toMatchObject({
      code: 404,
      message: 'configmaps "only-in-garden" not found',
    });
    expect(
      await expectStatus(() =>
        core('garden').readNamespacedConfigMap({ name: 'only-in-seed', namespace: 'default' }),
      ),
    ).toMatchObject({ code: 404 });
  });

  it('serves the product CRDs on the main cluster only (unless asked)', async () => {
    const garden = kubeConfigFor(server, 'garden').makeApiClient(k8s.CustomObjectsApi);
    const seed = kubeConfigFor(server, 'seed').makeApiClient(k8s.CustomObjectsApi);
    await garden.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: 'default',
      body: deployItem('on-garden'),
    });
    const s = await expectStatus(() =>
      seed.listNamespacedCustomObject({ ...DEPLOYITEMS, namespace: 'default' }),
    );
    expect(s).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
  });

  it('adds a cluster at run time on a port of its own', async () => {
    const shoot = await server.addCluster({ name: 'shoot' });
    expect(server.clusters().map((c) => c.name)).toEqual(['garden', 'seed', 'shoot']);
    const kc = kubeConfigFor(server, 'shoot');
    await kc
      .makeApiClient(k8s.CoreV1Api)
      .createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'on-shoot' } } });
    expect(
      await expectStatus(() =>
        core('garden').readNamespacedConfigMap({ name: 'on-shoot', namespace: 'default' }),
      ),
    ).toMatchObject({ code: 404 });
    expect(new Set(server.clusters().map((c) => new URL(c.url).port)).size).toBe(3);
    expect(shoot.token).not.toBe(server.cluster('garden').token);
  });
});

describe('CustomResourceDefinitions', () => {
  let t: TestServer;
  let ext: k8s.ApiextensionsV1Api;
  let ns: string;
  beforeAll(async () => {
    t = await startTestServer();
    ext = t.kc.makeApiClient(k8s.ApiextensionsV1Api);
    ns = await freshNamespace(t, 'crd');
  });
  afterAll(() => t.stop());

  const crd = (plural: string, opts: { status?: boolean } = {}): k8s.V1CustomResourceDefinition => {
    const kind = plural[0].toUpperCase() + plural.slice(1, -1);
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.example.com` },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: opts.status ? { status: {} } : undefined,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    required: ['size'],
                    properties: { size: { type: 'integer' }, color: { type: 'string' } },
                  },
                  status: { type: 'object', properties: { ready: { type: 'boolean' } } },
                },
              },
            },
          },
        ],
      },
    };
  };
  const api = (plural: string): { group: string; version: string; plural: string } => ({
    group: 'example.com',
    version: 'v1',
    plural,
  });
  const object = (
    plural: string,
    name: string,
    spec: Record<string, unknown> = { size: 1 },
    metadata: Record<string, unknown> = {},
  ): Record<string, unknown> => {
    const kind = plural[0].toUpperCase() + plural.slice(1, -1);
    return { apiVersion: 'example.com/v1', kind, metadata: { name, ...metadata }, spec };
  };

  it('serves the resources of a new CRD at once, validated by its schema', async () => {
    await ext.createCustomResourceDefinition({ body: crd('widgets') });
    const created = (await t.custom.createNamespacedCustomObject({
      ...api('widgets'),
      namespace: ns,
      body: object('widgets', 'w1'),
    })) as k8s.KubernetesObject;
    expect(created).toMatchObject({ kind: 'Widget', metadata: { name: 'w1', namespace: ns, generation: 1 } });
    const s = await expectStatus(() =>
      t.custom.createNamespacedCustomObject({
        ...api('widgets'),
        namespace: ns,
        body: object('widgets', 'w2', { size: 'big' }),
      }),
    );
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'Widget.example.com "w2" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
    });
    const discovery = await t.raw('/apis/example.com/v1');
    expect(discovery.json.resources.map((r: { name: string }) => r.name)).toContain('widgets');
  });

  it('reports the CRD Established with its accepted names', async () => {
    await ext.createCustomResourceDefinition({ body: crd('gadgets') });
    const established = await eventually(async () => {
      const got = await ext.readCustomResourceDefinition({ name: 'gadgets.example.com' });
      const conditions = got.status?.conditions ?? [];
      expect(conditions.find((c) => c.type === 'Established')?.status).toBe('True');
      return got;
    });
    expect(established.status!.acceptedNames).toMatchObject({ plural: 'gadgets', kind: 'Gadget' });
    expect(established.metadata!.finalizers).toContain('customresourcecleanup.apiextensions.k8s.io');
  });

  it('removes the objects of a deleted CRD, then the CRD, then stops serving it', async () => {
    await ext.createCustomResourceDefinition({ body: crd('doodads') });
    for (const name of ['d1', 'd2'])
      await t.custom.createNamespacedCustomObject({
        ...api('doodads'),
        namespace: ns,
        body: object('doodads', name),
      });
    await ext.deleteCustomResourceDefinition({ name: 'doodads.example.com' });
    await eventually(async () =>
      expect(
        (await expectStatus(() => ext.readCustomResourceDefinition({ name: 'doodads.example.com' }))).code,
      ).toBe(404),
    );
    const s = await expectStatus(() =>
      t.custom.listNamespacedCustomObject({ ...api('doodads'), namespace: ns }),
    );
    expect(s).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
    await ext.createCustomResourceDefinition({ body: crd('doodads') });
    const list = (await t.custom.listNamespacedCustomObject({ ...api('doodads'), namespace: ns })) as {
      items: unknown[];
    };
    expect(list.items).toEqual([]);
  });

  // Known embedded-server bug (operations.ts create does not check a terminating CRD): remove .failing once fixed.

  it('keeps a CRD terminating while an object of it has a finalizer, refusing creates with 405', async () => {
    await ext.createCustomResourceDefinition({ body: crd('gizmos') });
    await t.custom.createNamespacedCustomObject({
      ...api('gizmos'),
      namespace: ns,
      body: object('gizmos', 'held', { size: 1 }, { finalizers: ['example.com/keep'] }),
    });
    await ext.deleteCustomResourceDefinition({ name: 'gizmos.example.com' });
    await eventually(async () => {
      const held = (await t.custom.getNamespacedCustomObject({
        ...api('gizmos'),
        namespace: ns,
        name: 'held',
      })) as k8s.KubernetesObject;
      expect(held.metadata!.deletionTimestamp).toBeDefined();
    });
    const terminating = await ext.readCustomResourceDefinition({ name: 'gizmos.example.com' });
    expect(terminating.metadata!.deletionTimestamp).toBeDefined();
    const s = await expectStatus(() =>
      t.custom.createNamespacedCustomObject({
        ...api('gizmos'),
        namespace: ns,
        body: object('gizmos', 'late'),
      }),
    );
    expect(s).toMatchObject({
      code: 405,
      reason: 'MethodNotAllowed',
      message: 'create not allowed while custom resource definition is terminating',
    });
    await t.custom.patchNamespacedCustomObject(
      { ...api('gizmos'), namespace: ns, name: 'held', body: { metadata: { finalizers: null } } },
      MERGE_PATCH,
    );
    await eventually(async () =>
      expect(
        (await expectStatus(() => ext.readCustomResourceDefinition({ name: 'gizmos.example.com' }))).code,
      ).toBe(404),
    );
  });

  // Known embedded-server bug (objects.ts specChanged always ignores status): remove .failing once fixed.

  it('bumps generation on a status change of a custom resource without a status subresource', async () => {
    await ext.createCustomResourceDefinition({ body: crd('sprockets') });
    await t.custom.createNamespacedCustomObject({
      ...api('sprockets'),
      namespace: ns,
      body: object('sprockets', 's1'),
    });
    const patch = (body: object): Promise<k8s.KubernetesObject> =>
      t.custom.patchNamespacedCustomObject(
        { ...api('sprockets'), namespace: ns, name: 's1', body },
        MERGE_PATCH,
      ) as Promise<k8s.KubernetesObject>;
    expect((await patch({ metadata: { labels: { a: 'b' } } })).metadata!.generation).toBe(1);
    // without a status subresource, status is part of the main resource and counts like spec
    const changed = (await patch({ status: { ready: true } })) as k8s.KubernetesObject & {
      status?: { ready?: boolean };
    };
    expect(changed.status).toEqual({ ready: true });
    expect(changed.metadata!.generation).toBe(2);
  });

  it('serves the status subresource of a CRD that declares one', async () => {
    await ext.createCustomResourceDefinition({ body: crd('cogs', { status: true }) });
    await t.custom.createNamespacedCustomObject({
      ...api('cogs'),
      namespace: ns,
      body: object('cogs', 'c1'),
    });
    const main = (await t.custom.patchNamespacedCustomObject(
      { ...api('cogs'), namespace: ns, name: 'c1', body: { status: { ready: true } } },
      MERGE_PATCH,
    )) as { status?: unknown };
    expect(main.status).toBeUndefined();
    const status = (await t.custom.patchNamespacedCustomObjectStatus(
      { ...api('cogs'), namespace: ns, name: 'c1', body: { status: { ready: true } } },
      MERGE_PATCH,
    )) as k8s.KubernetesObject & {
      status?: unknown;
    };
    expect(status.status).toEqual({ ready: true });
    expect(status.metadata!.generation).toBe(1);
  });
});
