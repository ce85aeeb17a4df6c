/**
 * Conformance: the objects a cluster makes by itself — each namespace's name label, `default`
 * ServiceAccount and `kube-root-ca.crt` ConfigMap, the `default/kubernetes` Service with its
 * Endpoints and EndpointSlice, Endpoints and EndpointSlices of selector Services, and the
 * conditions of a terminating namespace — and that an idle cluster writes nothing.
 */
import { startTestServer, type TestServer } from './support/cluster.js';
import { eventually, freshNamespace, MERGE_PATCH } from './conformance.js';
import type { StoreEvent } from '../src/storage/store.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

const slicesOf = async (namespace: string, service: string): Promise<any[]> =>
  (
    await t.raw(
      `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices?labelSelector=kubernetes.io/service-name=${service}`,
    )
  ).json.items;

async function pod(namespace: string, name: string, ip: string, ready: boolean): Promise<void> {
  await t.core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name, labels: { app: 'web' } },
      spec: {
        nodeName: 'node-1',
        containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }],
      },
    },
  });
  const status = {
    phase: 'Running',
    podIP: ip,
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
  };
  await t.raw(`/api/v1/namespaces/${namespace}/pods/${name}/status`, {
    method: 'PATCH',
    body: JSON.stringify({ status }),
    headers: { 'Content-Type': 'application/merge-patch+json' },
  });
}

describe('namespaces', () => {
  it('get their name label, the default ServiceAccount and the root CA ConfigMap', async () => {
    const ns = await freshNamespace(t, 'objs');
    const read = await t.core.readNamespace({ name: ns });
    expect(read.metadata!.labels).toMatchObject({ 'kubernetes.io/metadata.name': ns });
    await t.core.patchNamespace(
      { name: ns, body: { metadata: { labels: { 'kubernetes.io/metadata.name': 'x' } } } },
      MERGE_PATCH,
    );
    expect((await t.core.readNamespace({ name: ns })).metadata!.labels!['kubernetes.io/metadata.name']).toBe(
      ns,
    );
    const sa = await eventually(() =>
      t.core.readNamespacedServiceAccount({ name: 'default', namespace: ns }),
    );
    expect(sa.metadata!.name).toBe('default');
    const cm = await eventually(() =>
      t.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: ns }),
    );
    expect(cm.data!['ca.crt']).toContain('BEGIN CERTIFICATE');
    expect(cm.metadata!.annotations!['kubernetes.io/description']).toMatch(/^Contains a CA bundle/);
    // deleted or changed, they come back
    await t.core.deleteNamespacedServiceAccount({ name: 'default', namespace: ns });
    await t.core.patchNamespacedConfigMap(
      { name: 'kube-root-ca.crt', namespace: ns, body: { data: { 'ca.crt': 'x' } } },
      MERGE_PATCH,
    );
    await eventually(() => t.core.readNamespacedServiceAccount({ name: 'default', namespace: ns }));
    await eventually(async () => {
      const again = await t.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: ns });
      expect(again.data!['ca.crt']).toBe(cm.data!['ca.crt']);
    });
  });

  it('get the name label when stored without it (a data directory from before the label)', async () => {
    const ns = await freshNamespace(t, 'old');
    const store = t.server.cluster('main').store;
    const stored = store.get('/namespaces', undefined, ns)!;
    const { 'kubernetes.io/metadata.name': _dropped, ...labels } = stored.metadata.labels ?? {};
    const old = {
      ...stored,
      metadata: { ...stored.metadata, labels, resourceVersion: String(store.nextRV()) },
    };
    store.put('/namespaces', old, 'MODIFIED', stored);
    await eventually(async () => {
      const read = await t.core.readNamespace({ name: ns });
      expect(read.metadata!.labels!['kubernetes.io/metadata.name']).toBe(ns);
    });
  });

  it('exist in the namespaces made at start', async () => {
    for (const namespace of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const ns = await t.core.readNamespace({ name: namespace });
      expect(ns.metadata!.labels!['kubernetes.io/metadata.name']).toBe(namespace);
      await eventually(() => t.core.readNamespacedServiceAccount({ name: 'default', namespace }));
      await eventually(() => t.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace }));
    }
  });

  it('carry the namespace controller conditions while content with finalizers remains', async () => {
    const ns = await freshNamespace(t, 'term');
    await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    await t.core.deleteNamespace({ name: ns });
    const conditions = await eventually(async () => {
      const read = await t.core.readNamespace({ name: ns });
      const c = read.status!.conditions ?? [];
      expect(c.length).toBe(5);
      return c;
    });
    const byType = Object.fromEntries(conditions.map((c) => [c.type, c]));
    expect(byType.NamespaceDeletionDiscoveryFailure).toMatchObject({
      status: 'False',
      reason: 'ResourcesDiscovered',
    });
    expect(byType.NamespaceDeletionContentFailure).toMatchObject({
      status: 'False',
      reason: 'ContentDeleted',
    });
    expect(byType.NamespaceContentRemaining).toMatchObject({
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: configmaps. has 1 resource instances',
    });
    expect(byType.NamespaceFinalizersRemaining).toMatchObject({
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message:
        'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
    });
    await t.core.patchNamespacedConfigMap(
      { name: 'held', namespace: ns, body: { metadata: { finalizers: null } } },
      MERGE_PATCH,
    );
    await eventually(async () => {
      const left = await t.raw(`/api/v1/namespaces/${ns}`);
      expect(left.status).toBe(404);
    });
  });
});

describe('default/kubernetes', () => {
  it('is a Service with Endpoints and an EndpointSlice pointing at the server', async () => {
    const port = t.server.cluster('main').port;
    const svc = await t.core.readNamespacedService({ name: 'kubernetes', namespace: 'default' });
    expect(svc.metadata!.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
    expect(svc.spec!.ports).toEqual([{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }]);
    expect(svc.spec!.clusterIP).toBe('10.96.0.1');
    const ep = await t.core.readNamespacedEndpoints({ name: 'kubernetes', namespace: 'default' });
    expect(ep.subsets).toEqual([
      { addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] },
    ]);
    const [slice, ...more] = await slicesOf('default', 'kubernetes');
    expect(more).toEqual([]);
    expect(slice).toMatchObject({
      metadata: { name: 'kubernetes' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    });
    // deleted, it comes back
    await t.core.deleteNamespacedService({ name: 'kubernetes', namespace: 'default' });
    await eventually(() => t.core.readNamespacedService({ name: 'kubernetes', namespace: 'default' }));
    await eventually(() => t.core.readNamespacedEndpoints({ name: 'kubernetes', namespace: 'default' }));
  });
});

describe('Endpoints and EndpointSlices', () => {
  it('follow the ready and not-ready pods a Service selects, and go with it', async () => {
    const ns = await freshNamespace(t, 'eps');
    await t.core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name: 'web', labels: { tier: 'front' } },
        spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
      },
    });
    // no pods: Endpoints without subsets and a placeholder slice
    const empty = await eventually(async () => {
      const s = await slicesOf(ns, 'web');
      expect(s.length).toBe(1);
      return s[0];
    });
    expect(empty.metadata.labels).toEqual({
      tier: 'front',
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    expect(empty.metadata.ownerReferences[0]).toMatchObject({
      kind: 'Service',
      name: 'web',
      controller: true,
    });
    expect(empty.endpoints ?? null).toBeNull();
    const ep0 = await eventually(() => t.core.readNamespacedEndpoints({ name: 'web', namespace: ns }));
    expect(ep0.subsets ?? []).toEqual([]);

    await pod(ns, 'web-a', '10.244.0.5', true);
    await pod(ns, 'web-b', '10.244.0.6', false);
    const slice = await eventually(async () => {
      const [s] = await slicesOf(ns, 'web');
      expect(s.endpoints?.length).toBe(2);
      return s;
    });
    expect(slice.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(slice.endpoints[0]).toMatchObject({
      addresses: ['10.244.0.5'],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: 'node-1',
      targetRef: { kind: 'Pod', namespace: ns, name: 'web-a' },
    });
    expect(slice.endpoints[1].conditions).toEqual({ ready: false, serving: false, terminating: false });
    const ep = await t.core.readNamespacedEndpoints({ name: 'web', namespace: ns });
    expect(ep.metadata!.labels).toEqual({ tier: 'front' });
    expect(ep.subsets).toMatchObject([
      {
        addresses: [{ ip: '10.244.0.5', nodeName: 'node-1', targetRef: { kind: 'Pod', name: 'web-a' } }],
        notReadyAddresses: [{ ip: '10.244.0.6' }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);

    // idle: nothing written
    const store = t.server.cluster('main').store;
    const events: StoreEvent[] = [];
    const stop = store.subscribeAll((e) => events.push(e));
    await new Promise((r) => setTimeout(r, 300));
    stop();
    expect(events.map((e) => `${e.type} ${e.resource} ${e.object.metadata.name}`)).toEqual([]);

    await t.core.deleteNamespacedService({ name: 'web', namespace: ns });
    await eventually(async () => {
      expect((await t.raw(`/api/v1/namespaces/${ns}/endpoints/web`)).status).toBe(404);
      expect(await slicesOf(ns, 'web')).toEqual([]);
    });
  });

  it('are not made for a Service without a selector', async () => {
    const ns = await freshNamespace(t, 'nosel');
    await t.core.createNamespacedService({
      namespace: ns,
      body: { metadata: { name: 'ext' }, spec: { ports: [{ port: 80 }] } },
    });
    await new Promise((r) => setTimeout(r, 100));
    expect((await t.raw(`/api/v1/namespaces/${ns}/endpoints/ext`)).status).toBe(404);
    expect(await slicesOf(ns, 'ext')).toEqual([]);
  });
});
