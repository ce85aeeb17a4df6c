/**
 * Seed management end to end under `npm start` (the runtime and seedmanagement families of
 * knative/, and the opt-in seed-status of knative/optional/), driven with kubectl; the fixture controller plays gardenlet (Shoots bound to a seed
 * are reconciled after 300 ms, Seeds become ready after 300 ms).
 *
 * - Three plain Seeds get status.capacity / status.allocatable from seed-status's config
 *   (15, 17 and 20 − 2 reserved = 18 shoots: 50 in all) and become ready.
 * - 50 Shoots applied at once (one multi-document `kubectl apply`) are all bound by schedule-shoot,
 *   served by several replicas, and no seed gets more than its allocatable: the 50 slots are filled
 *   exactly. schedule-shoot has had no event before, so its first events queue in the activator
 *   during the cold start and the activator starts more replicas (target 10 in flight each,
 *   max-scale 3); binding decisions then race across replicas on the shared Redis counts.
 * - The 51st shoot stays unscheduled with upstream's message in status.lastOperation and a
 *   SchedulingFailed Event per retry; once a shoot is deleted a retry binds it to the freed seed.
 * - A ManagedSeedSet (replicas 1; its seeds have 5 shoots of capacity from the gardenlet config;
 *   its replicas' Shoots are scheduled on a "soil" seed of their own provider) and a SeedAutoscaler
 *   on it (50 % utilization, 1-3 replicas, a 3 s scale-down window): 4 shoots on the one seed
 *   (80 %) grow the set to 2 through the scale subresource; the new replica's Shoot, ManagedSeed
 *   and Seed appear, and the next shoot goes to the new seed. With the first replica protected
 *   (`seedmanagement.gardener.cloud/protect-from-deletion`) and shoots only on the second, the
 *   autoscaler asks for 1 replica and the set finds nothing deletable; once the second seed is
 *   empty it goes (ManagedSeed, Seed, Shoot), the protected one stays.
 *
 * Short settings: a config dir of the test (retries of 1 s, waits of 1 s, the autoscaler's pass
 * every 2 s instead of every minute).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { readJson, REPO_ROOT, scaled, startLandscape, type Landscape } from './support.js';

const DEV = 'garden-dev';
const GARDEN = 'garden';
const SET = 'auto';
/** What seed-status's config gives the plain seeds: [capacity, reserved]. */
const PLAIN: Record<string, [number, number]> = { 'seed-a': [15, 0], 'seed-b': [17, 0], 'seed-c': [20, 2] };
const ALLOCATABLE: Record<string, number> = Object.fromEntries(
  Object.entries(PLAIN).map(([name, [capacity, reserved]]) => [name, capacity - reserved]),
);
const SHOOTS = 50;
const SET_SEED_CAPACITY = 5;
const PROTECT = 'seedmanagement.gardener.cloud/protect-from-deletion';
const NO_CAPACITY = 'seed does not have available capacity for shoots';
const FULL_MESSAGE = `Failed to schedule Shoot: 0/3 seed cluster candidate(s) are eligible for scheduling: {${Object.keys(
  PLAIN,
)
  .map((s) => `${s} => ${NO_CAPACITY}`)
  .join(', ')}}`;

const SCHEDULE_SHOOT_CONFIG = `schedulerName: default-scheduler
candidateDeterminationStrategy: SameRegion
retrySyncPeriod: 1s
maxRetryPeriod: 4s
reserveAttempts: 10
reservationTimeout: 5s
rebuildTimeout: 10s
# the test places a shoot right after a new seed turned ready: no reuse of a Seed list (default 2s)
seedCacheTtl: 0s
`;
const SEED_STATUS_CONFIG = `managedSeedNamespace: ${GARDEN}
default:
  capacity: {shoots: 250}
seeds:
${Object.entries(PLAIN)
  .map(
    ([name, [capacity, reserved]]) =>
      `  ${name}: {capacity: {shoots: ${capacity}}${reserved ? `, reserved: {shoots: ${reserved}}` : ''}}`,
  )
  .join('\n')}
concurrency: 4
logLevel: info
`;
const MANAGEDSEED_CONFIG = `namespace: ${GARDEN}
waitSyncPeriod: 1s
syncPeriod: 1h
errorBackoff: {min: 1s, max: 5s}
concurrency: 4
logLevel: info
`;
const MANAGEDSEEDSET_CONFIG = `syncPeriod: 30m
maxShootRetries: 3
errorRequeueDelay: 2s
lockRetryDelay: 500ms
logLevel: info
`;
const SEED_AUTOSCALER_CONFIG = `tolerance: 0.1
downscaleStabilization: 5s
concurrency: 4
syncPeriod: 2s
logLevel: info
`;
const DELETION_PROTECTION_CONFIG = `seeds: true
shoots: true
recheckInterval: 1s
concurrency: 4
logLevel: info
`;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface Meta {
  name: string;
  namespace?: string;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  ownerReferences?: { kind: string; name: string; controller?: boolean }[];
}

interface Seed {
  metadata: Meta;
  status?: {
    conditions?: Condition[];
    capacity?: { shoots?: string | number };
    allocatable?: { shoots?: string | number };
  };
}

interface Shoot {
  metadata: Meta;
  spec: { seedName?: string };
  status?: { lastOperation?: { type?: string; state?: string; description?: string } };
}

interface KubeEvent {
  type: string;
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string };
}

interface LogLine {
  msg: string;
  pod?: string;
  shoot?: string;
  seed?: string;
}

interface SetObject {
  metadata: { managedFields?: { manager: string; subresource?: string }[] };
  spec: { replicas?: number };
  status?: { replicas?: number; readyReplicas?: number; nextReplicaNumber?: number };
}

interface Autoscaler {
  status?: {
    currentReplicas?: number;
    desiredReplicas?: number;
    currentMetrics?: { resource: { name: string; current: { averageUtilization?: number } } }[];
  };
}

let l: Landscape;
let configDir: string;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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

function tail(fn: string, n = 15): string {
  return logLines(fn)
    .slice(-n)
    .map((x) => JSON.stringify(x))
    .join('\n');
}

const FUNCTIONS = ['schedule-shoot', 'seed-status', 'managedseedset', 'managedseed', 'seed-autoscaler'];

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + scaled(timeoutMs);
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) {
      const logs = FUNCTIONS.map((fn) => `--- ${fn}:\n${tail(fn)}`).join('\n');
      throw new Error(
        `timed out after ${scaled(timeoutMs)} ms waiting for ${what}\n${logs}\n--- landscape:\n${l.output().slice(-2000)}`,
      );
    }
    await sleep(300);
  }
}

/** One multi-document YAML stream (kubectl reads a stream that starts with `{` as JSON only). */
const yamlDocs = (docs: unknown[]): string => docs.map((d) => stringify(d)).join('---\n');

async function apply(docs: unknown[]): Promise<void> {
  await l.kubectlOk(['apply', '-f', '-'], { input: yamlDocs(docs), timeoutMs: scaled(90_000) });
}

async function seeds(): Promise<Map<string, Seed>> {
  const list = (await l.getJson(['seeds'])) as { items: Seed[] };
  return new Map(list.items.map((s) => [s.metadata.name, s]));
}

async function shoots(namespace: string): Promise<Shoot[]> {
  return ((await l.getJson(['shoots', '-n', namespace])) as { items: Shoot[] }).items;
}

async function getOptional<T>(args: string[]): Promise<T | undefined> {
  const r = await l.kubectl(['get', ...args, '-o', 'json']);
  if (r.code === 0) return JSON.parse(r.stdout) as T;
  if (/NotFound|not found/.test(r.stderr)) return undefined;
  throw new Error(`${r.command}\n${r.stderr}`);
}

async function events(namespace: string): Promise<KubeEvent[]> {
  return ((await l.getJson(['events', '-n', namespace])) as { items: KubeEvent[] }).items;
}

const ready = (s: Seed | undefined): boolean =>
  s?.status?.conditions?.some((c) => c.type === 'GardenletReady' && c.status === 'True') ?? false;
const allocatable = (s: Seed | undefined): number | undefined =>
  s?.status?.allocatable?.shoots === undefined ? undefined : Number(s.status.allocatable.shoots);

function perSeed(list: readonly Shoot[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of list) if (s.spec.seedName) out[s.spec.seedName] = (out[s.spec.seedName] ?? 0) + 1;
  return out;
}

const cloudProfile = (name: string): unknown => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name },
  spec: { type: name },
});

const seedSpec = (provider: string): Record<string, unknown> => ({
  provider: { type: provider, region: provider },
  settings: { scheduling: { visible: true } },
  networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
});

const seed = (name: string, provider: string): unknown => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Seed',
  metadata: { name },
  spec: seedSpec(provider),
});

const shoot = (name: string, provider: string, namespace = DEV): unknown => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name, namespace },
  spec: {
    cloudProfileName: provider,
    region: provider,
    provider: { type: provider, workers: [{ name: 'pool', machine: { type: 'm' } }] },
  },
});

const namespace = (name: string): unknown => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

/** The set: its seeds of provider "auto" (5 shoots each), its replicas' Shoots of provider "soil". */
function managedSeedSet(): unknown {
  const labels = { app: 'seeds', set: SET };
  return {
    apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
    kind: 'ManagedSeedSet',
    metadata: { name: SET, namespace: GARDEN },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          gardenlet: {
            config: {
              apiVersion: 'gardenlet.config.gardener.cloud/v1alpha1',
              kind: 'GardenletConfiguration',
              resources: { capacity: { shoots: SET_SEED_CAPACITY } },
              seedConfig: {
                metadata: { labels },
                spec: {
                  ...seedSpec('auto'),
                  ingress: { domain: 'ingress.replica-name.seeds.local', controller: { kind: 'nginx' } },
                },
              },
            },
          },
        },
      },
      shootTemplate: {
        metadata: { labels },
        spec: {
          cloudProfileName: 'soil',
          region: 'soil',
          provider: { type: 'soil', workers: [{ name: 'pool', machine: { type: 'm' } }] },
          dns: { domain: 'replica-name.seeds.local' },
        },
      },
    },
  };
}

const seedAutoscaler = (): unknown => ({
  apiVersion: 'autoscaling.landscape.dev/v1alpha1',
  kind: 'SeedAutoscaler',
  metadata: { name: SET, namespace: GARDEN },
  spec: {
    scaleTargetRef: {
      apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
      kind: 'ManagedSeedSet',
      name: SET,
    },
    minReplicas: 1,
    maxReplicas: 3,
    metrics: [
      {
        type: 'Resource',
        resource: { name: 'shoots', target: { type: 'Utilization', averageUtilization: 50 } },
      },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 3 } },
  },
});

async function setScale(): Promise<number> {
  const r = await l.kubectlOk([
    'get',
    '--raw',
    `/apis/seedmanagement.gardener.cloud/v1alpha1/namespaces/${GARDEN}/managedseedsets/${SET}/scale`,
  ]);
  return (JSON.parse(r.stdout) as { spec: { replicas: number } }).spec.replicas;
}

/** The set's replica `<set>-<n>` registered: Shoot, ManagedSeed and a ready Seed with allocatable. */
async function replicaRegistered(n: number): Promise<Seed> {
  const name = `${SET}-${n}`;
  return until(
    `replica ${name} registered (Shoot, ManagedSeed, ready Seed with allocatable)`,
    async () => {
      const sh = await getOptional<Shoot>(['shoot', name, '-n', GARDEN]);
      const ms = await getOptional<{ metadata: Meta }>(['managedseed', name, '-n', GARDEN]);
      const s = (await seeds()).get(name);
      return sh && ms && ready(s) && allocatable(s) === SET_SEED_CAPACITY ? s : undefined;
    },
    scaled(90_000),
  );
}

async function shootsOnSetSeeds(): Promise<Record<string, number>> {
  return perSeed(await shoots(DEV));
}

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'seedmanagement-config-'));
  cpSync(join(REPO_ROOT, 'config'), configDir, { recursive: true });
  writeFileSync(join(configDir, 'schedule-shoot.yaml'), SCHEDULE_SHOOT_CONFIG);
  writeFileSync(join(configDir, 'seed-status.yaml'), SEED_STATUS_CONFIG);
  writeFileSync(join(configDir, 'managedseed.yaml'), MANAGEDSEED_CONFIG);
  writeFileSync(join(configDir, 'managedseedset.yaml'), MANAGEDSEEDSET_CONFIG);
  writeFileSync(join(configDir, 'seed-autoscaler.yaml'), SEED_AUTOSCALER_CONFIG);
  writeFileSync(join(configDir, 'deletion-protection.yaml'), DELETION_PROTECTION_CONFIG);
  l = await startLandscape(
    [
      '--config-dir',
      configDir,
      '--knative-dir',
      'knative/runtime',
      '--knative-dir',
      'knative/seedmanagement',
      // seed-status is opt-in (it writes what gardenlet writes on a real garden): the plain seeds
      // here have no gardenlet config, their capacity comes from seed-status's config
      '--knative-dir',
      'knative/optional',
      // no resync ping while the test runs (midnight only): schedule-shoot's first events must
      // find it at zero, so that they queue during its cold start and more replicas start
      '--resync-interval',
      '24h',
      '--fixture-shoot-delay',
      '300ms',
      '--fixture-seed-delay',
      '300ms',
      '--status-interval',
      '0',
      '--no-function-logs',
    ],
    { functions: true },
  );
}, scaled(120_000));

afterAll(async () => {
  const stopped = await l?.stop();
  rmSync(configDir, { recursive: true, force: true });
  if (stopped?.code === 0) rmSync(l.stateDir, { recursive: true, force: true });
  expect(stopped?.code).toBe(0);
}, scaled(30_000));

it(
  'plain seeds get capacity and allocatable from seed-status and become ready',
  async () => {
    await apply([
      namespace(DEV),
      namespace(GARDEN),
      ...['local', 'soil', 'auto'].map(cloudProfile),
      ...Object.keys(PLAIN).map((name) => seed(name, 'local')),
      // where the set's replica Shoots go (a provider of its own: never a candidate of the others)
      seed('soil', 'soil'),
    ]);
    const all = await until('the plain seeds ready with allocatable', async () => {
      const now = await seeds();
      const names = [...Object.keys(PLAIN), 'soil'];
      return names.every((n) => ready(now.get(n)) && allocatable(now.get(n)) !== undefined) ? now : undefined;
    });
    for (const [name, [capacity]] of Object.entries(PLAIN)) {
      expect(all.get(name)?.status).toMatchObject({
        capacity: { shoots: String(capacity) },
        allocatable: { shoots: String(ALLOCATABLE[name]) },
      });
    }
    expect(allocatable(all.get('soil'))).toBe(250);
  },
  scaled(90_000),
);

it(
  '50 shoots applied at once are scheduled by several replicas without exceeding any allocatable',
  async () => {
    const names = Array.from({ length: SHOOTS }, (_, i) => `shoot-${String(i).padStart(2, '0')}`);
    const started = Date.now();
    await apply(names.map((n) => shoot(n, 'local')));
    const applied = Date.now() - started;
    const bound = await until(
      `all ${SHOOTS} shoots bound`,
      async () => {
        const list = await shoots(DEV);
        return list.length === SHOOTS && list.every((s) => s.spec.seedName) ? list : undefined;
      },
      scaled(120_000),
    );
    const elapsed = Date.now() - started;
    const counts = perSeed(bound);
    // 50 slots for 50 shoots: every seed exactly full, none over
    for (const [name, n] of Object.entries(ALLOCATABLE)) expect(counts[name] ?? 0).toBeLessThanOrEqual(n);
    expect(counts).toEqual(ALLOCATABLE);

    // the function's log file gets its lines a moment after the writes they report (local/activator/logs.ts)
    const scheduled = await until('a "successfully scheduled" line per shoot', () => {
      const lines = logLines('schedule-shoot').filter(
        (x) => x.msg === 'Shoot successfully scheduled to seed',
      );
      return Promise.resolve(new Set(lines.map((x) => x.shoot)).size >= names.length ? lines : undefined);
    });
    expect(new Set(scheduled.map((x) => x.shoot))).toEqual(new Set(names.map((n) => `${DEV}/${n}`)));
    const pods = new Set(scheduled.map((x) => x.pod));
    expect(pods.size).toBeGreaterThanOrEqual(2);

    const c = await readJson<{ url: string; token: string }>(join(l.stateDir, 'landscape.json'));
    const res = await fetch(`${c.url}/functions`, { headers: { Authorization: `Bearer ${c.token}` } });
    const rows = (await res.json()) as { function: string; coldStarts: number }[];
    expect(rows.find((r) => r.function === 'schedule-shoot')?.coldStarts).toBeGreaterThanOrEqual(2);

    const successful = (await events(DEV)).filter(
      (e) => e.reason === 'SchedulingSuccessful' && e.involvedObject.kind === 'Shoot',
    );
    expect(new Set(successful.map((e) => e.involvedObject.name))).toEqual(new Set(names));
    for (const e of successful) expect(e.message).toMatch(/^Scheduled to seed 'seed-[abc]'$/);
    const coldStarts = l
      .output()
      .split('\n')
      .filter((x) => x.includes('"replica ready"') && x.includes('"function":"schedule-shoot"'))
      .map((x) => /"ms":(\d+)/.exec(x)?.[1]);
    console.log(
      `${SHOOTS} shoots applied in ${applied} ms, all bound after ${elapsed} ms by ${pods.size} schedule-shoot replicas (cold starts ${coldStarts.join(', ')} ms): ${JSON.stringify(counts)}`,
    );
  },
  scaled(180_000),
);

it(
  'a full landscape leaves a shoot unscheduled with upstream message; a freed slot is taken on retry',
  async () => {
    await apply([shoot('overflow', 'local')]);
    const pendingShoot = await until('the overflow shoot marked as not schedulable', async () => {
      const s = await getOptional<Shoot>(['shoot', 'overflow', '-n', DEV]);
      return s?.status?.lastOperation?.description ? s : undefined;
    });
    expect(pendingShoot.spec.seedName).toBeUndefined();
    expect(pendingShoot.status?.lastOperation).toMatchObject({
      type: 'Create',
      state: 'Pending',
      description: FULL_MESSAGE,
    });
    const failed = await until('a SchedulingFailed Event', async () => {
      const e = (await events(DEV)).filter(
        (x) => x.reason === 'SchedulingFailed' && x.involvedObject.name === 'overflow',
      );
      return e.length > 0 ? e : undefined;
    });
    expect(failed[0]).toMatchObject({ type: 'Warning', message: FULL_MESSAGE });
    // it stays unscheduled across retries (1 s, 2 s, ... backoff), each a SchedulingFailed Event
    await until('a retry', async () => {
      const e = (await events(DEV)).filter(
        (x) => x.reason === 'SchedulingFailed' && x.involvedObject.name === 'overflow',
      );
      return e.length >= 2 ? e : undefined;
    });
    expect((await getOptional<Shoot>(['shoot', 'overflow', '-n', DEV]))?.spec.seedName).toBeUndefined();

    const freed = (await getOptional<Shoot>(['shoot', 'shoot-00', '-n', DEV]))?.spec.seedName;
    await l.kubectlOk(['delete', 'shoot', 'shoot-00', '-n', DEV, '--timeout=60s'], {
      timeoutMs: scaled(70_000),
    });
    const bound = await until(
      'the overflow shoot bound on a retry',
      async () => (await getOptional<Shoot>(['shoot', 'overflow', '-n', DEV]))?.spec.seedName,
    );
    expect(bound).toBe(freed);
  },
  scaled(120_000),
);

it(
  'a SeedAutoscaler grows its ManagedSeedSet past the target utilization; the new seed takes shoots',
  async () => {
    await apply([managedSeedSet()]);
    await replicaRegistered(0);
    // the replica's Shoot went to the soil seed (the only one of its provider)
    expect((await getOptional<Shoot>(['shoot', `${SET}-0`, '-n', GARDEN]))?.spec.seedName).toBe('soil');
    await apply([seedAutoscaler()]);
    await until('the autoscaler looked at the set', async () => {
      const a = await getOptional<Autoscaler>(['seedautoscaler', SET, '-n', GARDEN]);
      return a?.status?.currentReplicas === 1 ? a : undefined;
    });
    expect(await setScale()).toBe(1);

    // 4 of 5 shoots on the only seed: 80 % > 50 %
    await apply(['w-0', 'w-1', 'w-2', 'w-3'].map((n) => shoot(n, 'auto')));
    await until('4 shoots on auto-0', async () =>
      (await shootsOnSetSeeds())[`${SET}-0`] === 4 ? true : undefined,
    );
    await until('the set scaled to 2', async () => ((await setScale()) === 2 ? true : undefined));
    const set = (await l.getJson([
      'managedseedset',
      SET,
      '-n',
      GARDEN,
      '--show-managed-fields',
    ])) as SetObject;
    expect(set.spec.replicas).toBe(2);
    // written through the scale subresource
    expect(set.metadata.managedFields?.find((m) => m.subresource === 'scale')).toBeDefined();
    const rescaled = (await events(GARDEN)).filter(
      (e) => e.involvedObject.kind === 'SeedAutoscaler' && e.reason === 'SuccessfulRescale',
    );
    expect(rescaled.map((e) => e.message)).toContain(
      'New size: 2; reason: shoots resource utilization (percentage of allocatable) above target',
    );

    await replicaRegistered(1);
    const owners = (await l.getJson(['managedseed', `${SET}-1`, '-n', GARDEN])) as { metadata: Meta };
    expect(owners.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'ManagedSeedSet', name: SET, controller: true }),
    ]);
    await until('the set reports 2 ready replicas', async () => {
      const s = (await l.getJson(['managedseedset', SET, '-n', GARDEN])) as SetObject;
      return s.status?.readyReplicas === 2 ? s : undefined;
    });
    // the next shoot goes to the new seed (fewest shoots)
    await apply([shoot('w-4', 'auto')]);
    const placed = await until(
      'w-4 bound',
      async () => (await getOptional<Shoot>(['shoot', 'w-4', '-n', DEV]))?.spec.seedName,
    );
    expect(placed).toBe(`${SET}-1`);
    // 5 of 10: at the target, the set stays at 2
    await until('the autoscaler saw 50 %', async () => {
      const a = await getOptional<Autoscaler>(['seedautoscaler', SET, '-n', GARDEN]);
      return a?.status?.currentMetrics?.[0]?.resource.current.averageUtilization === 50 ? a : undefined;
    });
    expect(await setScale()).toBe(2);
  },
  scaled(180_000),
);

it(
  'the set shrinks deleting only empty, unprotected replicas',
  async () => {
    await l.kubectlOk(['annotate', 'managedseed', `${SET}-0`, '-n', GARDEN, `${PROTECT}=true`]);
    // auto-0 protected (and soon empty), auto-1 holds w-4: 10 % → 1 replica, but nothing deletable
    await l.kubectlOk(['delete', 'shoot', 'w-0', 'w-1', 'w-2', 'w-3', '-n', DEV, '--timeout=60s'], {
      timeoutMs: scaled(70_000),
    });
    await until('the set scaled to 1', async () => ((await setScale()) === 1 ? true : undefined));
    const rescaled = (await events(GARDEN)).filter(
      (e) => e.involvedObject.kind === 'SeedAutoscaler' && e.reason === 'SuccessfulRescale',
    );
    expect(rescaled.map((e) => e.message)).toContain('New size: 1; reason: All metrics below target');
    const refused = await until('"no deletable replicas found"', async () => {
      const e = (await events(GARDEN)).filter(
        (x) => x.involvedObject.kind === 'ManagedSeedSet' && x.message === 'no deletable replicas found',
      );
      return e.length > 0 ? e : undefined;
    });
    expect(refused[0]).toMatchObject({ type: 'Warning', reason: 'ReconcileError' });
    for (const n of [0, 1]) {
      expect(await getOptional(['managedseed', `${SET}-${n}`, '-n', GARDEN])).toBeDefined();
      expect((await seeds()).get(`${SET}-${n}`)?.metadata.deletionTimestamp).toBeUndefined();
    }

    // auto-1 empty: it goes, ManagedSeed, Seed and Shoot; the protected auto-0 stays
    await l.kubectlOk(['delete', 'shoot', 'w-4', '-n', DEV, '--timeout=60s'], { timeoutMs: scaled(70_000) });
    await until(
      `replica ${SET}-1 deleted`,
      async () => {
        const sh = await getOptional(['shoot', `${SET}-1`, '-n', GARDEN]);
        const ms = await getOptional(['managedseed', `${SET}-1`, '-n', GARDEN]);
        const s = (await seeds()).get(`${SET}-1`);
        return !sh && !ms && !s ? true : undefined;
      },
      scaled(90_000),
    );
    const set = await until('the set reports 1 replica', async () => {
      const s = (await l.getJson(['managedseedset', SET, '-n', GARDEN])) as SetObject;
      return s.status?.replicas === 1 ? s : undefined;
    });
    expect(set.spec.replicas).toBe(1);
    expect(ready((await seeds()).get(`${SET}-0`))).toBe(true);
    expect(await getOptional(['managedseed', `${SET}-0`, '-n', GARDEN])).toBeDefined();
    expect(await getOptional(['shoot', `${SET}-0`, '-n', GARDEN])).toBeDefined();
  },
  scaled(150_000),
);
