/**
 * The API-server event source against the embedded API server, delivering to a local HTTP sink,
 * as weak as Knative's adapter (knative/eventing pkg/adapter/apiserver/delegate.go): nothing for
 * what exists at start, add/update/delete in both modes with Knative's exact attributes, label
 * and namespace selectors (a relabelled namespace's existing objects get nothing), ceOverrides,
 * the adapter's retries to the sink and the drop after them, no resync events.
 */
import { startApiServer } from '@landscape/kube-apiserver';
import type { ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml } from '../../../shared/kube/index.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import { sourceSpecFromManifest, startApiServerSource } from '../../../triggers/apiserver-source/index.js';
import type { RunningSource } from '../../../triggers/apiserver-source/index.js';
import { captureLogger, startSink, summary, waitFor } from './support.js';
import type { Received, Sink } from './support.js';
import { crdFiles } from '../../../shared/api/crds.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let srv: ApiServer;
let client: KubeClient;
let kubeconfigYaml: string;
let sink: Sink;
const running: RunningSource[] = [];

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'] });
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
  log: ReturnType<typeof captureLogger> = captureLogger(),
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
    logger: log.logger,
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

/** Creates a marker object and waits for its add: every event sent before it has arrived (in order). */
async function flush(ns: string, marker: string): Promise<void> {
  await configMap(ns, marker, {});
  await waitFor(`the add of ${marker}`, () => sink.events.some(named(marker)));
}

describe('initial state (as Knative: the list goes to a no-op store.Replace)', () => {
  it('an object that exists at start gets no event; its next change is one update', async () => {
    await namespace('init');
    await configMap('init', 'one', { a: '1' });
    await configMap('init', 'two', { b: '2' });
    await start({}, 'init');
    await flush('init', 'marker');
    expect(summary(sink.events, named('one', 'two'))).toEqual([]);
    await client.mergePatch(GVK.ConfigMap, { namespace: 'init', name: 'one' }, { data: { a: '2' } });
    await waitFor('the update of one', () => sink.events.some(named('one')));
    await flush('init', 'marker-2');
    expect(summary(sink.events, named('one', 'two'))).toEqual(['dev.knative.apiserver.ref.update one']);
  });

  it('a restarted source sends nothing for what changed while it was down', async () => {
    await namespace('restart');
    const first = await start({}, 'restart');
    await flush('restart', 'before');
    await first.stop();
    await configMap('restart', 'while-down', {});
    await client.mergePatch(GVK.ConfigMap, { namespace: 'restart', name: 'before' }, { data: { x: '1' } });
    await start({}, 'restart');
    await flush('restart', 'after');
    expect(summary(sink.events, named('before', 'while-down'))).toEqual([
      'dev.knative.apiserver.ref.add before',
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

  it('a namespaceSelector picks namespaces by label; after a relabel only new changes there are sent', async () => {
    await namespace('sel-a', { team: 'a' });
    await namespace('sel-b', { team: 'b' });
    await configMap('sel-b', 'in-b', {});
    await start({ namespaceSelector: { matchLabels: { team: 'a' } } }, 'default');
    await configMap('sel-a', 'in-a', {});
    await waitFor('in-a', () => sink.events.some(named('in-a')));
    expect(sink.events.some(named('in-b'))).toBe(false);
    await client.mergePatch(GVK.Namespace, { name: 'sel-b' }, { metadata: { labels: { team: 'a' } } });
    // Knative rolls the adapter: what already exists in the new namespace is not sent, new changes are
    let seen = false;
    for (let i = 0; i < 50 && !seen; i++) {
      const name = `new-b-${i}`;
      await configMap('sel-b', name, {});
      seen = await waitFor(name, () => sink.events.some(named(name)), 400).then(
        () => true,
        () => false,
      );
    }
    expect(seen).toBe(true);
    expect(summary(sink.events, named('in-b'))).toEqual([]);
  });

  it('an empty namespaceSelector watches every namespace', async () => {
    await namespace('every-x');
    await start({ namespaceSelector: {} }, 'default');
    await configMap('every-x', 'anywhere', {});
    await waitFor('anywhere', () => sink.events.some(named('anywhere')));
  });
});

describe("delivery (the adapter's retries, then the drop)", () => {
  it("sends only Knative's event types, never a resync of its own", async () => {
    await namespace('types');
    await configMap('types', 'old', {});
    await start({}, 'types');
    await configMap('types', 'one', {});
    await client.mergePatch(GVK.ConfigMap, { namespace: 'types', name: 'one' }, { data: { a: '1' } });
    await flush('types', 'marker');
    expect(new Set(sink.events.map((e) => e.headers['ce-type']))).toEqual(
      new Set(['dev.knative.apiserver.ref.add', 'dev.knative.apiserver.ref.update']),
    );
  });

  it('retries 503, 502 and 504 and then delivers', async () => {
    await namespace('retry');
    await start({}, 'retry');
    sink.failNext([503, 502, 504]);
    await configMap('retry', 'late', {});
    await waitFor('late', () => sink.events.some(named('late')));
  });

  it('a 500 is not retried: the event is dropped with a log line, the next one is sent', async () => {
    await namespace('drop');
    const log = captureLogger();
    await start({}, 'drop', log);
    sink.failNext([500]);
    await configMap('drop', 'lost', {});
    await flush('drop', 'next');
    expect(sink.events.some(named('lost'))).toBe(false);
    expect(log.lines()).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'failed to send cloudevent: dropped', status: 500 }),
    );
  });

  it('after one attempt and 5 retries the event is dropped', async () => {
    await namespace('gone');
    const log = captureLogger();
    await start({}, 'gone', log);
    sink.failNext([503, 503, 503, 503, 503, 503]);
    await configMap('gone', 'lost', {});
    await flush('gone', 'next');
    expect(sink.events.some(named('lost'))).toBe(false);
    expect(log.lines()).toContainEqual(
      expect.objectContaining({ msg: 'failed to send cloudevent: dropped', attempts: 6, status: 503 }),
    );
  });
});
