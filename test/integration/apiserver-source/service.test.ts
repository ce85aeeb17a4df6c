/**
 * main.ts: the always-on service reads ApiServerSource manifests from a folder and a kubeconfig
 * file, and posts to each source's sink; a bad manifest fails with every problem listed.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startApiServer } from '@landscape/kube-apiserver';
import type { ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml } from '../../../shared/kube/index.js';
import { ManifestError, startService } from '../../../triggers/apiserver-source/index.js';
import { captureLogger, startSink, waitFor } from './support.js';
import type { Sink } from './support.js';
import { crdFiles } from '../../../shared/api/crds.js';

let srv: ApiServer;
let dir: string;
let sinkA: Sink;
let sinkB: Sink;

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'] });
  dir = await mkdtemp(path.join(os.tmpdir(), 'apiserver-source-'));
  sinkA = await startSink();
  sinkB = await startSink();
});

afterAll(async () => {
  await sinkA?.close();
  await sinkB?.close();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

function manifest(name: string, sink: string, kind: string, mode = 'Reference'): string {
  return `apiVersion: sources.knative.dev/v1
kind: ApiServerSource
metadata: {name: ${name}, namespace: svc}
spec:
  mode: ${mode}
  resources: [{apiVersion: v1, kind: ${kind}}]
  sink: {uri: '${sink}'}
`;
}

it('runs every source in the folder against the kubeconfig, each to its sink', async () => {
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  await writeFile(kubeconfigPath, srv.cluster('main').kubeconfigYaml());
  const manifests = path.join(dir, 'manifests');
  await mkdir(path.join(manifests, 'family'), { recursive: true });
  await writeFile(path.join(manifests, 'a.yaml'), manifest('cms', sinkA.url, 'ConfigMap'));
  await writeFile(
    path.join(manifests, 'family', 'b.yml'),
    `${manifest('secrets', sinkB.url, 'Secret', 'Resource')}---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ignored}\n`,
  );
  const client = createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()));
  await client.create(GVK.Namespace, { metadata: { name: 'svc' } });
  const service = await startService({
    manifestDir: manifests,
    kubeconfigPath,
    logger: captureLogger().logger,
  });
  try {
    expect(service.sources.map((s) => s.spec.id).sort()).toEqual(['svc/cms', 'svc/secrets']);
    await service.ready;
    await client.create(GVK.ConfigMap, { metadata: { name: 'c1', namespace: 'svc' }, data: {} });
    await client.create(GVK.Secret, { metadata: { name: 's1', namespace: 'svc' }, stringData: { k: 'v' } });
    const cm = await waitFor('cm event', () => sinkA.events.find((e) => e.headers['ce-name'] === 'c1'));
    const secret = await waitFor('secret event', () =>
      sinkB.events.find((e) => e.headers['ce-name'] === 's1'),
    );
    expect(cm.headers['ce-type']).toBe('dev.knative.apiserver.ref.add');
    expect(secret.headers['ce-type']).toBe('dev.knative.apiserver.resource.add');
    expect(sinkA.events.some((e) => e.headers['ce-kind'] === 'Secret')).toBe(false);
  } finally {
    await service.stop();
  }
});

it('a bad manifest fails the start with every problem', async () => {
  const bad = path.join(dir, 'bad');
  await mkdir(bad, { recursive: true });
  await writeFile(
    path.join(bad, 'x.yaml'),
    manifest('x', 'http://s', 'Pod').replace('mode: Reference', 'mode: Ref'),
  );
  await writeFile(
    path.join(bad, 'y.yaml'),
    'apiVersion: sources.knative.dev/v1\nkind: ApiServerSource\nmetadata: {name: y}\nspec: {resources: []}\n',
  );
  const err = await startService({
    manifestDir: bad,
    kubeConfig: kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()),
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ManifestError);
  expect((err as ManifestError).problems).toHaveLength(2);
});
