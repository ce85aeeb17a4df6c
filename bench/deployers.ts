/**
 * The deployer functions, side by side in one run: N mock DeployItems (default 1,000) driven
 * in-process (job trigger → responsibility check → mock deployer, called) and end to end through
 * the full landscape (source → broker → functions as processes), as items/s and their ratio; API
 * requests and bytes per reconcile, counted at the embedded API server, per step and by verb; and
 * the bytes the responsibility check reads for a 1 MB versus a 1 KB item it is not responsible for
 * (target: equal). Each side first takes `--warmup` items of its own, unmeasured (a landscape that
 * has been running: replicas started, code compiled; the report shows those items from zero too).
 * The two sides run in rounds (default 3), alternating, so that a drift in the machine's speed
 * touches both alike: the goals take the median items/s through the landscape and the median of
 * the rounds' ratios; the detailed tables are those of the median round. Fails (exit 1) only when
 * an item did not end Succeeded or a step answered something unexpected, never because of speed. Every child process is killed at the end.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { nonNegativeInt, parseCommand, positiveInt, runBenchmark, seconds, secondsSince } from './common.js';
import { API_SERVER_PLACES, runEndToEnd, type ApiServerPlace, type EndToEndResult } from './deployers/e2e.js';
import { startHarness, type Harness } from './deployers/harness.js';
import { runInProcess, type InProcessResult } from './deployers/inprocess.js';
import { runResponsibility, type SizeResult } from './deployers/responsibility.js';
import { roundsTable, warmupNotes } from './deployers/rounds.js';
import {
  goalTable,
  medianRound,
  roundRates,
  sideBySideTraffic,
  sizeFindings,
  sizeTable,
  stepTable,
  throughputTable,
  verbTable,
} from './deployers/table.js';

export const description =
  'deployers: 1,000 mock DeployItems in-process vs through the landscape (items/s), API requests/bytes per reconcile, responsibility check 1 MB vs 1 KB';

interface DeployersOptions {
  items: number;
  /** Unmeasured items through each side before its measured ones (0: measured from zero). */
  warmup: number;
  concurrency: number;
  checkRepeats: number;
  landscape: boolean;
  readyTimeoutS: number;
  timeoutS: number;
  apiserver: ApiServerPlace;
  embeddedSchedules: boolean;
  rounds: number;
  /** Internal: run only this side, in this (fresh) process, and write its result to `resultTo`. */
  only?: Side;
  resultTo?: string;
  withSizes: boolean;
}

/** One round: the in-process side, then the landscape. */
interface Round {
  inProcess: InProcessResult;
  e2e?: EndToEndResult;
}

interface Measured extends Round {
  sizes: SizeResult[];
  /** Every round in order; `inProcess` and `e2e` above are those of the median round. */
  rounds: Round[];
  /** Index of the median round in `rounds`. */
  shown: number;
}

const SIDES = ['in-process', 'landscape'] as const;
type Side = (typeof SIDES)[number];

const ITEMS_NS = 'bench-items';
const SIZES_NS = 'bench-sizes';
/** Where each side's warm-up items go: apart from the measured ones and their counts. */
const WARMUP_NS = 'bench-warmup';

/** The options; commander's exit code when it printed the help or a usage error. */
function parseOptions(argv: string[]): DeployersOptions | number {
  const cmd = new Command('deployers')
    .description(description)
    .option('--items <count>', 'mock DeployItems per side', positiveInt, 1_000)
    .option(
      '--warmup <count>',
      "unmeasured mock DeployItems through each side first (the landscape's replicas started, every process's code compiled: a landscape that has been running); 0: measured from zero",
      nonNegativeInt,
      500,
    )
    .option('--concurrency <count>', 'items in flight (creates, and each in-process step)', positiveInt, 16)
    .option('--check-repeats <count>', 'responsibility checks per sized item (median time)', positiveInt, 20)
    .option('--no-landscape', 'skip the end-to-end side (no landscape process)')
    .option(
      '--rounds <count>',
      'rounds of in-process then landscape, alternating (median reported)',
      positiveInt,
      3,
    )
    .addOption(new Option('--only <side>').choices(SIDES).hideHelp())
    .addOption(new Option('--result-to <file>').hideHelp())
    .addOption(new Option('--with-sizes').default(false).hideHelp())
    .addOption(
      new Option(
        '--apiserver <where>',
        "the landscape's API server: in this process, counted (bench), or npm start's own, not counted (landscape)",
      )
        .choices(API_SERVER_PLACES)
        .default('bench'),
    )
    .option(
      '--embedded-schedules',
      "the landscape's PingSources on their sub-minute embedded schedules (requeue-tick every second, probe-tick every 10 s, syncobject-cleanup and landscaper-monitoring every 30 s) instead of their own (npm start's, Knative's)",
      false,
    )
    .option('--ready-timeout-s <s>', 'give up when the landscape is not ready after', positiveInt, 120)
    .option('--timeout-s <s>', 'give up on end-to-end items not finished after', positiveInt, 600);
  return parseCommand<DeployersOptions>(cmd, argv);
}

async function inProcessSide(
  o: DeployersOptions,
  withSizes: boolean,
): Promise<{ inProcess: InProcessResult; sizes: SizeResult[] }> {
  let t0 = performance.now();
  const h: Harness = await startHarness([ITEMS_NS, SIZES_NS, WARMUP_NS]);
  try {
    const inProcess = await runInProcess(h, {
      namespace: ITEMS_NS,
      items: o.items,
      concurrency: o.concurrency,
      warmup: { namespace: WARMUP_NS, items: o.warmup },
    });
    console.log(
      `in-process: ${warmedUp(inProcess.warmupMs, o.warmup)}${o.items.toLocaleString('en')} items in ${seconds(inProcess.ms)} ` +
        `(${secondsSince(t0)} in all)`,
    );
    if (!withSizes) return { inProcess, sizes: [] };
    t0 = performance.now();
    const sizes = await runResponsibility(h, { namespace: SIZES_NS, repeats: o.checkRepeats });
    console.log(`responsibility check, 1 KB vs 1 MB: ${secondsSince(t0)}`);
    return { inProcess, sizes };
  } finally {
    await h.close();
  }
}

function warmedUp(ms: number | undefined, items: number): string {
  return ms === undefined ? '' : `warm-up ${items.toLocaleString('en')} items in ${seconds(ms)}, then `;
}

function settled(e: EndToEndResult): string {
  if (e.settleMs === undefined) return '';
  const after = `${(e.settleMs / 1000).toFixed(1)} s later`;
  return e.quiet
    ? `DeployItem requests stopped ${after}, `
    : `DeployItem requests still going ${after} (counted until then), `;
}

async function landscapeSide(o: DeployersOptions): Promise<EndToEndResult> {
  const t0 = performance.now();
  const e2e = await runEndToEnd({
    namespace: ITEMS_NS,
    items: o.items,
    warmup: { namespace: WARMUP_NS, items: o.warmup },
    concurrency: o.concurrency,
    readyTimeoutMs: o.readyTimeoutS * 1000,
    timeoutMs: o.timeoutS * 1000,
    embeddedSchedules: o.embeddedSchedules,
    apiserver: o.apiserver,
  });
  console.log(
    `landscape: ready in ${(e2e.startupMs / 1000).toFixed(1)} s, ${warmedUp(e2e.warmupMs, o.warmup)}` +
      `${o.items.toLocaleString('en')} items in ` +
      `${(e2e.ms / 1000).toFixed(1)} s, ` +
      settled(e2e) +
      `stopped in ${(e2e.stopMs / 1000).toFixed(1)} s; ${secondsSince(t0)} in all`,
  );
  return e2e;
}

const BENCH_INDEX = fileURLToPath(new URL('./index.ts', import.meta.url));

type InProcessSide = { inProcess: InProcessResult; sizes: SizeResult[] };

/**
 * One side in a process of its own, as cold as the landscape's replicas, whatever ran before it:
 * with both sides in this process, every round after the first found the API server's and the
 * functions' code compiled by the rounds before it (in-process 129 → 146 → 149 items/s over three
 * rounds of one run), and the landscape's API server (in this process) was compiled by the
 * in-process side before it.
 */
async function sideInChild(
  o: DeployersOptions,
  side: 'in-process',
  withSizes: boolean,
): Promise<InProcessSide>;
async function sideInChild(o: DeployersOptions, side: 'landscape'): Promise<EndToEndResult>;
async function sideInChild(
  o: DeployersOptions,
  side: Side,
  withSizes = false,
): Promise<InProcessSide | EndToEndResult> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-deployers-side-'));
  const file = join(dir, 'result.json');
  try {
    const args = [
      ...['--import', 'tsx', BENCH_INDEX, 'deployers', '--only', side, '--result-to', file],
      ...['--items', String(o.items), '--warmup', String(o.warmup), '--concurrency', String(o.concurrency)],
      ...['--check-repeats', String(o.checkRepeats), ...(withSizes ? ['--with-sizes'] : [])],
      ...['--ready-timeout-s', String(o.readyTimeoutS), '--timeout-s', String(o.timeoutS)],
      ...['--apiserver', o.apiserver, ...(o.embeddedSchedules ? ['--embedded-schedules'] : [])],
    ];
    const child = spawn(process.execPath, args, {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    // a signal to this process alone (a cancelled CI job, `timeout`) reaches the side too, whose own
    // handlers stop its landscape, API server and redis-server
    const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
    const killOnExit = (): void => void child.kill('SIGTERM');
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    process.on('exit', killOnExit);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (c) => resolve(c));
    }).finally(() => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      process.off('exit', killOnExit);
    });
    if (code !== 0) throw new Error(`the ${side} side exited with ${String(code)}`);
    return JSON.parse(await readFile(file, 'utf8')) as InProcessSide | EndToEndResult;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What a side's process writes: errors as their text (JSON has no Error). */
function resultJSON(result: unknown): string {
  return JSON.stringify(result, (_key, value: unknown) => (value instanceof Error ? String(value) : value));
}

async function measure(o: DeployersOptions): Promise<Measured> {
  const rounds: Round[] = [];
  let sizes: SizeResult[] = [];
  for (let k = 0; k < o.rounds; k++) {
    if (o.rounds > 1) console.log(`round ${k + 1} of ${o.rounds}`);
    const side = await sideInChild(o, 'in-process', k === 0);
    if (k === 0) sizes = side.sizes;
    rounds.push(o.landscape ? { inProcess: side.inProcess, e2e: await sideInChild(o, 'landscape') } : side);
  }
  const shown = medianRound(rounds.map((r) => roundRates(r).ratio ?? 1));
  return { ...rounds[shown], sizes, rounds, shown };
}

function notes(m: Measured, o: DeployersOptions): string[] {
  const lines = [
    `In-process: one embedded API server (traffic counted) and a private redis-server; the functions' code called`,
    `step by step over all items, ${o.concurrency} items in flight (the events the check would send are handed`,
    'to the deployer as they are). Logs formatted at info and dropped. Time = create + trigger + check + deploy;',
    'CPU = this process (API server, functions, client), redis-server not counted.',
    'Per reconcile = trigger + check + deploy of one new item, each reading as on a Reference-mode event; the',
    'no-op pass is what each later event of a finished item costs read that way (the landscape carries the item',
    'in its events, Resource mode: there such events cost no request). Bytes are HTTP bodies (no headers, no TLS).',
    'Error answers are expected ones (e.g. 409 AlreadyExists for the default Context, 404 for a missing lock).',
  ];
  if (m.e2e) lines.push(...landscapeNotes(m.e2e, o));
  lines.push(...warmupNotes(o.warmup));
  if (m.rounds.length > 1)
    lines.push(
      `Rounds: ${m.rounds.length}, each the in-process side (a fresh API server and redis-server) and then the landscape`,
      '(a fresh landscape), alternating so that a drift in the machine speed touches both alike; the goals take',
      "the median landscape items/s and the median of the rounds' ratios; the other tables are the median round's",
      "(the responsibility check's: round 1's).",
    );
  lines.push(
    'Responsibility check: `checkItem` of the default config (mock, manifest) on items of type helm, created',
    'by a client (no last-applied annotation). "Before trigger": no deployer-type annotation yet, so the check',
    'reads the item in full; "after": the metadata-only read alone. Bytes read = response bytes at the server.',
  );
  return lines;
}

function landscapeNotes(e: EndToEndResult, o: DeployersOptions): string[] {
  const where =
    e.apiserver === 'bench'
      ? [
          'Landscape: `local/main.ts --kubeconfig` against an embedded API server in this process, counted (the one',
          '`npm start` would run in the landscape process, moved here: it no longer shares that event loop with the',
          'broker, activator and source; `--apiserver landscape` measures that). Items seen finished in the',
          "store's change feed (no requests). Traffic and CPU (every process of the landscape + this process: its",
          'API server, creates) run until the DeployItem gets and writes stop ("requests stopped after"): the',
          'events of the last writes are handled too. Goals: requests and bytes per item include everything the',
          "landscape did meanwhile (the source's watch, the pickup sweep, Pods of replicas); the item's size is the",
          'mean JSON of a finished item as listed; writes = create/update/patch/delete, reads = get/list.',
        ]
      : [
          'Landscape: `local/main.ts` with its own API server in the landscape process (not counted). Items seen',
          `finished by a list every 500 ms (which the landscape's API server serves). CPU = every process of the`,
          'landscape + this process (creates, polls).',
        ];
  return [
    ...where,
    `Fresh state dir, periodic resync off, functions scaled from zero at the start, ${o.concurrency} creates in flight; time =`,
    'first create → last item finished (jobIDFinished == jobID). PingSources on',
    o.embeddedSchedules
      ? 'their sub-minute embedded schedules (--embedded-schedules: requeue-tick every second, cleanup every 30 s).'
      : 'their own schedules, as npm start and Knative run them (requeue-tick and landscaper-monitoring each minute).',
  ];
}

function e2eProblems(e: EndToEndResult): string[] {
  const out: string[] = [];
  if (e.create.errors > 0)
    out.push(`landscape: ${e.create.errors} creates failed; first: ${String(e.create.firstError)}`);
  if (e.timedOut) out.push(`landscape: not every item finished within the timeout`);
  const c = e.completion;
  if (c.succeeded !== e.items)
    out.push(
      `landscape: ${c.succeeded} of ${e.items} Succeeded, ${c.failed} Failed, ${c.other} other` +
        (c.firstOther ? `; e.g. ${c.firstOther}` : ''),
    );
  return out;
}

function roundProblems(r: Round, label: string): string[] {
  const out = r.inProcess.steps
    .filter((s) => s.pool.errors > 0)
    .map(
      (s) => `${label}in-process ${s.step}: ${s.pool.errors} unexpected; first: ${String(s.pool.firstError)}`,
    );
  const c = r.inProcess.completion;
  if (c.succeeded !== r.inProcess.items)
    out.push(
      `${label}in-process: ${c.succeeded} of ${r.inProcess.items} Succeeded; e.g. ${c.firstOther ?? '-'}`,
    );
  if (r.e2e) out.push(...e2eProblems(r.e2e).map((p) => label + p));
  return out;
}

function problems(m: Measured): string[] {
  const out = m.rounds.flatMap((r, k) => roundProblems(r, m.rounds.length > 1 ? `round ${k + 1}: ` : ''));
  for (const s of m.sizes) {
    if (s.before.sent + s.after.sent > 0)
      out.push(`responsibility check of ${s.c.label}: sent ${s.before.sent + s.after.sent} reconcile events`);
  }
  return out;
}

/** Prints the report; the problems found. */
function report(o: DeployersOptions, m: Measured): string[] {
  console.log(
    `Items/s, ${o.items.toLocaleString('en')} mock DeployItems each:\n\n${throughputTable(m.inProcess, m.e2e)}\n`,
  );
  if (m.rounds.length > 1)
    console.log(
      `Rounds (in-process, then the landscape; the detailed tables are round ${m.shown + 1}'s, the median):\n\n` +
        `${roundsTable(m.rounds, m.shown)}\n`,
    );
  if (m.e2e) console.log(`Goals, this run:\n\n${goalTable(m.inProcess, m.e2e, m.rounds)}\n`);
  console.log(
    `API requests and bytes per item, counted at the API server (in-process):\n\n${stepTable(m.inProcess)}\n`,
  );
  console.log(`The same by verb and resource:\n\n${verbTable(m.inProcess)}\n`);
  if (m.e2e?.traffic) {
    console.log(
      'API requests and bytes per item, in-process (create + trigger + check + deploy) vs the landscape',
    );
    console.log(`(first create until the DeployItem requests stop), counted at the API server:\n`);
    console.log(`${sideBySideTraffic(m.inProcess, m.e2e.traffic, m.e2e.items)}\n`);
  }
  console.log(
    `Bytes the responsibility check reads when not responsible (target: 1 MB ÷ 1 KB after trigger = 1.00×):\n`,
  );
  console.log(`${sizeTable(m.sizes)}\n`);
  console.log(`${sizeFindings(m.sizes).join('\n')}\n`);
  console.log(`${notes(m, o).join('\n')}\n`);
  return problems(m);
}

export async function run(argv: string[]): Promise<number> {
  const o = parseOptions(argv);
  if (typeof o !== 'number' && o.only !== undefined) {
    const result = o.only === 'in-process' ? await inProcessSide(o, o.withSizes) : await landscapeSide(o);
    if (o.resultTo !== undefined) await writeFile(o.resultTo, resultJSON(result));
    return 0;
  }
  return runBenchmark(argv, { name: 'deployers', detailed: false, parse: parseOptions, measure, report });
}
