/**
 * Targets with `spec.secretRef` end to end under `npm start`, driven with kubectl as an operator
 * would (issue 15): the kubeconfig of the second embedded cluster (shoot-1) lives in a Secret of
 * the Target's namespace, not in the Target.
 * - The Secret does not exist yet: the manifest DeployItem stays Progressing with lastError
 *   TargetSecretNotFound naming the Secret and a Warning Event; once `kubectl create secret` made
 *   it, the same job ends Succeeded and its object exists in shoot-1.
 * - With a key: the value under the key is the Target content (`kubeconfig: |` ...), as upstream.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
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
    lastError?: { reason?: string; message?: string; codes?: string[] };
  };
}

let l: Landscape;
let dir: string;

useTestTimeout();
const shoot = (): { kubeconfig: string } => ({ kubeconfig: l.kubeconfig('shoot-1') });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'target-secretref-'));
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
}, startTimeout());

afterAll(async () => {
  const stopped = await l?.stop();
  rmSync(dir, { recursive: true, force: true });
  expect(stopped?.code).toBe(0);
}, stopTimeout());

async function item(name: string): Promise<Item> {
  return (await l.getJson(['deployitem', name, '-n', 'default'])) as Item;
}

function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return poll(what, probe, { timeoutMs, intervalMs: 250, context: () => l.output().slice(-4000) });
}

const target = (name: string, secretRef: string): string => `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: Target
metadata: {name: ${name}, namespace: default}
spec:
  type: landscaper.gardener.cloud/kubernetes-cluster
  secretRef: ${secretRef}
`;

const manifestItem = (
  name: string,
  targetName: string,
): string => `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: DeployItem
metadata: {name: ${name}, namespace: default}
spec:
  type: landscaper.gardener.cloud/kubernetes-manifest
  target: {name: ${targetName}}
  config:
    apiVersion: manifest.deployer.landscaper.gardener.cloud/v1alpha2
    kind: ProviderConfiguration
    manifests:
      - policy: manage
        manifest:
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: ${name}, namespace: default}
          data: {from: secretref}
`;

it('a missing Secret keeps the job Progressing and named; kubectl create secret heals it: Succeeded in shoot-1', async () => {
  await l.create('target-ref.yaml', target('shoot-ref', '{name: shoot-access}'));
  await l.create('ref-app.yaml', manifestItem('ref-app', 'shoot-ref'));
  const waiting = await until('ref-app Progressing on the missing Secret', async () => {
    const i = await item('ref-app');
    return i.status?.lastError?.reason === 'TargetSecretNotFound' ? i : undefined;
  });
  expect(waiting.status?.phase).toBe('Progressing');
  expect(waiting.status?.jobIDFinished).toBeUndefined();
  expect(waiting.status?.lastError?.message).toContain('secret default/shoot-access not found');
  expect(waiting.status?.lastError?.codes ?? []).not.toContain('ERR_CONFIGURATION_PROBLEM');
  const events = (await l.getJson([
    'events',
    '-n',
    'default',
    '--field-selector',
    'involvedObject.name=ref-app',
  ])) as { items: { type: string; reason: string; message: string }[] };
  expect(events.items).toContainEqual(
    expect.objectContaining({
      type: 'Warning',
      reason: 'TargetSecretNotFound',
      message: expect.stringContaining('secret default/shoot-access not found'),
    }),
  );

  await l.kubectlOk([
    'create',
    'secret',
    'generic',
    'shoot-access',
    '-n',
    'default',
    `--from-file=kubeconfig=${l.kubeconfig('shoot-1')}`,
  ]);
  const done = await until('ref-app finished', async () => {
    const i = await item('ref-app');
    return i.status?.jobIDFinished && i.status.jobIDFinished === i.status.jobID ? i : undefined;
  });
  expect(done.status?.phase).toBe('Succeeded');
  expect(done.status?.jobID).toBe(waiting.status?.jobID);
  expect(done.status?.lastError).toBeUndefined();
  const cm = (await l.getJson(['configmap', 'ref-app', '-n', 'default'], shoot())) as {
    data: Record<string, string>;
  };
  expect(cm.data).toEqual({ from: 'secretref' });
});

it('with a key: the value is the Target content ({kubeconfig: ...}), as Landscaper documents it', async () => {
  const content = join(dir, 'cluster1.yaml');
  writeFileSync(content, stringify({ kubeconfig: readFileSync(l.kubeconfig('shoot-1'), 'utf8') }));
  await l.kubectlOk([
    'create',
    'secret',
    'generic',
    'keyed-access',
    '-n',
    'default',
    `--from-file=cluster1=${content}`,
  ]);
  await l.create('target-keyed.yaml', target('shoot-keyed', '{name: keyed-access, key: cluster1}'));
  await l.create('keyed-app.yaml', manifestItem('keyed-app', 'shoot-keyed'));
  const done = await until('keyed-app finished', async () => {
    const i = await item('keyed-app');
    return i.status?.jobIDFinished && i.status.jobIDFinished === i.status.jobID ? i : undefined;
  });
  expect(done.status?.phase).toBe('Succeeded');
  await l.kubectlOk(['get', 'configmap', 'keyed-app', '-n', 'default'], shoot());
});
