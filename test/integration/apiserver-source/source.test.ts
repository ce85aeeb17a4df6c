/**
 * The API-server event source against the embedded API server, delivering to a local HTTP sink:
 * initial adds, add/update/delete in both modes with Knative's exact attributes, label and
 * namespace selectors, ceOverrides, resync events, retries to the sink.
 */
import { startApiServer } from '../../../local/apiserver/index.js';
import type { ApiServer } from '../../../local/apiserver/index.js';
import { GVK } from '../../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml } from '../../../shared/kube/index.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import { sourceSpecFromManifest, startApiServerSource } from '../../../triggers/apiserver-source/index.js';
import type { RunningSource } from '../../../triggers/apiserver-source/index.js';
import { captureLogger, startSink, summary, waitFor } from './support.js';
import type { Received, Sink } from './support.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let srv: ApiServer;
let client: KubeClient;
let kubeconfigYaml: string;
let sink: Sink;
const running: RunningSource[] = [];

beforeAll(async () => {
  srv = await startApiServer({ clusters: ['main'] });
  kubeconfigYaml = srv.cluster('main').kubeconfigYaml();
  client = createKubeClient(kubeConfigFromYaml(kubeconfigYaml), { fieldManager: 'source-test' });
});

afterAll(async () => {
  await srv?.stop();
});

beforeEach(async () => {
  sink = await startSink();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  await sink.close();
});

async function namespace(name: string, labels: Record<string, string> = {}): Promise<void> {
  await client.create(GVK.Namespace, { metadata: { name, labels } });
}

async function configMap(
  ns: string,
  name: string,
  data: Record<string, string>,
  labels: Record<string, string> = {},
): Promise<void> {
  await client.create(GVK.ConfigMap, { metadata: { name, namespace: ns, labels }, data });
}

async function start(
  spec: Record<string, unknown>,
  ns: string,
  extra: { resyncIntervalMs?: number } = {},
): Promise<RunningSource> {
  const manifest = {
    apiVersion: 'sources.knative.dev/v1',
    kind: 'ApiServerSource',
    metadata: { name: 'src', namespace: ns },
    spec: { resources: [{ apiVersion: 'v1', kind: 'ConfigMap' }], sink: { uri: sink.url }, ...spec },
  };
  const source = await startApiServerSource({
    spec: sourceSpecFromManifest(manifest),
    kubeConfig: kubeConfigFromYaml(kubeconfigYaml),
    logger: captureLogger().logger,
    resyncIntervalMs: extra.resyncIntervalMs ?? 0,
    reflector: { backoff: { initialMs: 50, maxMs: 200 } },
  });
  running.push(source);
  await source.ready;
  return source;
}

const named =
  (...names: string[]) =>
  (e: Received): boolean =>
    names.includes(e.headers['ce-name'] ?? '');

describe('initial state', () => {
  it('emits an add for every object that exists at start (unlike Knative)', async () => {
    await namespace('init');
    await configMap('init', 'one', { a: '1' });
    await configMap('init', 'two', { b: '2' });
    await start({}, 'init');
    await waitFor('two adds', () => sink.events.filter(named('one', 'two')).length === 2);
    expect(summary(sink.events, named('one', 'two')).sort()).toEqual([
      'dev.knative.apiserver.ref.add one',
      'dev.knative.apiserver.ref.add two',
    ]);
  });
});

describe('Reference mode (the default)', () => {
  it('add, update, delete with exactly the attributes Knative sends', async () => {
    await namespace('refmode');
    await start({}, 'refmode');
    await configMap('refmode', 'cm', { a: '1' });
    await client.mergePatch(GVK.ConfigMap, { namespace: 'refmode', name: 'cm' }, { data: { a: '2' } });
    await client.delete(GVK.ConfigMap, { namespace: 'refmode', name: 'cm' });
    await waitFor('3 events', () => sink.events.filter(named('cm')).length === 3);
    const events = sink.events.filter(named('cm'));
    expect(events.map((e) => e.headers['ce-type'])).toEqual([
      'dev.knative.apiserver.ref.add',
      'dev.knative.apiserver.ref.update',
      'dev.knative.apiserver.ref.delete',
    ]);
    for (const e of events) {
      expect(e.headers).toMatchObject({
        'ce-specversion': '1.0',
        'ce-source': srv.cluster('main').url,
        'ce-subject': '/apis/v1/namespaces/refmode/configmaps/cm',
        'ce-kind': 'ConfigMap',
        'ce-apiversion': 'v1',
        'ce-name': 'cm',
        'ce-namespace': 'refmode',
        'content-type': 'application/json',
      });
      expect(e.headers['ce-id']).toMatch(UUID);
      expect(JSON.stringify(e.body)).toBe(
        '{"kind":"ConfigMap","namespace":"refmode","name":"cm","apiVersion":"v1"}',
      );
    }
    expect(new Set(events.map((e) => e.headers['ce-id'])).size).toBe(3);
  });
});

describe('Resource mode', () => {
  it('data is the object; a delete carries the last state; ceOverrides are added', async () => {
    await namespace('resmode');
    await start({ mode: 'Resource', ceOverrides: { extensions: { family: 'landscaper' } } }, 'resmode');
    await configMap('resmode', 'cm', { a: '1' });
    await client.mergePatch(GVK.ConfigMap, { namespace: 'resmode', name: 'cm' }, { data: { a: '2' } });
    await client.delete(GVK.ConfigMap, { namespace: 'resmode', name: 'cm' });
    await waitFor('3 events', () => sink.events.filter(named('cm')).length === 3);
    const [add, update, del] = sink.events.filter(named('cm'));
    expect([add, update, del].map((e) => e.headers['ce-type'])).toEqual([
      'dev.knative.apiserver.resource.add',
      'dev.knative.apiserver.resource.update',
      'dev.knative.apiserver.resource.delete',
    ]);
    expect(add.body).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: 'resmode' },
      data: { a: '1' },
    });
    expect(update.body.data).toEqual({ a: '2' });
    expect(del.body.data).toEqual({ a: '2' });
    expect(del.body.metadata.uid).toBe(add.body.metadata.uid);
    expect(del.headers['ce-family']).toBe('landscaper');
  });
});

describe('selectors', () => {
  it('a resource label selector: only matching objects; leaving the selector is a delete', async () => {
    await namespace('labels');
    await start(
      { resources: [{ apiVersion: 'v1', kind: 'ConfigMap', selector: { matchLabels: { app: 'web' } } }] },
      'labels',
    );
    await configMap('labels', 'web', { a: '1' }, { app: 'web' });
    await configMap('labels', 'db', { a: '1' }, { app: 'db' });
    await client.mergePatch(
      GVK.ConfigMap,
      { namespace: 'labels', name: 'web' },
      { metadata: { labels: { app: null } } },
    );
    await waitFor('2 events', () => sink.events.filter(named('web')).length === 2);
    expect(summary(sink.events, named('web', 'db'))).toEqual([
      'dev.knative.apiserver.ref.add web',
      'dev.knative.apiserver.ref.delete web',
    ]);
  });

  it('without namespaceSelector only the source namespace is watched', async () => {
    await namespace('own-a');
    await namespace('own-b');
    await start({}, 'own-a');
    await configMap('own-b', 'elsewhere', {});
    await configMap('own-a', 'here', {});
    await waitFor('the add', () => sink.events.some(named('here')));
    expect(sink.events.some(named('elsewhere'))).toBe(false);
  });

  it('a namespaceSelector picks namespaces by label, and follows a relabel', async () => {
    await namespace('sel-a', { team: 'a' });
    await namespace('sel-b', { team: 'b' });
    await configMap('sel-b', 'in-b', {});
    await start({ namespaceSelector: { matchLabels: { team: 'a' } } }, 'default');
    await configMap('sel-a', 'in-a', {});
    await waitFor('in-a', () => sink.events.some(named('in-a')));
    expect(sink.events.some(named('in-b'))).toBe(false);
    await client.mergePatch(GVK.Namespace, { name: 'sel-b' }, { metadata: { labels: { team: 'a' } } });
    await waitFor('in-b after relabel', () => sink.events.some(named('in-b')));
    expect(summary(sink.events, named('in-b'))).toEqual(['dev.knative.apiserver.ref.add in-b']);
  });

  it('an empty namespaceSelector watches every namespace', async () => {
    await namespace('every-x');
    await start({ namespaceSelector: {} }, 'default');
    await configMap('every-x', 'anywhere', {});
    await waitFor('anywhere', () => sink.events.some(named('anywhere')));
  });
});

describe('resync and delivery', () => {
  it('emits dev.landscape.resync per resource every interval', async () => {
    await namespace('resync');
    await start({}, 'resync', { resyncIntervalMs: 150 });
    const resync = await waitFor('a resync', () =>
      sink.events.find((e) => e.headers['ce-type'] === 'dev.landscape.resync'),
    );
    expect(resync.headers).toMatchObject({
      'ce-kind': 'ConfigMap',
      'ce-apiversion': 'v1',
      'ce-source': srv.cluster('main').url,
    });
    expect(resync.headers['ce-id']).toMatch(UUID);
    await waitFor(
      'a second resync',
      () => sink.events.filter((e) => e.headers['ce-type'] === 'dev.landscape.resync').length >= 2,
    );
  });

  it('retries a failing sink and then delivers', async () => {
    await namespace('retry');
    await start({}, 'retry');
    sink.failNext([503, 500]);
    await configMap('retry', 'late', {});
    await waitFor('late', () => sink.events.some(named('late')));
  });
});
