/**
 * The dependency watchdog end to end under `npm start` (the runtime and watchdog families of
 * knative/), driven with kubectl. The seed is the main cluster, the shoot the default extra
 * cluster shoot-1: a namespace labelled gardener.cloud/role=shoot with the probe Secret (shoot-1's
 * kubeconfig), kube-controller-manager (2), machine-controller-manager (1), cluster-autoscaler (1)
 * and a Machine per node; in shoot-1 three Nodes of pool "pool" and their Leases, one of them
 * renewed every 2 s by the test (as a kubelet would), two expired long ago.
 *
 * - probe-tick: with the shoot's API server stopped, a new Cluster is probed (ERR_PROBE_API_SERVER)
 *   and nothing is scaled although 2 of 3 leases are expired; started again, MCM and CA (level 0)
 *   then KCM (level 1) go to 0 with the replicas / meltdown-protection annotations and ScaledDown
 *   Events; all leases renewed, KCM comes back to 2, then MCM after its scale-up initialDelay, then
 *   CA, and the annotations are removed.
 * - weeder: the kube-apiserver EndpointSlice going not-ready → ready deletes the crash-looping pods
 *   its selector picks (and one that starts crash-looping inside the window), not those with other
 *   labels nor one that starts crash-looping after the window closed (a later etcd-main-client
 *   recovery, which does delete its own dependant, shows that the weeder got that far).
 *
 * Short settings (a config dir of the test): probeInterval 500ms, initialDelay 1s,
 * kcmNodeMonitorGraceDuration 10s (leases expire after 7.5 s), MCM scale-up initialDelay 2s,
 * watchDuration 6s (times E2E_TIMEOUT_SCALE: the test must act inside it).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ok,
  readJson,
  REPO_ROOT,
  scaled as limit,
  sleep,
  startLandscape,
  startTimeout,
  stopTimeout,
  until as poll,
  type CommandResult,
  type Landscape,
} from './support.js';

const NS = 'shoot--e2e--watchdog';
const WEED_NS = 'shoot--e2e--weeder';
const NODES = ['node-a', 'node-b', 'node-c'];
const REPLICAS = 'dependency-watchdog.gardener.cloud/replicas';
const MELTDOWN = 'dependency-watchdog.gardener.cloud/meltdown-protection-active';
const KCM = 'kube-controller-manager';
const MCM = 'machine-controller-manager';
const CA = 'cluster-autoscaler';
const FORMER: Record<string, number> = { [KCM]: 2, [MCM]: 1, [CA]: 1 };
const MCM_SCALE_UP_DELAY_MS = 2_000;
/** The weeder's watchDuration: 6 s on a quiet machine, scaled (a Pod must start crash-looping inside it). */
const watchDurationMs = (): number => limit(6_000);
const RENEW_EVERY_MS = 2_000;

const PROBER_CONFIG = `kubeConfigSecretName: dwd-api-server-probe-secret
probeInterval: 500ms
initialDelay: 1s
probeTimeout: 2s
backoffJitterFactor: 0
kcmNodeMonitorGraceDuration: 10s
nodeLeaseFailureFraction: 0.6
dependentResourceInfos:
  - ref: {kind: Deployment, name: ${KCM}, apiVersion: apps/v1}
    optional: false
    scaleUp: {level: 0}
    scaleDown: {level: 1}
  - ref: {kind: Deployment, name: ${MCM}, apiVersion: apps/v1}
    optional: false
    scaleUp: {level: 1, initialDelay: ${MCM_SCALE_UP_DELAY_MS}ms}
    scaleDown: {level: 0}
  - ref: {kind: Deployment, name: ${CA}, apiVersion: apps/v1}
    optional: true
    scaleUp: {level: 2}
    scaleDown: {level: 0}
`;

const weederConfig = (): string => `watchDuration: ${watchDurationMs()}ms
servicesAndDependantSelectors:
  etcd-main-client:
    podSelectors:
      - matchExpressions:
          - {key: gardener.cloud/role, operator: In, values: [controlplane]}
          - {key: role, operator: In, values: [apiserver]}
  kube-apiserver:
    podSelectors:
      - matchExpressions:
          - {key: gardener.cloud/role, operator: In, values: [controlplane]}
          - {key: role, operator: NotIn, values: [main, apiserver]}
`;

interface LogLine {
  ts: string;
  msg: string;
  namespace?: string;
  resource?: string;
  replicas?: number;
  pod?: string;
  service?: string;
  expiredLeasesFraction?: number;
  expirationThreshold?: number;
  candidateLeases?: number;
}

interface Deployment {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { replicas: number };
}

interface KubeEvent {
  reason: string;
  message: string;
  involvedObject: { name: string };
}

let l: Landscape;
let configDir: string;
const shoot = (): { kubeconfig: string } => ({ kubeconfig: l.kubeconfig('shoot-1') });

/** Polls with the scaled limit (base `timeoutMs`) and the functions' and landscape's output tails on failure. */
function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  return poll(what, probe, {
    timeoutMs,
    intervalMs: 250,
    context: () =>
      `--- probe-tick:\n${tail('probe-tick')}\n--- weeder:\n${tail('weeder')}\n--- landscape:\n${l.output().slice(-3000)}`,
  });
}

/** The JSON lines of `<state>/logs/<fn>.log` so far. */
function logLines(fn: string): LogLine[] {
  const file = join(l.stateDir, 'logs', `${fn}.log`);
  if (!existsSync(file)) return [];
  // complete lines only: a replica may be appending one as we read
  return readFileSync(file, 'utf8')
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

function tail(fn: string): string {
  return logLines(fn)
    .slice(-40)
    .map((x) => JSON.stringify(x))
    .join('\n');
}

/** The probe-tick's "Successfully scaled resource" lines of our shoot, in order. */
function scaled(): LogLine[] {
  return logLines('probe-tick').filter((x) => x.msg === 'Successfully scaled resource' && x.namespace === NS);
}

const microTime = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');

function leaseList(names: readonly string[], renewTime: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: names.map((name) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: 'kube-node-lease' },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
    })),
  });
}

/** The nodes whose leases the test renews every RENEW_EVERY_MS, as their kubelets would. */
const alive = new Set<string>(['node-c']);
let renewing = true;
let renewer: Promise<void> | undefined;

/** Server-side apply as the kubelet (the one manager of renewTime). */
function applyLeases(names: readonly string[], renewTime: string): Promise<CommandResult> {
  return l.kubectl(['apply', '--server-side', '--field-manager=kubelet', '-f', '-'], {
    ...shoot(),
    input: leaseList(names, renewTime),
    timeoutMs: limit(5_000),
  });
}

async function renewLeases(): Promise<void> {
  while (renewing) {
    // fails while shoot-1 is stopped: the next round renews
    if (alive.size > 0) await applyLeases([...alive], microTime(Date.now()));
    await sleep(RENEW_EVERY_MS);
  }
}

async function deployments(): Promise<Record<string, Deployment>> {
  const list = (await l.getJson(['deployments', '-n', NS])) as { items: Deployment[] };
  return Object.fromEntries(list.items.map((d) => [d.metadata.name, d]));
}

async function events(reason: string): Promise<KubeEvent[]> {
  const list = (await l.getJson(['events', '-n', NS])) as { items: KubeEvent[] };
  return list.items.filter((e) => e.reason === reason);
}

async function podExists(name: string): Promise<boolean> {
  const r = await l.kubectl(['get', 'pod', name, '-n', WEED_NS, '-o', 'name']);
  if (r.code === 0) return true;
  if (/NotFound|not found/.test(r.stderr)) return false;
  throw new Error(`${r.command}\n${r.stderr}`);
}

function gone(name: string): Promise<true> {
  return until(`pod ${name} deleted`, async () => ((await podExists(name)) ? undefined : true), 30_000);
}

/** Sets the pod's status: its container crash-looping, or running. */
async function podStatus(name: string, crashLooping: boolean): Promise<void> {
  const state = crashLooping
    ? { waiting: { reason: 'CrashLoopBackOff', message: 'back-off restarting failed container' } }
    : { running: { startedAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') } };
  const status = {
    phase: 'Running',
    containerStatuses: [
      { name: 'c', image: 'registry.example/c:1', imageID: '', ready: !crashLooping, restartCount: 3, state },
    ],
  };
  await l.kubectlOk([
    'patch',
    'pod',
    name,
    '-n',
    WEED_NS,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status }),
  ]);
}

/** Marks the service's EndpointSlice ready (its one endpoint). */
async function sliceReady(service: string): Promise<void> {
  await l.kubectlOk([
    'patch',
    'endpointslice',
    `${service}-e2e`,
    '-n',
    WEED_NS,
    '--type=merge',
    '-p',
    JSON.stringify({ endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }] }),
  ]);
}

/** An annotation change of the service's EndpointSlice (an update event, readiness unchanged). */
async function touchSlice(service: string, n: number): Promise<void> {
  await l.kubectlOk([
    'annotate',
    '--overwrite',
    'endpointslice',
    `${service}-e2e`,
    '-n',
    WEED_NS,
    `e2e/poke=${n}`,
  ]);
}

/** What the weeder was delivered so far (the control API's functions table). */
async function weederDelivered(): Promise<number> {
  const c = await readJson<{ url: string; token: string }>(join(l.stateDir, 'landscape.json'));
  const res = await fetch(`${c.url}/functions`, { headers: { Authorization: `Bearer ${c.token}` } });
  const rows = (await res.json()) as { function: string; delivered: number }[];
  return rows.find((r) => r.function === 'weeder')?.delivered ?? 0;
}

const list = (items: unknown[]): string => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

function deployment(name: string): unknown {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS, labels },
    spec: {
      replicas: FORMER[name],
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'c', image: 'registry.example/c:1' }] },
      },
    },
  };
}

const slice = (service: string): unknown => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: `${service}-e2e`, namespace: WEED_NS, labels: { 'kubernetes.io/service-name': service } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: false } }],
});

function seedObjects(): string {
  const namespace = (name: string): unknown => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'gardener.cloud/role': 'shoot' } },
  });
  const kubeconfig = readFileSync(l.kubeconfig('shoot-1'));
  return list([
    namespace(NS),
    namespace(WEED_NS),
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'dwd-api-server-probe-secret', namespace: NS },
      data: { kubeconfig: kubeconfig.toString('base64') },
    },
    ...[KCM, MCM, CA].map(deployment),
    ...NODES.map((node) => ({
      apiVersion: 'machine.sapcloud.io/v1alpha1',
      kind: 'Machine',
      metadata: { name: `machine-${node}`, namespace: NS, labels: { node } },
      spec: {},
    })),
    // not ready: the weeder remembers it, so the change to ready below is a recovery
    slice('kube-apiserver'),
    slice('etcd-main-client'),
  ]);
}

const shootNodes = (): string =>
  list(
    NODES.map((name) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'worker.gardener.cloud/pool': 'pool' } },
    })),
  );

const cluster = (): string =>
  JSON.stringify({
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'Cluster',
    metadata: { name: NS },
    spec: {
      cloudProfile: { raw: {} },
      seed: { raw: {} },
      shoot: {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: 'watchdog', namespace: 'garden-e2e' },
        spec: {
          region: 'local',
          hibernation: { enabled: false },
          provider: { type: 'local', workers: [{ name: 'pool', machineControllerManagerSettings: {} }] },
        },
        status: { lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100 } },
      },
    },
  });

function weedPod(name: string, labels: Record<string, string>): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: WEED_NS, labels },
    spec: { containers: [{ name: 'c', image: 'registry.example/c:1' }] },
  };
}

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'watchdog-config-'));
  cpSync(join(REPO_ROOT, 'config'), configDir, { recursive: true });
  writeFileSync(join(configDir, 'probe-tick.yaml'), PROBER_CONFIG);
  writeFileSync(join(configDir, 'weeder.yaml'), weederConfig());
  l = await startLandscape(
    [
      '--config-dir',
      configDir,
      '--knative-dir',
      'knative/runtime',
      '--knative-dir',
      'knative/watchdog',
      '--status-interval',
      '0',
      '--no-function-logs',
    ],
    { functions: true },
  );
  await l.create('seed.json', seedObjects());
  await l.create('nodes.json', shootNodes(), shoot());
  // node-a and node-b expired an hour ago; node-c is renewed from now on
  ok(await applyLeases(['node-a', 'node-b'], microTime(Date.now() - 3_600_000)));
  ok(await applyLeases(['node-c'], microTime(Date.now())));
  renewer = renewLeases();
}, startTimeout());

afterAll(async () => {
  renewing = false;
  await renewer;
  const stopped = await l?.stop();
  rmSync(configDir, { recursive: true, force: true });
  if (stopped?.code === 0) rmSync(l.stateDir, { recursive: true, force: true });
  expect(stopped?.code).toBe(0);
}, stopTimeout());

it(
  'the shoot API server stopped: the probe fails with ERR_PROBE_API_SERVER and nothing is scaled, though 2 of 3 leases are expired',
  async () => {
    await l.cli(['stop-cluster', 'shoot-1']).then((r) => expect(r.stdout).toContain('stopped'));
    try {
      await l.create('cluster.json', cluster());
      const failures = (): LogLine[] =>
        logLines('probe-tick').filter(
          (x) => x.namespace === NS && x.msg.startsWith('Code: ERR_PROBE_API_SERVER'),
        );
      // three failed probes in a row (500ms apart): it keeps failing, and keeps not scaling
      await until('three failed API-server probes', () => (failures().length >= 3 ? true : undefined));
      expect(failures()[0].msg).toMatch(
        /^Code: ERR_PROBE_API_SERVER, Message: Failed to probe API server, Cause: /,
      );
      expect(logLines('probe-tick').some((x) => x.namespace === NS && x.msg.startsWith('Lease probe'))).toBe(
        false,
      );
      expect(scaled()).toEqual([]);
      const d = await deployments();
      for (const name of [KCM, MCM, CA]) {
        expect(d[name].spec.replicas).toBe(FORMER[name]);
        expect(d[name].metadata.annotations ?? {}).not.toHaveProperty(REPLICAS);
      }
    } finally {
      const r = await l.cli(['start-cluster', 'shoot-1']);
      expect(r.stdout).toContain('running');
    }
  },
  limit(90_000),
);

it(
  '2 of 3 leases expired: MCM and CA (level 0), then KCM (level 1), scaled to 0 with the annotations and Events',
  async () => {
    const d = await until('all three scaled to 0', async () => {
      const now = await deployments();
      return [KCM, MCM, CA].every((n) => now[n].spec.replicas === 0) ? now : undefined;
    });
    for (const name of [KCM, MCM, CA]) {
      expect(d[name].metadata.annotations).toMatchObject({
        [REPLICAS]: String(FORMER[name]),
        [MELTDOWN]: '',
      });
    }
    // the function's log file gets its lines a moment after the writes they report (local/activator/logs.ts)
    const failed = await until('a "Lease probe failed" line', () =>
      logLines('probe-tick').find((x) => x.namespace === NS && x.msg.startsWith('Lease probe failed')),
    );
    expect(failed).toMatchObject({ expirationThreshold: 0.6, candidateLeases: 3 });
    expect(failed.expiredLeasesFraction).toBeGreaterThanOrEqual(2 / 3);

    const down = await until('three scaled-down lines', () => {
      const lines = scaled().filter((x) => x.replicas === 0);
      return lines.length >= 3 ? lines : undefined;
    });
    expect(down).toHaveLength(3);
    expect(
      down
        .map((x) => x.resource)
        .slice(0, 2)
        .sort(),
    ).toEqual([CA, MCM]);
    expect(down.map((x) => x.resource)[2]).toBe(KCM);
    const at = (name: string): number => Date.parse(down.find((x) => x.resource === name)!.ts);
    expect(at(KCM)).toBeGreaterThanOrEqual(Math.max(at(MCM), at(CA)));

    const scaledDown = await until('three ScaledDown Events', async () => {
      const e = await events('ScaledDown');
      return e.length >= 3 ? e : undefined;
    });
    expect(scaledDown.map((e) => e.involvedObject.name).sort()).toEqual([CA, KCM, MCM]);
    expect(scaledDown.find((e) => e.involvedObject.name === KCM)!.message).toContain(
      `scaled deployment ${KCM} down from 2 to 0 replicas`,
    );
  },
  limit(90_000),
);

it(
  'leases renewed: KCM back to 2, then MCM after its initialDelay, then CA; annotations removed',
  async () => {
    for (const node of NODES) alive.add(node);
    const d = await until('all three scaled back up', async () => {
      const now = await deployments();
      return [KCM, MCM, CA].every((n) => now[n].spec.replicas === FORMER[n]) ? now : undefined;
    });
    for (const name of [KCM, MCM, CA]) {
      const annotations = d[name].metadata.annotations ?? {};
      expect(annotations).not.toHaveProperty(REPLICAS);
      expect(annotations).not.toHaveProperty(MELTDOWN);
    }
    const up = await until('three scaled-up lines', () => {
      const lines = scaled().filter((x) => (x.replicas ?? 0) > 0);
      return lines.length >= 3 ? lines : undefined;
    });
    expect(up.map((x) => `${x.resource}=${x.replicas}`)).toEqual([`${KCM}=2`, `${MCM}=1`, `${CA}=1`]);
    const [kcm, mcm, ca] = up.map((x) => Date.parse(x.ts));
    expect(mcm - kcm).toBeGreaterThanOrEqual(MCM_SCALE_UP_DELAY_MS);
    expect(ca).toBeGreaterThanOrEqual(mcm);
    await until('a "Lease probe succeeded" line', () =>
      logLines('probe-tick').find((x) => x.namespace === NS && x.msg.startsWith('Lease probe succeeded')),
    );
    const scaledUp = await until('three ScaledUp Events', async () => {
      const e = await events('ScaledUp');
      return e.length >= 3 ? e : undefined;
    });
    expect(scaledUp.map((e) => e.involvedObject.name).sort()).toEqual([CA, KCM, MCM]);
  },
  limit(90_000),
);

it(
  'weeder: a recovered kube-apiserver deletes its crash-looping dependants within watchDuration, not others, not later',
  async () => {
    // The two EndpointSlices were created with their namespace: as Knative's adapter (its Deployment
    // rolled for a new selected namespace; a re-list sends nothing), the source may have sent no
    // add for them. So both are touched (still not ready) until the weeder has been delivered their
    // events: then it remembers both as not ready and the change to ready below is a recovery.
    let poke = 0;
    await until('the weeder saw both EndpointSlices', async () => {
      if ((await weederDelivered()) >= 2) return true;
      poke += 1;
      for (const service of ['kube-apiserver', 'etcd-main-client']) await touchSlice(service, poke);
      return undefined;
    });
    const kcm = { 'gardener.cloud/role': 'controlplane', role: 'controller-manager' };
    await l.create(
      'pods.json',
      list([
        weedPod('kcm-crash', kcm),
        weedPod('kcm-running', kcm),
        weedPod('kcm-inside', kcm),
        weedPod('kcm-late', kcm),
        // etcd-main-client's dependant: kube-apiserver's selector excludes role=apiserver
        weedPod('api-crash', { 'gardener.cloud/role': 'controlplane', role: 'apiserver' }),
        weedPod('other-crash', { app: 'other' }),
      ]),
    );
    for (const name of ['kcm-crash', 'api-crash', 'other-crash']) await podStatus(name, true);
    for (const name of ['kcm-running', 'kcm-inside', 'kcm-late']) await podStatus(name, false);

    await sliceReady('kube-apiserver');
    await gone('kcm-crash');
    const recovered = await until('a "service recovered" line of kube-apiserver', () =>
      logLines('weeder').find(
        (x) =>
          x.namespace === WEED_NS && x.service === 'kube-apiserver' && x.msg.startsWith('service recovered'),
      ),
    );
    const windowEnd = Date.parse(recovered.ts) + watchDurationMs();
    // starts crash-looping inside the window: deleted on its Pod event
    await podStatus('kcm-inside', true);
    await gone('kcm-inside');
    for (const name of ['kcm-running', 'api-crash', 'other-crash', 'kcm-late'])
      expect(await podExists(name)).toBe(true);

    await until('the window closed', () => (Date.now() > windowEnd + 500 ? true : undefined), 30_000);
    await podStatus('kcm-late', true);
    // etcd-main-client recovers after kcm-late's Pod event: once its dependant is gone, the weeder
    // has had kcm-late's event too
    await sliceReady('etcd-main-client');
    await gone('api-crash');
    for (const name of ['kcm-late', 'kcm-running', 'other-crash']) expect(await podExists(name)).toBe(true);
    const deleted = await until('three "deleted pod" lines', () => {
      const lines = logLines('weeder')
        .filter((x) => x.msg === 'deleted pod in CrashLoopBackOff')
        .map((x) => `${x.pod}/${x.service}`);
      return lines.length >= 3 ? lines : undefined;
    });
    expect(deleted.sort()).toEqual([
      'api-crash/etcd-main-client',
      'kcm-crash/kube-apiserver',
      'kcm-inside/kube-apiserver',
    ]);
  },
  limit(90_000),
);
