/**
 * API server throughput and memory, through `@kubernetes/client-node` 1.4 as it is (a new TLS
 * connection per request) and through raw requests over one keep-alive `node:https` Agent, side
 * by side in one run. Each side gets a fresh server process of its own. Prints the results; fails
 * (exit 1) only when an operation errored or a watch event was lost, never because of speed.
 */
import { Command } from 'commander';
import { hostLine, parseCommand, positiveInt, watchLoad } from './common.js';
import { PHASES, runSide, SIDES, type SideOptions, type SideResult } from './apiserver/phases.js';
import { cpuTable, resultsTable } from './apiserver/table.js';

export const description =
  'embedded API server: creates/gets/updates/list/watch/deletes of ConfigMaps, client-node vs raw keep-alive';

/** The options; commander's exit code when it printed the help or a usage error. */
function parseOptions(argv: string[]): SideOptions | number {
  const cmd = new Command('apiserver')
    .description(description)
    .option('--n <count>', 'objects per side', positiveInt, 10_000)
    .option('--concurrency <count>', 'requests in flight', positiveInt, 16)
    .option('--watchers <count>', 'concurrent watches in the watch phase', positiveInt, 10)
    .option('--list-repeats <count>', 'lists of all N objects (the median is reported)', positiveInt, 5)
    .option('--server-cpu-prof <dir>', 'write a V8 CPU profile of each server process into <dir>');
  const o = parseCommand<{
    n: number;
    concurrency: number;
    watchers: number;
    listRepeats: number;
    serverCpuProf?: string;
  }>(cmd, argv);
  if (typeof o === 'number') return o;
  return {
    n: o.n,
    concurrency: o.concurrency,
    watchers: o.watchers,
    listRepeats: o.listRepeats,
    cpuProfDir: o.serverCpuProf,
  };
}

function problems(r: SideResult): string[] {
  const out = PHASES.filter((p) => r.phases[p].errors > 0).map(
    (p) =>
      `${r.side} ${p}: ${r.phases[p].errors} operations failed; first: ${String(r.phases[p].firstError)}`,
  );
  if (r.watch.lost > 0) out.push(`${r.side} watch: ${r.watch.lost} of ${r.watch.expected} events lost`);
  if (r.watch.streamErrors > 0)
    out.push(
      `${r.side} watch: ${r.watch.streamErrors} streams failed; first: ${String(r.watch.firstStreamError)}`,
    );
  if (!r.gcAvailable)
    out.push(`${r.side}: global.gc missing in the server process; memory figures are noise`);
  return out;
}

const NOTES = [
  'client-node 1.4 makes a new https.Agent, so a new TLS connection, for every request; raw keeps one Agent alive.',
  'The watch phase writes its N updates through the raw client on both sides: that row compares event delivery',
  '(client-node Watch vs raw streams), the update path has its own row. Lost = expected − received, by resourceVersion.',
  'Memory is the server process after a full GC, before and after the creates (the watch history of the last',
  '10,000 events included). Each ConfigMap carries 2 labels and 3 data keys (~300 bytes of JSON).',
];

export async function run(argv: string[]): Promise<number> {
  const opts = parseOptions(argv);
  if (typeof opts === 'number') return opts;
  console.log(`# apiserver benchmark`);
  console.log(hostLine());
  console.log(
    `N = ${opts.n.toLocaleString('en')} ConfigMaps per side, ${opts.concurrency} requests in flight, ${opts.watchers} watchers; ` +
      `each side against a fresh server process\n`,
  );
  const loadLine = watchLoad('1');
  const results: SideResult[] = [];
  for (const side of SIDES) {
    const t0 = performance.now();
    results.push(await runSide(side, opts));
    console.log(`${side}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const [cn, raw] = results;
  console.log(loadLine());
  console.log(`\n${resultsTable(cn, raw, opts.n, opts.watchers)}\n`);
  console.log('Where the CPU went (% of one core, over the phase wall time):\n');
  console.log(`${cpuTable(results)}\n`);
  console.log(`${NOTES.join('\n')}\n`);
  const found = results.flatMap(problems);
  for (const p of found) console.error(`FAIL ${p}`);
  return found.some((p) => !p.includes('global.gc')) ? 1 : 0;
}
