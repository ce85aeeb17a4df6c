/**
 * 150 mock DeployItems (`npm run bench -- deployers` takes more) through the mock deployer scaled up
 * to max-scale 3 (its default is 1, seed 000's; the test's own copy of knative/deployers raises it,
 * as an admin would) under `npm start`, while replica
 * Pods are deleted mid-reconcile (kubectl): every item ends Succeeded with jobIDFinished == jobID,
 * and no item was ever held by two replicas at once — the lock intervals (`lockedFrom`..`lockedTo`)
 * of the deployer's `step` log lines in <state>/logs/deployer-mock.log never overlap across pods.
 * Default config (pickup timeout 5 min) but for a short lock retry.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  REPO_ROOT,
  scaled,
  sleep,
  startLandscape,
  startTimeout,
  stopTimeout,
  until as poll,
  type Landscape,
} from './support.js';

interface Item {
  metadata: { name: string };
  status?: { phase?: string; jobID?: string; jobIDFinished?: string };
}

/** Enough for the replicas to be killed mid-reconcile twice; the bench measures throughput. */
const ITEMS = 150;

let l: Landscape;
let configDir: string;
let knativeDir: string;

/** knative/deployers with deployer-mock at max-scale 3: the lock matters only with replicas. */
function scaledUpDeployers(): string {
  const dir = mkdtempSync(join(tmpdir(), 'deployers-load-knative-'));
  cpSync(join(REPO_ROOT, 'knative', 'deployers'), dir, { recursive: true });
  const file = join(dir, 'deployer-mock.yaml');
  const manifests = readFileSync(file, 'utf8');
  // the function's config is the --config-dir file below (workers.instances 3 there too)
  const scaled3 = manifests.replace(
    'autoscaling.knative.dev/max-scale: "1"',
    'autoscaling.knative.dev/max-scale: "3"',
  );
  if (scaled3 === manifests) throw new Error(`${file}: no max-scale "1" to raise`);
  writeFileSync(file, scaled3);
  return dir;
}

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'deployers-load-config-'));
  knativeDir = scaledUpDeployers();
  cpSync(join(REPO_ROOT, 'config'), configDir, { recursive: true });
  writeFileSync(
    join(configDir, 'deployer-mock.yaml'),
    'lockRetryDelay: 200ms\nworkers: {concurrency: 25, instances: 3}\n',
  );
  l = await startLandscape(
    [
      '--knative-dir',
      'knative/runtime',
      '--knative-dir',
      knativeDir,
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
}, startTimeout());

afterAll(async () => {
  const stopped = await l?.stop();
  rmSync(configDir, { recursive: true, force: true });
  rmSync(knativeDir, { recursive: true, force: true });
  expect(stopped?.code).toBe(0);
}, stopTimeout());

/** Polls with the scaled limit (base `timeoutMs`) and the landscape's output tail on failure. */
function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  return poll(what, probe, { timeoutMs, intervalMs: 500, context: () => l.output().slice(-4000) });
}

interface Step {
  msg: string;
  pod?: string;
  deployItem?: string;
  lockedFrom?: string;
  lockedTo?: string;
}

/** Pairs of lock intervals of one item held by two different replicas at the same time. */
function overlaps(steps: Step[]): string[] {
  const byItem = new Map<string, Step[]>();
  for (const s of steps) byItem.set(s.deployItem!, [...(byItem.get(s.deployItem!) ?? []), s]);
  const out: string[] = [];
  for (const [name, list] of byItem) {
    const sorted = list.sort((a, b) => Date.parse(a.lockedFrom!) - Date.parse(b.lockedFrom!));
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1];
      const cur = sorted[i];
      if (prev.pod !== cur.pod && Date.parse(cur.lockedFrom!) < Date.parse(prev.lockedTo!)) {
        out.push(
          `${name}: ${prev.pod} ${prev.lockedFrom}..${prev.lockedTo} / ${cur.pod} ${cur.lockedFrom}..${cur.lockedTo}`,
        );
      }
    }
  }
  return out;
}

it(
  `takes ${ITEMS} mock items through three replicas with replica Pods deleted meanwhile: all Succeeded, no item held twice at once`,
  async () => {
    const docs: string[] = [];
    for (let i = 0; i < ITEMS; i++) {
      docs.push(`apiVersion: landscaper.gardener.cloud/v1alpha1
kind: DeployItem
metadata: {name: load-${i}, namespace: default, labels: {load: "yes"}}
spec:
  type: landscaper.gardener.cloud/mock
  config: {providerStatus: {i: "${i}"}}
`);
    }
    await l.create('load.yaml', docs.join('---\n'), { timeoutMs: scaled(120_000) });
    // kill replicas of the mock deployer twice while the items go through
    for (let round = 0; round < 2; round++) {
      await sleep(1500);
      await l.kubectl([
        'delete',
        'pods',
        '-n',
        'landscape-system',
        '-l',
        'serving.knative.dev/service=deployer-mock',
        '--wait=false',
      ]);
    }
    let last: Item[] = [];
    try {
      await until(
        `all ${ITEMS} items Succeeded`,
        async () => {
          last = ((await l.getJson(['deployitems', '-n', 'default', '-l', 'load=yes'])) as { items: Item[] })
            .items;
          const done = last.filter(
            (i) => i.status?.phase === 'Succeeded' && i.status.jobIDFinished === i.status.jobID,
          );
          return done.length === ITEMS ? done.length : undefined;
        },
        240_000,
      );
    } catch (err) {
      const stuck = last.filter(
        (i) => !(i.status?.phase === 'Succeeded' && i.status.jobIDFinished === i.status.jobID),
      );
      const dlqDir = join(l.stateDir, 'dlq');
      const dlq = existsSync(dlqDir)
        ? readdirSync(dlqDir)
            .map((f) => readFileSync(join(dlqDir, f), 'utf8'))
            .join('')
        : '(none)';
      throw new Error(
        `${(err as Error).message}\n${stuck.length} not finished, e.g. ${JSON.stringify(stuck.slice(0, 3).map((i) => ({ name: i.metadata.name, status: i.status })))}\ndead letters: ${dlq.slice(0, 3000)}`,
        { cause: err },
      );
    }
    const steps = readFileSync(join(l.stateDir, 'logs', 'deployer-mock.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"msg":"step"'))
      .map((line) => JSON.parse(line) as Step)
      .filter((s) => s.deployItem?.startsWith('default/load-') && s.lockedFrom);
    // A replica killed with its Pod takes the 'step' lines of its in-flight steps with it (the line is
    // written after the status write, so the item can be Succeeded without one). At most 2 rounds ×
    // 3 replicas × containerConcurrency 10 steps are in flight when the Pods go.
    expect(new Set(steps.map((s) => s.deployItem)).size).toBeGreaterThanOrEqual(ITEMS - 2 * 3 * 10);
    expect(new Set(steps.map((s) => s.pod)).size).toBeGreaterThan(1);
    expect(overlaps(steps)).toEqual([]);
  },
  scaled(300_000),
);
