/**
 * `npm start -- --kubeconfig <file>`: no embedded API server; the same runtime (sources, broker,
 * activator, functions with their Pods) runs against the cluster of the kubeconfig. Here that
 * cluster is an API server this test starts itself; kubectl talks to it directly.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import {
  scaled,
  startLandscape,
  startTimeout,
  stopTimeout,
  until,
  useTestTimeout,
  type Landscape,
} from './support.js';
import { crdFiles } from '../../shared/api/crds.js';

let api: ApiServer;
let dir: string;
let kubeconfig: string;
let l: Landscape;

useTestTimeout();

beforeAll(async () => {
  api = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'] });
  dir = await mkdtemp(join(tmpdir(), 'external-cluster-'));
  kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, api.cluster('main').kubeconfigYaml());
  l = await startLandscape(
    [
      '--kubeconfig',
      kubeconfig,
      '--knative-dir',
      'knative',
      '--knative-dir',
      'test/e2e/runtime/knative',
      '--functions-dir',
      'functions',
      '--functions-dir',
      'test/e2e/runtime/functions',
      '--status-interval',
      '0',
      '--no-function-logs',
    ],
    { functions: true },
  );
}, startTimeout());

afterAll(async () => {
  const stopped = await l?.stop();
  await api?.stop();
  await rm(dir, { recursive: true, force: true });
  expect(stopped?.code).toBe(0);
}, stopTimeout());

it(
  'runs the functions against the given cluster: a kubectl change there is handled by a replica with its Pod there',
  async () => {
    const opts = { kubeconfig };
    await l.create(
      'cm.yaml',
      `apiVersion: v1
kind: ConfigMap
metadata:
  name: external
  namespace: default
  labels: {e2e.landscape.dev/record: "true"}
data: {delayMs: "0"}
`,
      opts,
    );
    const handledBy = await until(
      'the recorder to annotate the ConfigMap',
      async () => {
        const cm = (await l.getJson(['configmap', 'external', '-n', 'default'], opts)) as {
          metadata: { annotations?: Record<string, string> };
        };
        return cm.metadata.annotations?.['e2e.landscape.dev/handled-by'];
      },
      { timeoutMs: 30_000, context: () => l.output().slice(-3000) },
    );
    expect(handledBy).toMatch(/^recorder-/);
    const pods = (await l.getJson(
      ['pods', '-n', 'landscape-system', '-l', 'serving.knative.dev/service=recorder'],
      opts,
    )) as {
      items: Array<{ metadata: { name: string } }>;
    };
    expect(pods.items.map((p) => p.metadata.name)).toContain(handledBy);
    // the landscape names the given cluster, not an embedded one
    expect(l.output()).toMatch(
      new RegExp(`main +${api.cluster('main').url.replaceAll('.', '\\.')} +kubeconfig: ${kubeconfig}`),
    );
  },
  scaled(60_000),
);
