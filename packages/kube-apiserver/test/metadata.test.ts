/**
 * Conformance: metadata-only answers (`Accept: application/json;as=PartialObjectMetadata[List];
 * g=meta.k8s.io;v=v1`) for get, list and watch, through client-node with a custom Accept header,
 * and raw requests where the exact body matters.
 */
import * as k8s from '@kubernetes/client-node';
import { expectStatus, startTestServer, type TestServer } from './support/cluster.js';
import {
  AS_PARTIAL,
  AS_PARTIAL_LIST,
  deployItem,
  DEPLOYITEMS,
  freshNamespace,
  kubeConfigWithHeaders,
  WatchRecorder,
} from './conformance.js';

let t: TestServer;
let ns: string;
let cm: k8s.V1ConfigMap;
beforeAll(async () => {
  t = await startTestServer();
  ns = await freshNamespace(t, 'meta');
  cm = await t.core.createNamespacedConfigMap({
    namespace: ns,
    body: {
      metadata: { name: 'm1', labels: { a: 'b' }, annotations: { note: 'x' } },
      data: { secret: 'payload' },
    },
  });
  await t.core.createNamespacedConfigMap({
    namespace: ns,
    body: { metadata: { name: 'm2' }, data: { more: 'payload' } },
  });
  await t.custom.createNamespacedCustomObject({
    ...DEPLOYITEMS,
    namespace: ns,
    body: deployItem('di', { type: 'mock', config: { apiVersion: 'x/v1', kind: 'Cfg', big: 'blob' } }),
  });
});
afterAll(() => t.stop());

const accept = (value: string): k8s.ConfigurationOptions => k8s.setHeaderOptions('Accept', value);

describe('metadata-only get', () => {
  it('answers a PartialObjectMetadata through client-node', async () => {
    const partial = (await t.core.readNamespacedConfigMap(
      { name: 'm1', namespace: ns },
      accept(AS_PARTIAL),
    )) as k8s.KubernetesObject;
    expect(partial.kind).toBe('PartialObjectMetadata');
    expect(partial.apiVersion).toBe('meta.k8s.io/v1');
    expect(partial.metadata).toMatchObject({
      name: 'm1',
      namespace: ns,
      uid: cm.metadata!.uid,
      resourceVersion: cm.metadata!.resourceVersion,
      labels: { a: 'b' },
      annotations: { note: 'x' },
    });
  });

  it('carries metadata only, no data', async () => {
    const res = await t.raw(`/api/v1/namespaces/${ns}/configmaps/m1`, { headers: { Accept: AS_PARTIAL } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(res.text).not.toContain('payload');
  });

  it('answers a custom resource as PartialObjectMetadata too', async () => {
    const res = await t.raw(
      `/apis/${DEPLOYITEMS.group}/${DEPLOYITEMS.version}/namespaces/${ns}/${DEPLOYITEMS.plural}/di`,
      { headers: { Accept: AS_PARTIAL } },
    );
    expect(res.json).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'di', generation: 1 },
    });
    expect(res.json.spec).toBeUndefined();
  });

  // Known embedded-server bug (request.ts outputKind treats both as= values alike): remove .failing once fixed.

  it('refuses PartialObjectMetadataList for a single object with 406 NotAcceptable', async () => {
    const s = await expectStatus(() =>
      t.core.readNamespacedConfigMap({ name: 'm1', namespace: ns }, accept(AS_PARTIAL_LIST)),
    );
    expect(s).toMatchObject({ code: 406, reason: 'NotAcceptable' });
    expect(s.message).toMatch(
      /^you requested PartialObjectMetadataList, but the requested object is not a list/,
    );
  });
});

describe('metadata-only list', () => {
  it('answers a PartialObjectMetadataList through client-node', async () => {
    const list = (await t.core.listNamespacedConfigMap(
      { namespace: ns },
      accept(AS_PARTIAL_LIST),
    )) as unknown as { kind: string; apiVersion: string; items: k8s.KubernetesObject[] };
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.apiVersion).toBe('meta.k8s.io/v1');
    expect(list.items.map((i) => i.metadata!.name)).toEqual(['kube-root-ca.crt', 'm1', 'm2']);
  });

  it('lists items as PartialObjectMetadata without data, with the list metadata', async () => {
    const res = await t.raw(`/api/v1/namespaces/${ns}/configmaps?limit=1`, {
      headers: { Accept: AS_PARTIAL_LIST },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { remainingItemCount: 2 },
    });
    expect(res.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(res.json.metadata.continue).toBeTruthy();
    expect(res.json.items).toEqual([
      {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: expect.objectContaining({ name: 'kube-root-ca.crt' }),
      },
    ]);
    expect(res.text).not.toContain('payload');
  });

  it('lists custom resources as metadata only', async () => {
    const res = await t.raw(
      `/apis/${DEPLOYITEMS.group}/${DEPLOYITEMS.version}/namespaces/${ns}/${DEPLOYITEMS.plural}`,
      { headers: { Accept: AS_PARTIAL_LIST } },
    );
    expect(res.json.kind).toBe('PartialObjectMetadataList');
    expect(res.json.items.map((i: k8s.KubernetesObject) => i.metadata!.name)).toEqual(['di']);
    expect(res.text).not.toContain('blob');
  });

  it('takes the first type of an Accept list with a plain JSON fallback (as client-go metadata clients send it)', async () => {
    const res = await t.raw(`/api/v1/namespaces/${ns}/configmaps`, {
      headers: { Accept: `${AS_PARTIAL_LIST},application/json` },
    });
    expect(res.json.kind).toBe('PartialObjectMetadataList');
  });

  // Known embedded-server bug (request.ts outputKind treats both as= values alike): remove .failing once fixed.

  it('refuses PartialObjectMetadata (not ...List) for a list with 406 NotAcceptable', async () => {
    const s = await expectStatus(() => t.core.listNamespacedConfigMap({ namespace: ns }, accept(AS_PARTIAL)));
    expect(s).toMatchObject({ code: 406, reason: 'NotAcceptable' });
    expect(s.message).toMatch(/^you requested PartialObjectMetadata, but the requested object is a list/);
  });
});

describe('metadata-only watch', () => {
  it('sends PartialObjectMetadata objects in watch events', async () => {
    const kc = kubeConfigWithHeaders(t.kc, { Accept: AS_PARTIAL });
    const w = await WatchRecorder.start(kc, `/api/v1/namespaces/${ns}/configmaps`, {
      fieldSelector: 'metadata.name=m3',
    });
    try {
      await t.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'm3' }, data: { hidden: 'payload' } },
      });
      await w.waitForCount(1);
      expect(w.events[0]).toMatchObject({
        type: 'ADDED',
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { name: 'm3', namespace: ns },
        },
      });
      expect(w.events[0].object.data).toBeUndefined();
    } finally {
      w.stop();
    }
  });
});
