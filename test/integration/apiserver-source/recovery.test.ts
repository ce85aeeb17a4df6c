/**
 * The source across outages of the embedded API server, as Knative's adapter (client-go's
 * reflector over delegate.go's store): a dropped watch resumes from the last resourceVersion
 * (changes made while the server was away arrive, nothing is re-listed); a resourceVersion older
 * than the server's history (410 Expired) makes it re-list, and what changed meanwhile is NOT
 * sent (the list goes to the store's no-op Replace): repairing that is the product's resync.
 */
import { startApiServer } from '@landscape/kube-apiserver';
import type { ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml } from '../../../shared/kube/index.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import { sourceSpecFromManifest, startApiServerSource } from '../../../triggers/apiserver-source/index.js';
import type { RunningSource } from '../../../triggers/apiserver-source/index.js';
import { captureLogger, sleepMs, startSink, summary, waitFor } from './support.js';
import type { Received, Sink } from './support.js';
import { crdFiles } from '../../../shared/api/crds.js';

const write = { fieldValidation: 'Strict' as const, dryRun: false };

interface Fixture {
  srv: ApiServer;
  client: KubeClient;
  sink: Sink;
  source: RunningSource;
  logs: () => any[];
}

async function setup(historySize: number | undefined, mode: 'Reference' | 'Resource'): Promise<Fixture> {
  const srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'], historySize });
  const yaml = srv.cluster('main').kubeconfigYaml();
  const client = createKubeClient(kubeConfigFromYaml(yaml), { fieldManager: 'recovery-test' });
  await client.create(GVK.Namespace, { metadata: { name: 'rec' } });
  for (const name of ['keep', 'change', 'gone'])
    await client.create(GVK.ConfigMap, { metadata: { name, namespace: 'rec' }, data: { v: '1' } });
  const sink = await startSink();
  const { logger, lines } = captureLogger();
  const source = await startApiServerSource({
    spec: sourceSpecFromManifest({
      apiVersion: 'sources.knative.dev/v1',
      kind: 'ApiServerSource',
      metadata: { name: 'rec', namespace: 'rec' },
      spec: { mode, resources: [{ apiVersion: 'v1', kind: 'ConfigMap' }], sink: { uri: sink.url } },
    }),
    kubeConfig: kubeConfigFromYaml(yaml),
    logger,
    reflector: { backoff: { initialMs: 50, maxMs: 200 } },
  });
  await source.ready;
  // nothing for the three that exist; a marker's add says the watch is live
  await client.create(GVK.ConfigMap, { metadata: { name: 'marker', namespace: 'rec' }, data: { v: '1' } });
  await waitFor('the marker', () => sink.events.filter(ours).length === 1);
  expect(summary(sink.events.filter(ours))).toEqual([
    `dev.knative.apiserver.${mode === 'Reference' ? 'ref' : 'resource'}.add marker`,
  ]);
  return { srv, client, sink, source, logs: lines };
}

async function teardown(f: Fixture | undefined): Promise<void> {
  await f?.source.stop();
  await f?.sink.close();
  await f?.srv.stop();
}

const ours = (e: Received): boolean => e.headers['ce-namespace'] === 'rec';

/** Writes straight into the stopped cluster's store (no HTTP: the server is away). */
function whileAway(srv: ApiServer): {
  update(name: string, v: string): void;
  remove(name: string): void;
  create(name: string): void;
} {
  const cluster = srv.cluster('main');
  const def = cluster.registry.lookup('', 'v1', 'configmaps')!;
  return {
    update(name, v) {
      const current = cluster.ops.get({ def, namespace: 'rec', name });
      cluster.ops.update({ def, namespace: 'rec', name }, { ...current, data: { v } }, write);
    },
    remove(name) {
      cluster.ops.delete({ def, namespace: 'rec', name }, { dryRun: false });
    },
    create(name) {
      cluster.ops.create(
        { def, namespace: 'rec' },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'rec' }, data: { v: '1' } },
        write,
      );
    },
  };
}

describe('resume after a server restart', () => {
  let f: Fixture | undefined;
  afterEach(async () => {
    await teardown(f);
    f = undefined;
  });

  it('watches again from the last resourceVersion: changes made while away arrive, nothing re-listed', async () => {
    f = await setup(undefined, 'Reference');
    const cluster = f.srv.cluster('main');
    await cluster.stop();
    const away = whileAway(f.srv);
    away.update('change', '2');
    away.remove('gone');
    away.create('new');
    await sleepMs(300); // the source retries against a closed port meanwhile
    await cluster.start();
    await waitFor('3 more events', () => f!.sink.events.filter(ours).length === 4);
    expect(summary(f.sink.events.filter(ours)).slice(1)).toEqual([
      'dev.knative.apiserver.ref.update change',
      'dev.knative.apiserver.ref.delete gone',
      'dev.knative.apiserver.ref.add new',
    ]);
    const msgs = f.logs().map((l) => l.msg);
    expect(msgs).toContain('list/watch failed: retrying');
    expect(msgs.some((m) => /re-list/.test(m))).toBe(false);
    // and the watch is live again
    await f.client.mergePatch(GVK.ConfigMap, { namespace: 'rec', name: 'keep' }, { data: { v: '9' } });
    await waitFor('live update', () => f!.sink.events.filter(ours).length === 5);
  });
});

describe('re-list after 410 Expired', () => {
  let f: Fixture | undefined;
  afterEach(async () => {
    await teardown(f);
    f = undefined;
  });

  it('re-lists and sends nothing for what changed meanwhile; later changes are sent', async () => {
    f = await setup(5, 'Resource');
    const cluster = f.srv.cluster('main');
    await cluster.stop();
    const away = whileAway(f.srv);
    away.update('change', '2');
    away.remove('gone');
    away.create('new');
    for (let i = 0; i < 8; i++) away.update('change', String(10 + i)); // push the history past our resourceVersion
    await cluster.start();
    await waitFor('the re-list', () => f!.logs().some((l) => /re-list/.test(l.msg)));
    // a live change after the re-list is sent (patched until the new watch sees one)
    const keep = (): Received[] => f!.sink.events.filter((e) => e.headers['ce-name'] === 'keep');
    for (let v = 100; v < 150 && keep().length === 0; v++) {
      await f.client.mergePatch(
        GVK.ConfigMap,
        { namespace: 'rec', name: 'keep' },
        { data: { v: String(v) } },
      );
      await waitFor('the update of keep', () => keep().length > 0, 300).catch(() => undefined);
    }
    const after = f.sink.events.filter(ours).slice(1);
    // change, gone and new changed while away: nothing for them, ever
    expect(summary(after).filter((line) => !line.endsWith(' keep'))).toEqual([]);
    expect(summary(keep())[0]).toBe('dev.knative.apiserver.resource.update keep');
  });
});
