/**
 * Idle at zero (issue 16): `npm start` with every default family and the PingSources on their own
 * one-minute schedules (what `npm start` runs), plus one test function whose bundle is not in the
 * cache, so this start runs esbuild. One piece of work (a labelled ConfigMap) reaches that
 * function; after the idle window (`--idle-window 1s`) the landscape has no function replica,
 * and no bundler process (esbuild's service) runs under it: the only processes under the
 * landscape are its Redis (redis-server; its node keeper where setpriv is missing). Nothing is
 * timed: the test waits on the condition (a tick's replica comes and goes at the top of each
 * minute; probe-tick's invocation keeps probing for its PROBE_TICK_SPAN, 50 s, while a shoot has a
 * prober), with a generous limit.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processTree, type Proc } from '../../bench/proc.js';
import type { ControlFile } from '../../local/control.js';
import type { FunctionRow } from '../../local/knative/status.js';
import {
  readJson,
  REPO_ROOT,
  scaled,
  startLandscape,
  startTimeout,
  stopTimeout,
  until,
  useTestTimeout,
  type Landscape,
} from './support.js';

const NS = 'landscape-system';
/** A function name of its own per run: its bundle is never in the cache, so the start bundles. */
const TAG = randomBytes(4).toString('hex');
const FN = `idle-${TAG}`;
/** Inside the repository (its node_modules resolve the Functions Framework), in a cache folder. */
const CACHE = join(REPO_ROOT, 'node_modules', '.cache');
let dir: string;
let l: Landscape;

useTestTimeout();

const HANDLER = `import * as ff from '@google-cloud/functions-framework';
ff.cloudEvent(${JSON.stringify(FN)}, () => undefined);
`;

const MANIFESTS = `apiVersion: serving.knative.dev/v1
kind: Service
metadata:
  name: ${FN}
  namespace: ${NS}
spec:
  template:
    metadata:
      annotations:
        autoscaling.knative.dev/min-scale: "0"
        autoscaling.knative.dev/max-scale: "1"
    spec:
      timeoutSeconds: 30
      containers:
        - image: landscape-functions:0.1.0
          command: [node, /app/functions/${FN}/server.js]
          env:
            - { name: POD_NAME, valueFrom: { fieldRef: { fieldPath: metadata.name } } }
---
apiVersion: sources.knative.dev/v1
kind: ApiServerSource
metadata:
  name: ${FN}
  namespace: ${NS}
spec:
  mode: Reference
  namespaceSelector: {}
  resources:
    - apiVersion: v1
      kind: ConfigMap
      selector:
        matchLabels:
          e2e.landscape.dev/idle: "${TAG}"
  sink:
    ref: { apiVersion: eventing.knative.dev/v1, kind: Broker, name: default, namespace: ${NS} }
---
apiVersion: eventing.knative.dev/v1
kind: Trigger
metadata:
  name: ${FN}
  namespace: ${NS}
spec:
  broker: default
  filters:
    - exact: { type: dev.knative.apiserver.ref.add }
    - exact: { kind: ConfigMap }
  subscriber:
    ref: { apiVersion: serving.knative.dev/v1, kind: Service, name: ${FN} }
`;

/** The default folders of knative/ (every family but the opt-in knative/optional/), as npm start picks them. */
function defaultFamilies(): string[] {
  return readdirSync(join(REPO_ROOT, 'knative'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'optional')
    .flatMap((e) => ['--knative-dir', join('knative', e.name)]);
}

beforeAll(async () => {
  await mkdir(CACHE, { recursive: true });
  dir = await mkdtemp(join(CACHE, 'idle-e2e-'));
  await mkdir(join(dir, 'functions', FN), { recursive: true });
  await mkdir(join(dir, 'knative'), { recursive: true });
  await writeFile(join(dir, 'functions', FN, 'handler.ts'), HANDLER);
  await writeFile(join(dir, 'knative', `${FN}.yaml`), MANIFESTS);
  l = await startLandscape(
    [
      ...defaultFamilies(),
      ...['--knative-dir', join(dir, 'knative')],
      ...['--functions-dir', 'functions', '--functions-dir', join(dir, 'functions')],
      '--no-default-clusters',
      ...['--idle-window', '1s', '--status-interval', '0'],
    ],
    { functions: true, schedules: 'spec', env: { REDIS_URL: '' } },
  );
}, startTimeout());

afterAll(async () => {
  const stopped = await l?.stop();
  await rm(dir, { recursive: true, force: true });
  // the run's own cache entries (one per function name): nothing else reuses them
  for (const e of readdirSync(join(CACHE, 'landscape-bundles'), { withFileTypes: true }))
    if (e.name.startsWith(`${FN}-`))
      await rm(join(CACHE, 'landscape-bundles', e.name), { recursive: true, force: true });
  if (stopped?.code === 0) await rm(l.stateDir, { recursive: true, force: true });
  expect(stopped?.code).toBe(0);
}, stopTimeout());

/** Every process whose parent chain leads to `root` (root excluded), from /proc. */
function descendants(root: number): Proc[] {
  return processTree(root).filter((p) => p.pid !== root);
}

async function functionRows(): Promise<FunctionRow[]> {
  const c = await readJson<ControlFile>(join(l.stateDir, 'landscape.json'));
  const res = await fetch(`${c.url}/functions`, { headers: { Authorization: `Bearer ${c.token}` } });
  return (await res.json()) as FunctionRow[];
}

/** redis-server (and its node keeper where setpriv is missing, local/redis.ts): the landscape's own, not a build or a replica. */
const isRedis = (p: Proc): boolean => p.cmdline.includes('redis-server');

it(
  'after one piece of work and the idle window: no replica, no esbuild, only Redis under the landscape',
  async () => {
    const context = (): string => `--- landscape:\n${l.output().slice(-3000)}`;
    // this start bundled the test function (a cache miss), so esbuild's service ran under it
    expect(l.output()).toMatch(/functions: bundled \d+\/\d+ in /);
    await l.create(
      'work.yaml',
      `apiVersion: v1
kind: ConfigMap
metadata:
  name: idle-work
  namespace: default
  labels: {e2e.landscape.dev/idle: "${TAG}"}
`,
    );
    const done = await until(
      `the broker to deliver the ConfigMap's event to ${FN}`,
      async () => {
        const row = (await functionRows()).find((r) => r.function === FN);
        return row && row.delivered >= 1 && row.coldStarts >= 1 ? row : undefined;
      },
      { timeoutMs: 60_000, context },
    );
    expect(done.deadLettered).toBe(0);

    const { pid } = await readJson<ControlFile>(join(l.stateDir, 'landscape.json'));
    // what kept the landscape busy at the last look: printed if the wait runs out
    let last = '';
    const idleContext = (): string => `--- still busy at the last look: ${last}\n${context()}`;
    const idle = await until(
      'no replica and no process but Redis under the landscape',
      async () => {
        const rows = await functionRows();
        const busy = rows.filter((r) => r.replicas > 0 || r.inFlight > 0 || r.queued > 0);
        const procs = descendants(pid);
        const others = procs.filter((p) => !isRedis(p));
        last = JSON.stringify({
          busy: busy.map(({ function: f, replicas, inFlight, queued }) => ({
            f,
            replicas,
            inFlight,
            queued,
          })),
          others: others.map((p) => `${p.pid} ${p.cmdline.slice(0, 160)}`),
        });
        return busy.length === 0 && others.length === 0 ? { rows, procs } : undefined;
      },
      // a tick's replica comes at the top of each minute; probe-tick's keeps probing for 50 s
      { timeoutMs: 120_000, intervalMs: 250, context: idleContext },
    );
    expect(idle.rows.map((r) => r.replicas).reduce((a, b) => a + b, 0)).toBe(0);
    expect(idle.procs.filter((p) => /esbuild/.test(p.cmdline))).toEqual([]);
    expect(idle.procs.length).toBeLessThanOrEqual(2);
  },
  scaled(240_000),
);
