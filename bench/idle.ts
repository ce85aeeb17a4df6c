/**
 * `npm run bench -- idle [--settle 120s] [--window 60s] [--schedules spec,embedded]`: what the
 * embedded landscape (`node scripts/launch.mjs local/main.ts`, every default family, shoot-1, the
 * fixture controller) costs while nothing happens. Each side starts a landscape of its own, waits
 * `--settle` after it is ready (the issue's "two minutes after the last work": the start itself is
 * the last work), then samples its process tree once a second for `--window`: CPU of every process
 * under it (utime + stime of the live ones plus cutime + cstime, so replicas that exit meanwhile
 * count through their reaped times), RSS of the tree, the seconds replicas were alive, and any
 * esbuild process. Sides, one after the other in one run:
 * - `spec`: what `npm start` runs, each PingSource on its own schedule (one-minute granularity);
 *   its window starts half a minute into a minute (each one-minute tick's start counted once) and,
 *   when needed, waits until it holds no resync (they fire every five minutes and fan out to every
 *   function of their family: work, not idle);
 * - `embedded`: `--embedded-schedules`, the sub-minute ticks tests and the drill opt in to (and the
 *   default before issue 16).
 * Goals (issue 16, for `spec`): ≤ 1 % of a core averaged over the window, ≤ 300 MB RSS in all, no
 * build process; the largest RSS of one replica seen (the tick functions', cold-started in the
 * window) against the per-replica 64 MB. Also printed: start to ready (bundles from the cache or not, as the run found
 * them). Nothing fails on a figure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { parseGoDuration } from '@landscape/apimachinery';
import { fmt, markdown, parseCommand, ratio, runBenchmark } from './common.js';
import { processTree, type Proc } from './proc.js';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const SIDES = ['spec', 'embedded'] as const;
type Side = (typeof SIDES)[number];
const GOAL_CPU_PCT = 1;
const GOAL_RSS_MB = 300;
/** Issue 16: idle RSS ≤ 64 MB per replica under `npm start` (the replicas seen here: the ticks', at any moment of their life). */
const GOAL_REPLICA_MIB = 64;
const READY_LIMIT_MS = 300_000;
const CLK_TCK = 100;
const MB = 2 ** 20;

interface Options {
  settle: number;
  window: number;
  schedules: Side[];
}

interface Result {
  side: Side;
  readyMs: number;
  bundles: string;
  cpuPct: number;
  ownPct: number;
  rssMeanMb: number;
  rssMaxMb: number;
  replicaSeconds: number;
  /** The largest RSS of one replica in any sample (MB), and which function it served. */
  replicaRssMaxMb: number;
  replicaRssMaxName: string;
  esbuild: number;
}

function duration(v: string): number {
  try {
    return parseGoDuration(v);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

function sides(v: string): Side[] {
  const list = v.split(',').map((s) => s.trim());
  const bad = list.find((s) => !(SIDES as readonly string[]).includes(s));
  if (bad !== undefined) throw new InvalidArgumentError(`"${bad}": one of ${SIDES.join(', ')}`);
  return [...new Set(list)] as Side[];
}

function parse(argv: string[]): Options | number {
  const cmd = new Command('npm run bench -- idle')
    .option('--settle <duration>', 'wait after the landscape is ready before measuring', duration, 120_000)
    .option('--window <duration>', 'how long to measure', duration, 60_000)
    .option(
      '--schedules <list>',
      'sides, in this order (spec: npm start; embedded: --embedded-schedules)',
      sides,
      [...SIDES],
    );
  return parseCommand<Options>(cmd, argv);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The function a replica serves: its process title (shared/serve sets it to the function's name),
 * or before that the folder of the bundle it runs.
 */
export function replicaName(cmdline: string): string {
  const bundle = /\/([^/\s]+)\/server\.c?js\b/.exec(cmdline)?.[1];
  return bundle ?? cmdline.split(' ')[0] ?? cmdline;
}

/** A replica: neither the landscape itself nor its Redis (redis-server, or its node keeper without setpriv) nor a build. */
const isReplica = (p: Proc, root: number): boolean =>
  p.pid !== root && !p.cmdline.includes('redis-server') && !p.cmdline.includes('esbuild');

function startSide(side: Side, stateDir: string): { proc: ChildProcess; out: () => string } {
  const args = ['scripts/launch.mjs', 'local/main.ts', '--state-dir', stateDir, '--status-interval', '0'];
  const proc = spawn(process.execPath, side === 'embedded' ? [...args, '--embedded-schedules'] : args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  const keep = (chunk: Buffer): void => {
    text = (text + chunk.toString('utf8')).slice(-20_000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  return { proc, out: () => text };
}

async function stopSide(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGINT');
  await Promise.race([exited, sleep(20_000)]);
  try {
    process.kill(-proc.pid!, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

async function ready(proc: ChildProcess, stateDir: string, out: () => string): Promise<void> {
  const deadline = Date.now() + READY_LIMIT_MS;
  while (!existsSync(join(stateDir, 'landscape.json'))) {
    if (proc.exitCode !== null) throw new Error(`the landscape exited (${proc.exitCode}):\n${out()}`);
    if (Date.now() > deadline)
      throw new Error(`the landscape was not ready in ${READY_LIMIT_MS} ms:\n${out()}`);
    await sleep(100);
  }
}

/** Samples the tree once a second for the window. */
async function sample(root: number, windowMs: number): Promise<Omit<Result, 'side' | 'readyMs' | 'bundles'>> {
  const sum = (procs: Proc[], k: 'cpu' | 'own' | 'rss'): number => procs.reduce((n, p) => n + p[k], 0);
  const first = processTree(root);
  const own0 = first.find((p) => p.pid === root)?.own ?? 0;
  const t0 = performance.now();
  const rss: number[] = [];
  let replicaSeconds = 0;
  let replicaRssMax = 0;
  let replicaRssMaxName = '—';
  let esbuild = 0;
  let last = first;
  while (performance.now() - t0 < windowMs) {
    await sleep(1_000);
    last = processTree(root);
    rss.push(sum(last, 'rss'));
    const replicas = last.filter((p) => isReplica(p, root));
    replicaSeconds += replicas.length;
    for (const p of replicas)
      if (p.rss > replicaRssMax) {
        replicaRssMax = p.rss;
        replicaRssMaxName = replicaName(p.cmdline);
      }
    esbuild += last.filter((p) => p.cmdline.includes('esbuild')).length;
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = (sum(last, 'cpu') - sum(first, 'cpu')) / CLK_TCK;
  const own = ((last.find((p) => p.pid === root)?.own ?? own0) - own0) / CLK_TCK;
  return {
    cpuPct: (100 * cpu) / seconds,
    ownPct: (100 * own) / seconds,
    rssMeanMb: rss.reduce((a, b) => a + b, 0) / rss.length / MB,
    rssMaxMb: Math.max(...rss) / MB,
    replicaSeconds,
    replicaRssMaxMb: replicaRssMax / MB,
    replicaRssMaxName,
    esbuild,
  };
}

/** The resync PingSources (knative/) fire every five minutes: their fan-out is work, not idle. */
const RESYNC_EVERY_MS = 5 * 60_000;
/**
 * How long a resync's replicas live on after it fires: the functions it fans out to keep Knative's
 * 60 s stable window (only the tick functions have a short one), so they stop about a minute after
 * their last event; a run with 30 s here still saw 245 replica-s in the window.
 */
const RESYNC_AFTER_MS = 120_000;

/**
 * The one-minute PingSources (requeue-tick, landscaper-monitoring: upstream's one-minute period) fire
 * at the start of each minute; a tick's replica uses most of its CPU in the second after.
 */
const TICK_EVERY_MS = 60_000;

/** The first time at or after `t` that is `phase` into a period of `period`. */
function alignUp(t: number, period: number, phase: number): number {
  return Math.ceil((t - phase) / period) * period + phase;
}

export interface WindowStart {
  /** How much longer to wait. */
  delayMs: number;
  /** False when no window of that length fits between two resyncs (it holds one then). */
  resyncFree: boolean;
}

/**
 * When the `spec` window of `windowMs` should start, from `nowMs`: half a tick period into a minute,
 * so that a one-minute window holds each one-minute tick's start once (a window that starts on the
 * minute, as it did before stop 38 whenever it waited for the resync, also held the first second
 * of the next minute's starts: one tick start counted twice, ≈ 0.2 CPU-s), and, when a window of
 * that length fits, `afterMs` or more after the last five-minute resync and ending by the next one.
 */
export function windowStart(
  nowMs: number,
  windowMs: number,
  everyMs = RESYNC_EVERY_MS,
  afterMs = RESYNC_AFTER_MS,
  tickMs = TICK_EVERY_MS,
): WindowStart {
  const phase = tickMs / 2;
  let start = alignUp(nowMs, tickMs, phase);
  // the resync cycles start on whole minutes (five of them): the first start after a resync's
  // fan-out is the same in every cycle, and a window that does not fit from there fits nowhere
  if (alignUp(afterMs, tickMs, phase) + windowMs > everyMs)
    return { delayMs: start - nowMs, resyncFree: false };
  for (;;) {
    const prev = Math.floor(start / everyMs) * everyMs;
    if (start < prev + afterMs) start = alignUp(prev + afterMs, tickMs, phase);
    else if (start + windowMs > prev + everyMs) start = alignUp(prev + everyMs + afterMs, tickMs, phase);
    else return { delayMs: start - nowMs, resyncFree: true };
  }
}

async function measureSide(side: Side, o: Options): Promise<Result> {
  const stateDir = await mkdtemp(join(tmpdir(), `bench-idle-${side}-`));
  const t0 = performance.now();
  const { proc, out } = startSide(side, stateDir);
  const stop = (): void => void stopSide(proc);
  process.once('exit', stop);
  try {
    await ready(proc, stateDir, out);
    const readyMs = performance.now() - t0;
    const bundles = /functions: (\d+\/\d+) bundles from the cache/.exec(out())?.[1] ?? '?';
    console.log(`${side}: ready after ${fmt(readyMs / 1000, 1)} s; settling ${o.settle / 1000} s`);
    await sleep(o.settle);
    // the own schedules' window is moved off the */5 resync (the embedded side resyncs every few
    // seconds anyway): otherwise a run measures the resync's fan-out one time in three; and it
    // starts half a minute off the one-minute ticks' fires, so that each is counted once
    if (side === 'spec') {
      const at = windowStart(Date.now(), o.window);
      const why = at.resyncFree
        ? 'the window holds no */5 resync and starts half a minute off the one-minute ticks'
        : `the window starts half a minute off the one-minute ticks (a ${fmt(o.window / 1000, 0)} s window cannot miss the */5 resync)`;
      console.log(`${side}: waiting ${fmt(at.delayMs / 1000, 0)} s more: ${why}`);
      await sleep(at.delayMs);
    }
    const m = await sample(proc.pid!, o.window);
    return { side, readyMs, bundles, ...m };
  } finally {
    process.off('exit', stop);
    await stopSide(proc);
    await rm(stateDir, { recursive: true, force: true });
  }
}

async function measure(o: Options): Promise<Result[]> {
  const out: Result[] = [];
  for (const side of o.schedules) out.push(await measureSide(side, o));
  return out;
}

function report(o: Options, results: Result[]): string[] {
  console.log(
    `Idle landscape: ${o.settle / 1000} s after ready, measured over ${o.window / 1000} s (every process under it)\n`,
  );
  console.log(
    markdown(
      [
        'schedules',
        'ready',
        'bundles cached',
        'CPU, % of a core',
        'landscape process alone',
        'RSS mean',
        'RSS max',
        'replica-s in window',
        'largest replica RSS',
        'esbuild seen',
        'CPU ÷ goal (1 %)',
        'RSS mean ÷ goal (300 MB)',
        'largest replica ÷ goal (64 MiB)',
      ],
      results.map((r) => [
        r.side === 'spec' ? 'own (npm start)' : 'embedded (--embedded-schedules)',
        `${fmt(r.readyMs / 1000, 1)} s`,
        r.bundles,
        `${fmt(r.cpuPct, 2)} %`,
        `${fmt(r.ownPct, 2)} %`,
        `${fmt(r.rssMeanMb)} MB`,
        `${fmt(r.rssMaxMb)} MB`,
        fmt(r.replicaSeconds),
        `${fmt(r.replicaRssMaxMb)} MB (${r.replicaRssMaxName})`,
        String(r.esbuild),
        ratio(r.cpuPct, GOAL_CPU_PCT),
        ratio(r.rssMeanMb, GOAL_RSS_MB),
        ratio(r.replicaRssMaxMb, GOAL_REPLICA_MIB),
      ]),
    ),
  );
  const [a, b] = results;
  if (a && b)
    console.log(
      `\n${a.side} ÷ ${b.side}: CPU ${ratio(a.cpuPct, b.cpuPct)}, RSS mean ${ratio(a.rssMeanMb, b.rssMeanMb)}`,
    );
  return [];
}

export function run(argv: string[]): Promise<number> {
  return runBenchmark(argv, { name: 'idle', detailed: true, parse, measure, report });
}
