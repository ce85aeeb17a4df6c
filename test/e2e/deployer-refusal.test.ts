/**
 * The manifest deployer against a cluster that refuses (issue 19): under `npm start` with the
 * deployers, a DeployItem whose manifests hold a Deployment a cluster would refuse (its selector
 * does not match its template labels) ends Failed with the API server's refusal in
 * status.lastError — kube-apiserver's words, ERR_CONFIGURATION_PROBLEM — as upstream's manifest
 * deployer reports an apply error against a real cluster; nothing of the list is applied. The same
 * manifests with the selector fixed deploy, and the Deployment reads back with a cluster's defaults.
 */
import { readFileSync } from 'node:fs';
import {
  startLandscape,
  startTimeout,
  stopTimeout,
  until,
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
  const kubeconfig = readFileSync(l.kubeconfig('shoot-1'), 'utf8')
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n');
  await l.create(
    'target.yaml',
    `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: Target
metadata: {name: shoot, namespace: default}
spec:
  type: landscaper.gardener.cloud/kubernetes-cluster
  config:
    kubeconfig: |
${kubeconfig}
`,
  );
}, startTimeout());

afterAll(async () => {
  const stopped = await l?.stop();
  expect(stopped?.code).toBe(0);
}, stopTimeout());

const item = (name: string, selectorApp: string): string => `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: DeployItem
metadata: {name: ${name}, namespace: default}
spec:
  type: landscaper.gardener.cloud/kubernetes-manifest
  target: {name: shoot}
  config:
    apiVersion: manifest.deployer.landscaper.gardener.cloud/v1alpha2
    kind: ProviderConfiguration
    updateStrategy: update
    manifests:
      - policy: manage
        manifest:
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: ${name}-config, namespace: default}
          data: {k: v}
      - policy: manage
        manifest:
          apiVersion: apps/v1
          kind: Deployment
          metadata: {name: ${name}, namespace: default}
          spec:
            selector: {matchLabels: {app: ${selectorApp}}}
            template:
              metadata: {labels: {app: ${name}}}
              spec: {containers: [{name: web, image: nginx}]}
`;

function finished(name: string): Promise<Item> {
  return until(
    `default/${name} finished`,
    async () => {
      const i = (await l.getJson(['deployitem', name, '-n', 'default'])) as Item;
      return i.status?.jobID && i.status.jobIDFinished === i.status.jobID ? i : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250, context: () => l.output().slice(-4000) },
  );
}

it('reports the refusal of a Deployment whose selector does not match its labels, and applies nothing', async () => {
  await l.create('refused.yaml', item('refused', 'elsewhere'));
  const i = await finished('refused');
  expect(i.status?.phase).toBe('Failed');
  expect(i.status?.lastError?.codes).toContain('ERR_CONFIGURATION_PROBLEM');
  expect(i.status?.lastError?.message).toContain(
    'Deployment.apps "refused" is invalid: spec.template.metadata.labels: Invalid value: {"app":"refused"}: `selector` does not match template `labels`',
  );
  const cm = await l.kubectl(['get', 'configmap', 'refused-config', '-n', 'default', '-o', 'name'], shoot());
  expect(cm.stderr).toMatch(/NotFound|not found/);
});

it('deploys the same manifests with a matching selector; the Deployment has a cluster defaults', async () => {
  await l.create('accepted.yaml', item('accepted', 'accepted'));
  expect((await finished('accepted')).status?.phase).toBe('Succeeded');
  const d = await l.getJson(['deployment', 'accepted', '-n', 'default'], shoot());
  expect(d.spec).toMatchObject({
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: { spec: { restartPolicy: 'Always', containers: [{ imagePullPolicy: 'Always' }] } },
  });
});
