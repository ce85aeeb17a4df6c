/**
 * The prober (probe-tick) at fleet scale: one tick over 100, 300 and 1,000 shoots (seconds per
 * tick and per shoot, API requests and bytes per shoot on the seed and the shoot clusters, Redis
 * commands per shoot, peak memory), and how each grows from the smallest to the largest fleet,
 * side by side in one run. Every fleet gets a fresh embedded API server (one seed, a few shoot
 * clusters shared round robin, traffic counted) and an emptied private redis-server; an untimed
 * warm-up tick runs first. Optionally one more tick where every lease is expired, so every shoot
 * is scaled down. Then an A/B at the largest fleet (`--ab-rounds`, 2 by default: six more ticks):
 * probe-tick as before issue 16, with the shoot client before the connection per probe, and now
 * (./prober/ways.ts), alternately, each way warmed up first; issue 16's tick goal is read from
 * its medians. Fails (exit 1) only when a shoot was not probed as expected, never because of
 * speed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { Redis } from 'ioredis';
import { trafficTotal } from '@landscape/kube-apiserver/testing';
import { startRedis, type TestRedis } from '../local/redis.js';
import { DEFAULT_PROBE_CONCURRENCY } from '../functions/probe-tick/config.js';
import {
  fmt,
  nonNegativeInt,
  parseCommand,
  positiveInt,
  redisOnSignal,
  runBenchmark,
  secondsSince,
  sizeList,
} from './common.js';
import { startFleet } from './prober/fleet.js';
import { measurePass, profileFile, type PassResult } from './prober/pass.js';
import { WAYS, type Way } from './prober/ways.js';
import {
  abTable,
  goalTable,
  growthLines,
  memoryTable,
  tickTable,
  verbTable,
  type AbRounds,
} from './prober/table.js';

export const description =
  'prober: one probe-tick pass over 100 / 300 / 1,000 shoots (s/tick, API requests/shoot, peak memory), its growth, and an A/B with the code before issue 16';

interface ProberOptions {
  shoots: number[];
  shootClusters: number;
  nodes: number;
  concurrency: number;
  scalingShoots: number;
  warmupShoots: number;
  abRounds: number;
  cpuProf?: string;
}

/** Past 0.75 × kcmNodeMonitorGraceDuration (40 s): expired. */
const EXPIRED_LEASE_AGE_MS = 3_600_000;

/** The options; commander's exit code when it printed the help or a usage error. */
function parseOptions(argv: string[]): ProberOptions | number {
  const cmd = new Command('prober')
    .description(description)
    .option('--shoots <list>', 'fleet sizes, comma separated (one tick each)', sizeList, [100, 300, 1000])
    .option('--shoot-clusters <count>', 'shoot API servers (clusters) the shoots share', positiveInt, 4)
    .option('--nodes <count>', 'Nodes and Leases per shoot cluster (Machines per shoot)', positiveInt, 3)
    .option('--concurrency <count>', 'PROBE_CONCURRENCY', positiveInt, DEFAULT_PROBE_CONCURRENCY)
    .option(
      '--scaling-shoots <count>',
      'shoots of the tick with every lease expired (0: none)',
      nonNegativeInt,
      300,
    )
    .option('--warmup-shoots <count>', 'shoots of the untimed warm-up tick (0: none)', nonNegativeInt, 100)
    .option(
      '--ab-rounds <count>',
      'rounds of the A/B at the largest fleet: a tick in each way (before, per-request, now), alternately (0: none)',
      nonNegativeInt,
      2,
    )
    .option('--cpu-prof <dir>', 'write a V8 CPU profile of each measured tick into <dir>');
  return parseCommand<ProberOptions>(cmd, argv);
}

interface Env {
  dir: string;
  redis: TestRedis;
  client: Redis;
}

async function tick(
  env: Env,
  o: ProberOptions,
  shoots: number,
  leases: 'fresh' | 'expired',
  profile: boolean,
  way: Way = 'now',
): Promise<PassResult> {
  const fleet = await startFleet({
    shoots,
    shootClusters: o.shootClusters,
    nodes: o.nodes,
    leaseAgeMs: leases === 'fresh' ? 0 : EXPIRED_LEASE_AGE_MS,
    pkiDir: join(env.dir, 'pki'),
  });
  try {
    const kubeconfigFile = join(env.dir, 'seed.kubeconfig');
    await writeFile(kubeconfigFile, fleet.seed.kubeconfigYaml());
    return await measurePass({
      way,
      fleet,
      leases,
      redisUrl: env.redis.url,
      redis: env.client,
      kubeconfigFile,
      concurrency: o.concurrency,
      cpuProfile: profile && o.cpuProf ? profileFile(o.cpuProf, shoots, leases) : undefined,
    });
  } finally {
    await fleet.stop();
  }
}

function progress(p: PassResult, t0: number): void {
  console.log(
    `${p.shoots} shoots, leases ${p.leases}: ${p.objects.seed + p.objects.shoots} objects set up in ${(p.setupMs / 1000).toFixed(1)} s, ` +
      `tick ${(p.ms / 1000).toFixed(2)} s (${p.summary?.probes ?? 0} probes); ${secondsSince(t0)}`,
  );
}

interface Measured {
  passes: PassResult[];
  ab?: AbRounds;
}

/**
 * Rounds of a tick in each way at `shoots`, the order rotated each round; each way gets an
 * untimed warm-up tick first (its own code paths JIT-compiled, as the main ticks' warm-up does
 * for now's). Not profiled.
 */
async function abRounds(env: Env, o: ProberOptions, shoots: number): Promise<AbRounds> {
  const ab: AbRounds = { shoots, ticks: { before: [], 'per-request': [], now: [] } };
  if (o.warmupShoots > 0) {
    for (const way of WAYS) await tick(env, o, o.warmupShoots, 'fresh', false, way);
  }
  for (let round = 0; round < o.abRounds; round++) {
    const order = WAYS.map((_, i) => WAYS[(i + round) % WAYS.length]);
    for (const way of order) {
      const t0 = performance.now();
      const p = await tick(env, o, shoots, 'fresh', false, way);
      ab.ticks[way].push(p);
      console.log(`A/B round ${round + 1}, ${way}: tick ${(p.ms / 1000).toFixed(2)} s; ${secondsSince(t0)}`);
    }
  }
  return ab;
}

async function measure(o: ProberOptions): Promise<Measured> {
  const redis = await startRedis();
  const undo = redisOnSignal(redis);
  const client = new Redis(redis.url);
  const env: Env = { dir: await mkdtemp(join(tmpdir(), 'bench-prober-')), redis, client };
  try {
    if (o.warmupShoots > 0) {
      const t0 = performance.now();
      const w = await tick(env, o, o.warmupShoots, 'fresh', false);
      console.log(
        `warm-up: ${w.shoots} shoots, tick ${(w.ms / 1000).toFixed(2)} s (not reported); ${secondsSince(t0)}`,
      );
    }
    const out: PassResult[] = [];
    for (const n of o.shoots) {
      const t0 = performance.now();
      out.push(await tick(env, o, n, 'fresh', true));
      progress(out[out.length - 1], t0);
    }
    if (o.scalingShoots > 0) {
      const t0 = performance.now();
      out.push(await tick(env, o, o.scalingShoots, 'expired', true));
      progress(out[out.length - 1], t0);
    }
    const largest = Math.max(...o.shoots);
    return { passes: out, ab: o.abRounds > 0 ? await abRounds(env, o, largest) : undefined };
  } finally {
    client.disconnect();
    await redis.stop();
    undo();
    await rm(env.dir, { recursive: true, force: true });
  }
}

function passProblems(p: PassResult): string[] {
  const fresh = p.leases === 'fresh';
  const probes = p.summary?.probes ?? 0;
  const expected = fresh ? p.outcomes.healthy : p.outcomes.unhealthy;
  const errors = trafficTotal(p.seed).errors + trafficTotal(p.shoot).errors;
  const checks: [boolean, string][] = [
    [probes !== p.shoots, `${probes} probes in the tick`],
    [expected !== p.shoots, `${expected} lease probes ${fresh ? 'succeeded' : 'failed'}`],
    [p.outcomes.failed > 0, `${p.outcomes.failed} probes failed; first: ${p.outcomes.firstFailure}`],
    [errors > 0, `${errors} error answers from the API server`],
    [fresh && p.replicas.zero > 0, `${p.replicas.zero} dependents scaled to 0`],
  ];
  return checks.filter(([bad]) => bad).map(([, message]) => message);
}

function problems(m: Measured): string[] {
  const all = [...m.passes, ...Object.values(m.ab?.ticks ?? {}).flat()];
  return all.flatMap((p) =>
    passProblems(p).map((msg) => `${p.shoots} shoots, leases ${p.leases}, ${p.way}: ${msg}`),
  );
}

function notes(o: ProberOptions, passes: readonly PassResult[]): string[] {
  const scaling = passes.find((p) => p.leases === 'expired');
  const lines = [
    `One tick = one pass of probe-tick (runProbeTick, PROBE_TICK_SPAN=0s, PROBE_CONCURRENCY=${o.concurrency}) with`,
    "upstream's example prober config but initialDelay 0s: a prober started in a pass is due at once, so the first",
    'pass probes every shoot (probes = shoots is checked).',
    `Each fleet: a fresh embedded API server (a seed + ${o.shootClusters} shoot clusters with ${o.nodes} Nodes/Leases each, shared`,
    'round robin) and an emptied redis-server; per shoot in the seed: namespace, Cluster, probe Secret, 3 Deployments',
    `(all replicas ready), ${o.nodes} Machines. Fresh leases are renewed every 10 s during the tick, as kubelets do (in the`,
    `store, not counted). An untimed warm-up tick over ${o.warmupShoots} shoots runs first (JIT); config and Redis`,
    'connection are ready before the clock starts.',
    'The embedded API servers run in this process: tick s and CPU s include serving every request (TLS included: the',
    'seed client keeps its connections alive; each shoot probe opens one new connection with a full handshake for its',
    '3 requests and closes it at its end; upstream dependency-watchdog opens one per request (its shoot clients get a',
    'new transport with keep-alives disabled and no TLS session cache, and its new controller-runtime client',
    "discovers /api and /apis first: 5 connections per probe there), as the A/B's per-request way does with 3).",
    'redis-server is a separate process, its CPU not counted. Logs formatted at info and dropped.',
    'Requests/bytes counted at the API servers (HTTP bodies, no headers or TLS); Redis commands from INFO commandstats.',
    'Memory: this process (API servers + stores + function), sampled every 50 ms during the tick after a full GC;',
    '"before" is after that GC, so heap "peak − before" is what the tick adds on top of the stores, and "kept after GC"',
    'what it leaves behind. RSS never shrinks back: it is the high-water mark so far (earlier fleets included).',
    'Seed reads: the pass lists the probe Secrets (field selector metadata.name), the Machines and each dependent',
    '(field selector metadata.name) once for every shoot, on first use (functions/probe-tick/seedview.ts).',
    'Fresh leases: a healthy lease probe runs a scale-up flow; each level is planned from the listed dependents,',
    'finds every one scaled and ready, and ends in the same pass with no read of its own (anything to do would be',
    'read again, object and scale subresource, right before it runs).',
  ];
  if (scaling) {
    lines.push(
      `Leases expired: every Lease renewed an hour ago, so each of the ${scaling.shoots} shoots' lease probes fail and the first`,
      'pass of its scale-down flow runs in the tick: level 0 (MCM, CA: metadata + scale read, annotation patch, scale patch,',
      'Event each), then it waits; KCM (level 1) follows in a later pass. No workload simulation.',
    );
  }
  return lines;
}

/** Prints the report; the problems found. */
function report(o: ProberOptions, m: Measured): string[] {
  const passes = m.passes;
  const fresh = passes.filter((p) => p.leases === 'fresh');
  const base = fresh[0];
  const largest = fresh[fresh.length - 1];
  console.log(
    `One tick, leases fresh (no scaling)${passes.length > fresh.length ? ', and one with every lease expired' : ''}:\n`,
  );
  console.log(`${tickTable(passes, base)}\n`);
  console.log(`Memory of this process during the tick:\n\n${memoryTable(passes, base)}\n`);
  if (base && largest && largest !== base) console.log(`${growthLines(base, largest).join('\n')}\n`);
  const detail = [largest, passes.find((p) => p.leases === 'expired'), m.ab?.ticks.before[0]].filter(
    (p): p is PassResult => !!p,
  );
  console.log(`Requests and bytes per shoot by verb and resource:\n\n${verbTable(detail)}\n`);
  if (m.ab) {
    console.log(
      `A/B at ${fmt(m.ab.shoots)} shoots, leases fresh, each tick on a fresh fleet, the ways alternately:\n` +
        `before = probe-tick before issue 16 (each shoot's Secret, Machines and dependents read on their own,\n` +
        `the kubeconfig parsed per probe, a TLS context per shoot connection); per-request = now, but a new\n` +
        `connection per shoot request as upstream (the client before the connection per probe); now = as it is:\n\n` +
        `${abTable(m.ab)}\n`,
    );
  }
  console.log(
    `Issue 16's goals (≤ 1.00× in "now ÷ goal" holds; "before" measured in this run, the A/B's medians):\n\n` +
      `${goalTable(passes, m.ab)}\n`,
  );
  console.log(`${notes(o, passes).join('\n')}\n`);
  return problems(m);
}

export function run(argv: string[]): Promise<number> {
  return runBenchmark(argv, { name: 'prober', detailed: true, parse: parseOptions, measure, report });
}
