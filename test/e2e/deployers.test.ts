/**
 * The Landscaper deployers end to end under `npm start`, driven with kubectl: a Target to the
 * second embedded cluster (shoot-1); DeployItems of both types end Succeeded with
 * jobIDFinished == jobID; manifest objects exist in the target cluster and are listed in
 * managedResources; deletion removes them (delete-without-uninstall keeps them); a missing Target
 * fails with NoTargetFound; a type nobody deploys fails with PickupTimeout; an invalid manifest
 * fails with a clear lastError and nothing applied. Short settings: pickupTimeout 15s (a config
 * dir of the test; long enough for cold starts on a loaded machine). The load test is deployers-load.test.ts.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  REPO_ROOT,
  startLandscape,
  startTimeout,
  stopTimeout,
  until as poll,
  useTestTimeout,
  type Landscape,
} from './support.js';

interface Item {
  metadata: { name: string; namespace: string; finalizers?: string[] };
  status?: {
    phase?: string;
    jobID?: string;
    jobIDFinished?: string;
    transitionTimes?: Record<string, string>;
    lastError?: { reason?: string; message?: string; codes?: string[] };
    providerStatus?: {
      managedResources?: Array<{
        policy: string;
        resource: { kind: string; name: string; namespace?: string };
      }>;
    };
  };
}

let l: Landscape;
let configDir: string;

useTestTimeout();
const shoot = (): { kubeconfig: string } => ({ kubeconfig: l.kubeconfig('shoot-1') });

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'deployers-config-'));
  cpSync(join(REPO_ROOT, 'config'), configDir, { recursive: true });
  writeFileSync(join(configDir, 'deployitem-timeout.yaml'), 'pickupTimeout: 15s\n');
  writeFileSync(
    join(configDir, 'deployer-mock.yaml'),
    'lockRetryDelay: 200ms\nworkers: {concurrency: 25, instances: 1}\n',
  );
  l = await startLandscape(
    [
      '--knative-dir',
      'knative/runtime',
      '--knative-dir',
      'knative/deployers',
      '--config-dir',
      configDir,
      '--status-interval',
      '0',
      '--no-function-logs',
    ],
    {
      functions: true,
    },
  );
  // created first: its pickup timeout runs while the other tests do
  await l.create(
    'nobody.yaml',
    `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: DeployItem
metadata: {name: nobody, namespace: default}
spec:
  type: example.com/nobody
  config: {a: 1}
`,
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
  rmSync(configDir, { recursive: true, force: true });
  expect(stopped?.code).toBe(0);
}, stopTimeout());

async function item(name: string, namespace = 'default'): Promise<Item> {
  return (await l.getJson(['deployitem', name, '-n', namespace])) as Item;
}

/** Polls with the scaled limit (base `timeoutMs`) and the landscape's output tail on failure. */
function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  return poll(what, probe, { timeoutMs, intervalMs: 250, context: () => l.output().slice(-4000) });
}

/** The item once its job is finished (jobIDFinished == jobID). */
function finished(name: string, namespace = 'default'): Promise<Item> {
  return until(`${namespace}/${name} finished`, async () => {
    const i = await item(name, namespace);
    return i.status?.jobID && i.status.jobIDFinished === i.status.jobID ? i : undefined;
  });
}

async function gone(args: string[], opts: { kubeconfig?: string } = {}): Promise<boolean> {
  const r = await l.kubectl(['get', ...args, '-o', 'name'], opts);
  return r.code !== 0 && /NotFound|not found/.test(r.stderr);
}

const manifestItem = (
  name: string,
  manifests: string,
  annotations = '',
): string => `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: DeployItem
metadata:
  name: ${name}
  namespace: default
  annotations: {${annotations}}
spec:
  type: landscaper.gardener.cloud/kubernetes-manifest
  target: {name: shoot}
  config:
    apiVersion: manifest.deployer.landscaper.gardener.cloud/v1alpha2
    kind: ProviderConfiguration
    updateStrategy: update
    manifests:
${manifests}`;

const configMap = (name: string, namespace = 'apps'): string => `      - policy: manage
        manifest:
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: ${name}, namespace: ${namespace}}
          data: {k: v}
`;

const namespace = `      - policy: manage
        manifest: {apiVersion: v1, kind: Namespace, metadata: {name: apps}}
`;

it('deploys a mock item: Succeeded, jobIDFinished == jobID, transition times, export Secret', async () => {
  await l.create(
    'mock.yaml',
    `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: DeployItem
metadata: {name: mock-1, namespace: default}
spec:
  type: landscaper.gardener.cloud/mock
  target: {name: shoot}
  config:
    apiVersion: mock.deployer.landscaper.gardener.cloud/v1alpha1
    kind: ProviderConfiguration
    providerStatus: {answer: "42"}
    export: {a: 1}
`,
  );
  const i = await finished('mock-1');
  expect(i.status).toMatchObject({ phase: 'Succeeded', providerStatus: { answer: '42' } });
  expect(i.status?.transitionTimes?.initTime).toBeTruthy();
  expect(i.status?.transitionTimes?.finishedTime).toBeTruthy();
  expect(i.metadata.finalizers).toEqual(['finalizer.landscaper.gardener.cloud']);
});

it('deploys manifests into the Target cluster, lists them in managedResources, and uninstalls them on delete', async () => {
  await l.create('manifest.yaml', manifestItem('web', namespace + configMap('web-config')));
  const i = await finished('web');
  expect(i.status?.phase).toBe('Succeeded');
  expect(
    i.status?.providerStatus?.managedResources?.map((m) => `${m.resource.kind}/${m.resource.name}`).sort(),
  ).toEqual(['ConfigMap/web-config', 'Namespace/apps']);
  await l.kubectlOk(['get', 'configmap', 'web-config', '-n', 'apps'], shoot());
  await l.kubectlOk(['delete', 'deployitem', 'web', '-n', 'default', '--timeout=60s']);
  expect(await gone(['deployitem', 'web', '-n', 'default'])).toBe(true);
  await until('the ConfigMap uninstalled', async () =>
    (await gone(['configmap', 'web-config', '-n', 'apps'], shoot())) ? true : undefined,
  );
});

it('keeps the objects of an item deleted with delete-without-uninstall', async () => {
  await l.create(
    'keep.yaml',
    manifestItem(
      'keep',
      `      - policy: manage
        manifest: {apiVersion: v1, kind: Namespace, metadata: {name: kept}}
${configMap('kept-config', 'kept')}`,
      '"landscaper.gardener.cloud/delete-without-uninstall": "true"',
    ),
  );
  expect((await finished('keep')).status?.phase).toBe('Succeeded');
  await l.kubectlOk(['delete', 'deployitem', 'keep', '-n', 'default', '--timeout=60s']);
  expect(await gone(['deployitem', 'keep', '-n', 'default'])).toBe(true);
  await l.kubectlOk(['get', 'configmap', 'kept-config', '-n', 'kept'], shoot());
});

it('fails an invalid manifest with a clear lastError and applies nothing of the list', async () => {
  await l.create(
    'invalid.yaml',
    manifestItem(
      'invalid',
      `${configMap('first-ok', 'default')}      - policy: manage
        manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: Not_A_Name, namespace: default}}
`,
    ),
  );
  const i = await finished('invalid');
  expect(i.status?.phase).toBe('Failed');
  expect(i.status?.lastError?.codes).toContain('ERR_CONFIGURATION_PROBLEM');
  expect(i.status?.lastError?.message).toContain('manifests[1]');
  expect(await gone(['configmap', 'first-ok', '-n', 'default'], shoot())).toBe(true);
});

it('fails an item with a missing Target (NoTargetFound) and one of a type nobody deploys (PickupTimeout)', async () => {
  await l.create(
    'orphans.yaml',
    `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: DeployItem
metadata: {name: no-target, namespace: default}
spec:
  type: landscaper.gardener.cloud/mock
  target: {name: absent}
  config: {phase: Succeeded}
`,
  );
  const noTarget = await finished('no-target');
  expect(noTarget.status).toMatchObject({
    phase: 'Failed',
    lastError: { reason: 'NoTargetFound', message: 'setting deploy item to failed due to missing target' },
  });
  const nobody = await finished('nobody');
  expect(nobody.status).toMatchObject({
    phase: 'Failed',
    lastError: {
      operation: 'WaitingForPickup',
      reason: 'PickupTimeout',
      message: 'no deployer has reconciled this deployitem within 15 seconds',
      codes: ['ERR_TIMEOUT'],
    },
  });
});
