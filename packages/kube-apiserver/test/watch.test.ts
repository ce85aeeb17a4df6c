/**
 * Conformance: watches through client-node's Watch: initial state, resuming from a
 * resourceVersion, label-selector transitions, one namespace, one object, finalizer deletes,
 * and the ERROR event with a 410 Expired Status for a resourceVersion older than the history.
 */
import * as k8s from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../src/index.js';
import { kubeConfigFor, startTestServer, type TestServer } from './support/cluster.js';
import {
  deployItem,
  DEPLOYITEMS,
  eventually,
  freshNamespace,
  MERGE_PATCH,
  WatchRecorder,
} from './conformance.js';
import { productCrdFiles } from './support/crds.js';

let t: TestServer;
const watches: WatchRecorder[] = [];
beforeAll(async () => {
  t = await startTestServer();
});
afterEach(() => {
  for (const w of watches.splice(0)) w.stop();
});
afterAll(() => t.stop());

async function watch(
  path: string,
  query: Record<string, string | number | boolean | undefined> = {},
  kc: k8s.KubeConfig = t.kc,
): Promise<WatchRecorder> {
  const w = await WatchRecorder.start(kc, path, query);
  watches.push(w);
  return w;
}

const label = (ns: string, name: string, labels: Record<string, string | null>): Promise<k8s.V1ConfigMap> =>
  t.core.patchNamespacedConfigMap({ name, namespace: ns, body: { metadata: { labels } } }, MERGE_PATCH);

describe('watch', () => {
  it('starts with ADDED for existing objects, then reports changes in order', async () => {
    const ns = await freshNamespace(t, 'w-init');
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'old' } } });
    // the namespace's kube-root-ca.crt is there too
    const w = await watch(`/api/v1/namespaces/${ns}/configmaps`);
    await w.waitForCount(2);
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'new' } } });
    await t.core.patchNamespacedConfigMap(
      { name: 'old', namespace: ns, body: { data: { a: 'b' } } },
      MERGE_PATCH,
    );
    await t.core.deleteNamespacedConfigMap({ name: 'new', namespace: ns });
    await w.waitForCount(5);
    expect(w.summary()).toEqual([
      'ADDED kube-root-ca.crt',
      'ADDED old',
      'ADDED new',
      'MODIFIED old',
      'DELETED new',
    ]);
    expect(w.events[3].object.data).toEqual({ a: 'b' });
    const rvs = w.events.slice(2).map((e) => Number(e.object.metadata.resourceVersion));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
  });

  it('replays the events after a resourceVersion, without the initial state', async () => {
    const ns = await freshNamespace(t, 'w-resume');
    const a = await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' } } });
    const from = a.metadata!.resourceVersion!;
    const modified = await t.core.patchNamespacedConfigMap(
      { name: 'a', namespace: ns, body: { data: { x: '1' } } },
      MERGE_PATCH,
    );
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });
    await t.core.deleteNamespacedConfigMap({ name: 'a', namespace: ns });
    const w = await watch(`/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: from });
    await w.waitForCount(3);
    expect(w.summary()).toEqual(['MODIFIED a', 'ADDED b', 'DELETED a']);
    expect(w.events[0].object.metadata.resourceVersion).toBe(modified.metadata!.resourceVersion);
    // the DELETED event carries the resourceVersion of the deletion itself
    expect(Number(w.events[2].object.metadata.resourceVersion)).toBeGreaterThan(
      Number(w.events[1].object.metadata.resourceVersion),
    );
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c' } } });
    await w.waitForCount(4);
    expect(w.summary()[3]).toBe('ADDED c');
  });

  // Known embedded-server bug (watch.ts transition sends the new object, not the previous one): remove .failing once fixed.

  it('reports an object leaving the label selector as DELETED and coming back as ADDED', async () => {
    const ns = await freshNamespace(t, 'w-sel');
    const w = await watch(`/api/v1/namespaces/${ns}/configmaps`, { labelSelector: 'watched=yes' });
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'other' } } });
    await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'x', labels: { watched: 'yes' } } },
    });
    await t.core.patchNamespacedConfigMap(
      { name: 'x', namespace: ns, body: { data: { v: '1' } } },
      MERGE_PATCH,
    );
    const left = await label(ns, 'x', { watched: 'no' });
    await t.core.patchNamespacedConfigMap(
      { name: 'x', namespace: ns, body: { data: { v: '2' } } },
      MERGE_PATCH,
    );
    await label(ns, 'x', { watched: 'yes' });
    await t.core.deleteNamespacedConfigMap({ name: 'x', namespace: ns });
    await w.waitForCount(5);
    expect(w.summary()).toEqual(['ADDED x', 'MODIFIED x', 'DELETED x', 'ADDED x', 'DELETED x']);
    // the watch cache answers a transition out of the selector with the previous object content
    // (still matching) at the resourceVersion of the change that made it leave
    expect(w.events[2].object.metadata.labels).toEqual({ watched: 'yes' });
    expect(w.events[2].object.metadata.resourceVersion).toBe(left.metadata!.resourceVersion);
    expect(w.events[3].object.data).toEqual({ v: '2' });
  });

  it('watches one namespace only', async () => {
    const mine = await freshNamespace(t, 'w-mine');
    const theirs = await freshNamespace(t, 'w-theirs');
    const one = await watch(`/api/v1/namespaces/${mine}/configmaps`);
    const all = await watch('/api/v1/configmaps', { labelSelector: 'scope=test' });
    await t.core.createNamespacedConfigMap({
      namespace: theirs,
      body: { metadata: { name: 't', labels: { scope: 'test' } } },
    });
    await t.core.createNamespacedConfigMap({
      namespace: mine,
      body: { metadata: { name: 'm', labels: { scope: 'test' } } },
    });
    await all.waitForCount(2);
    await one.waitForCount(2);
    expect(
      one.events.map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`),
    ).toEqual([`ADDED ${mine}/kube-root-ca.crt`, `ADDED ${mine}/m`]);
    expect(all.events.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`)).toEqual([
      `${theirs}/t`,
      `${mine}/m`,
    ]);
  });

  it('watches one object with a metadata.name field selector', async () => {
    const ns = await freshNamespace(t, 'w-one');
    const w = await watch(`/api/v1/namespaces/${ns}/configmaps`, { fieldSelector: 'metadata.name=target' });
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'decoy' } } });
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'target' } } });
    await t.core.deleteNamespacedConfigMap({ name: 'target', namespace: ns });
    await w.waitForCount(2);
    expect(w.summary()).toEqual(['ADDED target', 'DELETED target']);
  });

  it('reports a delete held by a finalizer as MODIFIED, and the release as DELETED', async () => {
    const ns = await freshNamespace(t, 'w-fin');
    await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'held', finalizers: ['example.com/keep'] } },
    });
    const w = await watch(`/api/v1/namespaces/${ns}/configmaps`);
    await w.waitForCount(2);
    await t.core.deleteNamespacedConfigMap({ name: 'held', namespace: ns });
    await t.core.patchNamespacedConfigMap(
      { name: 'held', namespace: ns, body: { metadata: { finalizers: null } } },
      MERGE_PATCH,
    );
    await w.waitForCount(4);
    expect(w.summary()).toEqual(['ADDED held', 'ADDED kube-root-ca.crt', 'MODIFIED held', 'DELETED held']);
    expect(w.events[2].object.metadata.deletionTimestamp).toBeDefined();
  });

  it('watches custom resources', async () => {
    const ns = await freshNamespace(t, 'w-cr');
    const w = await watch(
      `/apis/${DEPLOYITEMS.group}/${DEPLOYITEMS.version}/namespaces/${ns}/${DEPLOYITEMS.plural}`,
    );
    await t.custom.createNamespacedCustomObject({ ...DEPLOYITEMS, namespace: ns, body: deployItem('di') });
    await t.custom.patchNamespacedCustomObjectStatus(
      {
        ...DEPLOYITEMS,
        namespace: ns,
        name: 'di',
        body: { status: { phase: 'Init', observedGeneration: 1 } },
      },
      MERGE_PATCH,
    );
    await w.waitForCount(2);
    expect(w.summary()).toEqual(['ADDED di', 'MODIFIED di']);
    expect(w.events[1].object.status.phase).toBe('Init');
  });
});

describe('watch from a resourceVersion older than the kept history', () => {
  let server: ApiServer;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  beforeAll(async () => {
    server = await startApiServer({ crdFiles: productCrdFiles(), historySize: 5 });
    kc = kubeConfigFor(server);
    core = kc.makeApiClient(k8s.CoreV1Api);
  });
  afterAll(() => server.stop());

  it('answers an ERROR event carrying a 410 Expired Status, then ends the stream', async () => {
    const first = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'first' } },
    });
    for (let i = 0; i < 8; i++)
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `n${i}` } } });
    const rv = first.metadata!.resourceVersion!;
    const w = await watch('/api/v1/namespaces/default/configmaps', { resourceVersion: rv }, kc);
    await w.waitForCount(1);
    expect(w.events[0].type).toBe('ERROR');
    expect(w.events[0].object).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 410,
      reason: 'Expired',
    });
    expect(w.events[0].object.message).toMatch(new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));
    await eventually(() => expect(w.ended).toBe(true));
    expect(w.events).toHaveLength(1);
  });

  it('still resumes from a resourceVersion inside the kept history', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    const w = await watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: list.metadata!.resourceVersion },
      kc,
    );
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'recent' } } });
    await w.waitForCount(1);
    expect(w.summary()).toEqual(['ADDED recent']);
  });
});
