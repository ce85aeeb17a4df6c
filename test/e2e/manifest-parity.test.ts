/**
 * Manifest deployer parity with upstream end to end under `npm start`, driven with kubectl
 * (issue 15): an item whose namespace is created after it stays Progressing with upstream's
 * error in lastError and ends Succeeded in the same job once the namespace exists; exports of
 * a deployed object's field land in the export Secret `<item>-export` named by status.exportRef.
 */
import { readFileSync } from 'node:fs';
import {
  startLandscape,
  startTimeout,
  stopTimeout,
  until as poll,
  useTestTimeout,
  type Landscape,
} from './support.js';

interface Item {
  status?: {
    phase?: string;
    jobID?: string;
    jobIDFinished?: string;
    exportRef?: { name: string; namespace?: string };
    lastError?: { operation?: string; reason?: string; message?: string; codes?: string[] };
  };
}

let l: Landscape;

useTestTimeout();
const shoot = (): { kubeconfig: string } => ({ kubeconfig: l.kubeconfig('shoot-1') });

beforeAll(async () => {
  l = await startLandscape(
    [
      '--knative-dir',
      'knative/runtime',
      '--knative-dir',
      'knative/deployers',
      '--status-interval',
      '0',
      '--no-function-logs',
    ],
    { functions: true },
  );
  await l.create(
    'target.yaml',
    `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: Target
metadata: {name: shoot, namespace: default}
spec:
  type: landscaper.gardener.cloud/kubernetes-cluster
  config:
    kubeconfig: |
${readFileSync(l.kubeconfig('shoot-1'), 'utf8')
  .split('\n')
  .map((line) => `      ${line}`)
  .join('\n')}
`,
  );
}, startTimeout());

afterAll(async () => {
  const stopped = await l?.stop();
  expect(stopped?.code).toBe(0);
}, stopTimeout());

async function item(name: string): Promise<Item> {
  return (await l.getJson(['deployitem', name, '-n', 'default'])) as Item;
}

function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return poll(what, probe, { timeoutMs, intervalMs: 250, context: () => l.output().slice(-4000) });
}

const manifestItem = (name: string, body: string): string => `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: DeployItem
metadata: {name: ${name}, namespace: default}
spec:
  type: landscaper.gardener.cloud/kubernetes-manifest
  target: {name: shoot}
  config:
    apiVersion: manifest.deployer.landscaper.gardener.cloud/v1alpha2
    kind: ProviderConfiguration
${body}`;

it('a namespace created after the item: Progressing with the upstream error, then Succeeded in the same job', async () => {
  await l.create(
    'later.yaml',
    manifestItem(
      'ns-later',
      `    manifests:
      - manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: later}, data: {k: v}}
`,
    ),
  );
  const waiting = await until('ns-later Progressing with the upstream error', async () => {
    const i = await item('ns-later');
    return i.status?.phase === 'Progressing' && i.status.lastError?.reason === 'ApplyNewObject'
      ? i
      : undefined;
  });
  expect(waiting.status?.lastError).toMatchObject({
    operation: 'ApplyObjects',
    message: 'unable to create resource later/cm: namespaces "later" not found',
  });
  expect(waiting.status?.lastError?.codes).toBeUndefined();
  const jobID = waiting.status?.jobID;
  await l.kubectlOk(['create', 'namespace', 'later'], shoot());
  const done = await until('ns-later Succeeded', async () => {
    const i = await item('ns-later');
    return i.status?.phase === 'Succeeded' ? i : undefined;
  });
  expect(done.status).toMatchObject({ jobID, jobIDFinished: jobID });
  await l.kubectlOk(['get', 'configmap', 'cm', '-n', 'later'], shoot());
});

it('exports a field of a deployed object into the export Secret', async () => {
  await l.create(
    'exports.yaml',
    manifestItem(
      'exp',
      `    manifests:
      - manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: exp-cm, namespace: default}, data: {somekey: abc}}
    exports:
      exports:
      - key: exported.value
        jsonPath: data.somekey
        fromResource: {apiVersion: v1, kind: ConfigMap, name: exp-cm, namespace: default}
`,
    ),
  );
  const done = await until('exp Succeeded', async () => {
    const i = await item('exp');
    return i.status?.phase === 'Succeeded' ? i : undefined;
  });
  expect(done.status?.exportRef).toEqual({ name: 'exp-export', namespace: 'default' });
  const secret = (await l.getJson(['secret', 'exp-export', '-n', 'default'])) as {
    data: Record<string, string>;
  };
  expect(JSON.parse(Buffer.from(secret.data.config, 'base64').toString())).toEqual({
    exported: { value: 'abc' },
  });
});
