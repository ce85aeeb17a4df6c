/**
 * One drill run: a fresh embedded landscape (own state and data directories, own Redis, the
 * API server's audit log on), the mixed work started while one fault is on, the fault switched
 * off at the end of its window, then: wait until every workload settled (the recovery time is
 * counted from the switch-off), check the end state, count dead letters, count the effects made
 * (the operations) and the wrongly duplicated ones in the audit log, and scan logs, Redis and
 * Events for secrets. The families' resync PingSources run at `resyncIntervalMs`: after a lost
 * event nothing else brings the work to its end state, so the recovery is set against it.
 */
import { prng } from '../../shared/random/index.js';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditRecord } from '@landscape/kube-apiserver';
import {
  createKubeClient,
  kubeConfigFromFile,
  kubeConfigFromYaml,
  type KubeClient,
} from '../../shared/kube/index.js';
import { storesIn } from '../../triggers/broker/dlq.js';
import { startLandscape, type Landscape } from '../landscape.js';
import { startRedis, type TestRedis } from '../redis.js';
import { createdOnceInDrill, findDuplicates, weederWindowMs, type Duplicate } from './duplicates.js';
import { countEffects, totalEffects, type Effects } from './effects.js';
import { FAULTS, type FaultName } from './faults.js';
import { collectSecrets, scanForSecrets, type SecretFinding } from './secrets.js';
import type { DrillContext, DrillScale, Workload } from './types.js';
import { drillWeederConfig, workloads as makeWorkloads, DRILL_CONFIG } from './work/index.js';

export interface RunOptions {
  fault: FaultName;
  scale: DrillScale;
  /** How long the fault stays on (at least until the work is created and disturbed). */
  windowMs: number;
  /** How long to wait for the end state after the fault is off. */
  settleTimeoutMs: number;
  /** The interval of the families' resync PingSources (`--resync-interval` of `npm start`). */
  resyncIntervalMs: number;
  seed: number;
  repoRoot: string;
  /** Keep the state directory (logs, dead letters, data) for a look afterwards. */
  keep: boolean;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

export interface RunResult {
  fault: FaultName;
  scale: DrillScale;
  /** The effects the product made, counted from the audit log (effects.ts), summed. */
  operations: number;
  effects: Effects;
  /** The effects the work asked for (from the plan; `operations` should be at least this). */
  planned: number;
  lost: string[];
  duplicated: Duplicate[];
  /** From the fault's switch-off to the end state; undefined when it was not reached. */
  recoveryMs?: number;
  resyncIntervalMs: number;
  /** The weeder's window in this run (its config's watchDuration), as the pod-delete check used it. */
  weederWindowMs: number;
  injected: string;
  secrets: SecretFinding[];
  /** The state directory when kept. */
  stateDir?: string;
  elapsedMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The functions' configs: the defaults, with the drill's overrides (shorter intervals, windows). */
function configDir(repoRoot: string, into: string): string {
  const dir = join(into, 'config');
  cpSync(join(repoRoot, 'config'), dir, { recursive: true });
  for (const [file, text] of Object.entries(DRILL_CONFIG)) writeFileSync(join(dir, file), text);
  const weeder = join(dir, 'weeder.yaml');
  writeFileSync(weeder, drillWeederConfig(readFileSync(weeder, 'utf8')));
  return dir;
}

/** Namespaces whose pods only the weeder may delete (GC and the workload simulation write with no user). */
const weederNamespace = (ns: string): boolean => ns.startsWith('shoot--');

async function startDrillLandscape(o: RunOptions, dir: string, redis: TestRedis): Promise<Landscape> {
  return startLandscape({
    stateDir: join(dir, 'state'),
    clusters: ['shoot-1'],
    port: 0,
    host: '127.0.0.1',
    workloads: { delayMs: 200, createPods: true },
    dataDir: join(dir, 'data'),
    audit: true,
    runtime: {
      // every folder, also the opt-in knative/optional/: seed-status gives the drill's plain seeds
      // their sizes (seedStatusConfig); the fixtures (gardenlet) size only the managed seeds, alike
      knativeDirs: [join(o.repoRoot, 'knative')],
      functionsDirs: [join(o.repoRoot, 'functions')],
      configDir: join(dir, 'config'),
      redisUrl: redis.url,
      resyncIntervalMs: o.resyncIntervalMs,
      // the ticks (requeue, probe, timeouts) every few seconds, as the drill's recovery figures assume
      embeddedSchedules: true,
      overrides: {},
      echoLogs: false,
    },
    fixtures: {},
  });
}

function clientsFor(l: Landscape): (name: string) => KubeClient {
  const made = new Map<string, KubeClient>();
  return (name) => {
    let c = made.get(name);
    if (!c) {
      // clusters added while the drill runs have no kubeconfig file: ask the API server
      const file = l.control.clusters[name]?.kubeconfig;
      const config = file
        ? kubeConfigFromFile(file)
        : kubeConfigFromYaml(l.api!.cluster(name).kubeconfigYaml());
      c = createKubeClient(config, { keepAlive: true });
      made.set(name, c);
    }
    return c;
  };
}

async function settleAll(ctx: DrillContext, work: Workload[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(work);
  while (pending.size > 0) {
    for (const w of [...pending]) {
      const done = await w.settled(ctx).catch(() => false);
      if (done) pending.delete(w);
    }
    if (pending.size === 0) return true;
    if (Date.now() > deadline) {
      ctx.log('not settled', { workloads: [...pending].map((w) => w.name) });
      return false;
    }
    await sleep(1000);
  }
  return true;
}

/** No delivery retried or dead-lettered for this long: no retry chain is still running (backoff <= 8 s). */
const RETRIES_QUIET_MS = 10_000;
const RETRIES_QUIET_TIMEOUT_MS = 90_000;

/**
 * Waits until the brokers' retries have been quiet for RETRIES_QUIET_MS (bounded), so an event
 * still being retried at the end state is counted once it is dead-lettered, not missed.
 */
async function retriesQuiet(l: Landscape): Promise<void> {
  const deadline = Date.now() + RETRIES_QUIET_TIMEOUT_MS;
  let last = -1;
  let since = Date.now();
  while (Date.now() < deadline) {
    const rows = (await l.runtime?.status()) ?? [];
    const n = rows.reduce((sum, r) => sum + r.retried + r.deadLettered, 0);
    if (n !== last) [last, since] = [n, Date.now()];
    if (Date.now() - since >= RETRIES_QUIET_MS) return;
    await sleep(1000);
  }
}

async function deadLetters(stateDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const store of await storesIn(join(stateDir, 'dlq'))) {
    for (const l of await store.list())
      out.push(
        `dead letter ${l.broker} → ${l.trigger}: ${JSON.stringify(l.event.type)} ${JSON.stringify(l.event.subject ?? '')} (${l.reason}, ${String(l.extensions.knativeerrorcode)})`,
      );
  }
  return out;
}

function auditRecords(l: Landscape): AuditRecord[] {
  return (l.api?.clusters() ?? []).flatMap((c) => [...(l.api?.audit(c.name)?.records() ?? [])]);
}

async function secretsIn(
  l: Landscape,
  stateDir: string,
  redis: TestRedis,
  cluster: (n: string) => KubeClient,
): Promise<SecretFinding[]> {
  const clusters = (l.api?.clusters() ?? []).map((c) => ({ name: c.name, client: cluster(c.name) }));
  const extra = (l.api?.clusters() ?? []).map((c) => ({ source: `cluster token ${c.name}`, value: c.token }));
  const secrets = await collectSecrets({ clusters, extra });
  return scanForSecrets({ secrets, logDirs: [join(stateDir, 'logs')], redisUrl: redis.url, clusters });
}

/** The audit log as JSON lines, for a look at what went wrong (`--keep`). */
function writeAudit(file: string, records: readonly AuditRecord[]): void {
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

interface Phase {
  ctx: DrillContext;
  work: Workload[];
}

/** Creates and disturbs the work while the fault is on; returns when the fault is off. */
async function faultWindow(
  o: RunOptions,
  p: Phase,
  redis: TestRedis,
): Promise<{ offAt: number; injected: string }> {
  const started = Date.now();
  const end = await FAULTS[o.fault].begin({
    landscape: p.ctx.landscape,
    redis,
    random: p.ctx.random,
    windowMs: o.windowMs,
    log: p.ctx.log,
  });
  try {
    await Promise.all(p.work.map((w) => w.start(p.ctx)));
    await Promise.all(p.work.map(async (w) => w.disturb?.(p.ctx)));
    await sleep(Math.max(0, started + o.windowMs - Date.now()));
  } finally {
    p.ctx.log('fault off');
  }
  const injected = await end();
  return { offAt: Date.now(), injected };
}

/** What runs in progress hold (their landscape, then their Redis), stopped by stopActiveRuns(). */
const active = new Set<() => Promise<void>>();

/** Stops the landscape and Redis of every run in progress (no replica left behind): on Ctrl-C. */
export async function stopActiveRuns(): Promise<void> {
  await Promise.all([...active].map((stop) => stop().catch(() => undefined)));
}

export async function runDrill(o: RunOptions): Promise<RunResult> {
  const t0 = Date.now();
  const dir = mkdtempSync(join(tmpdir(), `drill-${o.fault}-`));
  const redis = await startRedis();
  let l: Landscape | undefined;
  const stopAll = async (): Promise<void> => {
    await l?.stop();
    await redis.stop();
  };
  active.add(stopAll);
  try {
    const weederWindow = weederWindowMs(
      readFileSync(join(configDir(o.repoRoot, dir), 'weeder.yaml'), 'utf8'),
    );
    l = await startDrillLandscape(o, dir, redis);
    const cluster = clientsFor(l);
    const ctx: DrillContext = {
      landscape: l,
      main: cluster('main'),
      cluster,
      namespace: 'drill',
      scale: o.scale,
      redisUrl: redis.url,
      random: prng(o.seed),
      now: Date.now,
      log: (m, f) => o.log(`[${o.fault}] ${m}`, f),
    };
    const work = makeWorkloads(o.scale);
    const { offAt, injected } = await faultWindow(o, { ctx, work }, redis);
    const settled = await settleAll(ctx, work, o.settleTimeoutMs);
    const recoveryMs = settled ? Date.now() - offAt : undefined;
    const checks = await Promise.all(work.map((w) => w.check(ctx)));
    await retriesQuiet(l);
    const stateDir = join(dir, 'state');
    const lost = [...checks.flatMap((c) => c.lost), ...(await deadLetters(stateDir))];
    const records = auditRecords(l);
    const duplicated = findDuplicates(records, {
      createdOnce: createdOnceInDrill,
      weederNamespace,
      weederWindowMs: weederWindow,
    });
    const effects = countEffects(records, weederNamespace);
    const secrets = await secretsIn(l, stateDir, redis, cluster);
    if (o.keep) writeAudit(join(stateDir, 'audit.jsonl'), auditRecords(l));
    return {
      fault: o.fault,
      scale: o.scale,
      operations: totalEffects(effects),
      effects,
      planned: checks.reduce((n, c) => n + c.operations, 0),
      lost,
      duplicated,
      recoveryMs,
      resyncIntervalMs: o.resyncIntervalMs,
      weederWindowMs: weederWindow,
      injected,
      secrets,
      ...(o.keep ? { stateDir } : {}),
      elapsedMs: Date.now() - t0,
    };
  } finally {
    active.delete(stopAll);
    await l?.stop().catch((e: unknown) => o.log(`stopping the landscape: ${String(e)}`));
    await redis.stop();
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}
