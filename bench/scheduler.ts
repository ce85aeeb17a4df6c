/**
 * The shoot scheduler's decision at fleet scale: 1,000 and 10,000 Seeds with 10 bound Shoots per
 * seed (100,000 at the large scale), and a stream of new unbound Shoots decided side by side in
 * one run by
 *
 * - incremental: the product (functions/schedule-shoot/scheduler.ts) with the per-seed counts kept
 *   incrementally (usageDelta after each binding): O(seeds) per decision;
 * - upstream: gardener-scheduler's way, the counts computed per decision from every Shoot in memory
 *   (its informer cache listed), then the same decision: O(seeds + shoots);
 * - function: the schedule-shoot function's own path on a private redis-server, the Seed list it
 *   really does included (./scheduler/function-ways.ts);
 * - function-before: the same function before issue 16 (Seeds listed every 2 s, HGETALL).
 *
 * Prints decisions/s and their ratio to upstream, latency p50/p99, the heap the Seeds, the counts
 * and the Shoots take, the growth from the small to the large fleet, and the function's ratio to
 * upstream next to its goal (≥ 20× at 10,000 seeds / 100,000 shoots). Fails (exit 1) only when the
 * ways disagree on a decision or on the final counts, never because of speed.
 */
import { Command } from 'commander';
import { Redis } from 'ioredis';
import type { Seed } from '../shared/api/core.js';
import { startRedis } from '../local/redis.js';
import { seedUsage } from '../functions/schedule-shoot/scheduler.js';
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
import { buildSeeds, cloudProfiles, prng } from './scheduler/fleet.js';
import { buildNewShoots, buildShoots } from './scheduler/shoots.js';
import { heapAfterGc, jsonBytes, measured, parseMs, redisMemory } from './scheduler/memory.js';
import { runWays, type WayRun } from './scheduler/run.js';
import {
  goalLines,
  growthLines,
  memoryTable,
  outcomeLines,
  speedTable,
  type ScaleResult,
} from './scheduler/table.js';
import { incrementalWay, upstreamWay, type Way, type World } from './scheduler/ways.js';
import {
  functionBeforeWay,
  functionWay,
  SEED_CACHE_TTL_MS,
  type FunctionWay,
} from './scheduler/function-ways.js';

export const description =
  'scheduler: decisions/s and memory with 1,000 / 10,000 seeds (100,000 shoots), counts kept incrementally vs every shoot listed per decision';

interface SchedulerOptions {
  seeds: number[];
  shootsPerSeed: number;
  decisions: number;
  warmup: number;
  chunk: number;
  redis: boolean;
  before: boolean;
  randomSeed: number;
}

/** The options; commander's exit code when it printed the help or a usage error. */
function parseOptions(argv: string[]): SchedulerOptions | number {
  const cmd = new Command('scheduler')
    .description(description)
    .option('--seeds <list>', 'fleet sizes in seeds, comma separated', sizeList, [1000, 10_000])
    .option('--shoots-per-seed <count>', 'shoots bound before the stream, per seed', positiveInt, 10)
    .option('--decisions <count>', 'timed decisions per way and fleet', positiveInt, 500)
    .option('--warmup <count>', 'untimed decisions per way first (JIT)', nonNegativeInt, 50)
    .option('--chunk <count>', 'decisions per way before the next way takes its turn', positiveInt, 50)
    .option('--no-redis', 'leave out the ways through redis-server (the function, now and before)')
    .option('--no-before', 'leave out the function as it was before (Seeds listed every 2 s, HGETALL)')
    .option('--random-seed <n>', 'seed of the data generator', nonNegativeInt, 1);
  return parseCommand<SchedulerOptions>(cmd, argv);
}

/** Counts-map entries measured at once (copies × seeds): one map is small beside the heap's noise. */
const COUNTS_ENTRIES = 1_000_000;
const countsCopies = (seeds: number): number => Math.max(20, Math.round(COUNTS_ENTRIES / seeds));

function sameCounts(a: Record<string, number>, b: Record<string, number>): string | undefined {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if ((a[k] ?? 0) !== (b[k] ?? 0)) return `${k}: ${a[k] ?? 0} vs ${b[k] ?? 0}`;
  }
  return undefined;
}

/** Disagreements of every way with the first (incremental), on outcomes and the final counts. */
async function disagreements(ways: readonly Way[], runs: readonly WayRun[]): Promise<string[]> {
  const out: string[] = [];
  const [base, ...others] = runs;
  const baseCounts = await ways[0].usage();
  for (const [k, r] of others.entries()) {
    const differ = r.outcomes.flatMap((o, i) => (o === base.outcomes[i] ? [] : [i]));
    if (differ.length > 0) {
      const i = differ[0];
      out.push(
        `${r.id} differs from ${base.id} in ${differ.length} of ${r.outcomes.length} decisions; first #${i}: ` +
          `${JSON.stringify(r.outcomes[i])} vs ${JSON.stringify(base.outcomes[i])}`,
      );
    }
    const counts = sameCounts(await ways[k + 1].usage(), baseCounts);
    if (counts) out.push(`${r.id}: final counts differ from ${base.id}'s (${counts})`);
  }
  if (!base.outcomes.some((o) => !o.includes(': ')))
    out.push('no decision scheduled a shoot: nothing was measured');
  return out;
}

function outcomeStats(run: WayRun, warmup: number): Record<string, number> {
  const stats: Record<string, number> = {};
  for (const o of run.outcomes.slice(warmup)) {
    const key = o.includes(': ') ? `failed at ${o.slice(0, o.indexOf(': '))}` : 'scheduled';
    stats[key] = (stats[key] ?? 0) + 1;
  }
  return stats;
}

const nameOf = (s: Seed): string => s.metadata?.name ?? '';

/** The function's ways (each on a database of its own); their set-up times. */
async function functionWays(
  o: SchedulerOptions,
  world: World,
  url: string,
): Promise<{ ways: FunctionWay[]; setup: string }> {
  const ways = [await functionWay(world, url, 0)];
  if (o.before) ways.push(await functionBeforeWay(world, url, 1));
  const { usage, seeds } = ways[0].setupMs;
  const setup = `usage store rebuilt in ${fmt(usage / 1000, 2)} s, Seed cache's first list in ${fmt(seeds / 1000, 2)} s`;
  return { ways, setup };
}

async function scale(
  o: SchedulerOptions,
  seedCount: number,
  client: Redis | undefined,
  url: string | undefined,
): Promise<{ result: ScaleResult; problems: string[] }> {
  const t0 = performance.now();
  const rand = prng(o.randomSeed * 7919 + seedCount);
  heapAfterGc();
  // in the API server's list order (by name), as the function reads them
  const seeds = measured(() => buildSeeds(seedCount, rand).sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1)));
  const shoots = measured(() => buildShoots(seeds.value, seedCount * o.shootsPerSeed, rand));
  // seedUsage's map is Object.fromEntries of its entries; copies of it built the same way
  const counts = seedUsage(shoots.value);
  const copies = countsCopies(seedCount);
  const usage = measured(() =>
    Array.from({ length: copies }, () => Object.fromEntries(Object.entries(counts))),
  );
  const seedsJson = JSON.stringify({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'SeedList',
    items: seeds.value,
  });
  const json = {
    seeds: Buffer.byteLength(seedsJson),
    shoots: jsonBytes(shoots.value),
    seedsParseMs: parseMs(seedsJson, 3),
  };
  const stream = buildNewShoots(o.warmup + o.decisions, rand, 0);
  const world: World = { seeds: seeds.value, shoots: shoots.value, profiles: cloudProfiles(), config: {} };
  const ways: Way[] = [incrementalWay(world), upstreamWay(world)];
  let rebuildMs = NaN;
  let functions: FunctionWay[] = [];
  if (url) {
    const made = await functionWays(o, world, url);
    functions = made.ways;
    rebuildMs = functions[0].setupMs.usage;
    ways.push(...functions);
    console.log(`${fmt(seedCount)} seeds: ${made.setup}`);
  }
  const setupMs = performance.now() - t0;
  console.log(
    `${fmt(seedCount)} seeds, ${fmt(shoots.value.length)} shoots: set up in ${(setupMs / 1000).toFixed(1)} s`,
  );
  const t1 = performance.now();
  const runs = await runWays(ways, stream, { warmup: o.warmup, chunk: o.chunk });
  const runMs = performance.now() - t1;
  const problems = (await disagreements(ways, runs)).map((p) => `${fmt(seedCount)} seeds: ${p}`);
  const memory = client ? await redisMemory(client) : undefined;
  const listsOf = (f: FunctionWay): string => {
    const c = f.seedLists();
    return `${f.id} ${fmt(c.seedLists)} full + ${fmt(c.metadataLists)} metadata`;
  };
  const seedLists = functions.map(listsOf).join(', ');
  for (const w of ways) await w.close();
  console.log(
    `${fmt(seedCount)} seeds: ${ways.length} ways decided ${fmt(stream.length)} shoots each; ${secondsSince(t1)}` +
      (seedLists ? ` (Seed lists, set-up included: ${seedLists})` : ''),
  );
  return {
    result: {
      seeds: seedCount,
      shoots: shoots.value.length,
      heap: { seeds: seeds.bytes, shoots: shoots.bytes, usage: usage.bytes / copies },
      json,
      runs,
      redis: memory ? { rebuildMs, memory } : undefined,
      outcomes: outcomeStats(runs[0], o.warmup),
      setupMs,
      runMs,
      seedLists: Object.fromEntries(functions.map((f) => [f.id, listsOf(f)])),
    },
    problems,
  };
}

function notes(o: SchedulerOptions, scales: readonly ScaleResult[]): string[] {
  const large = scales[scales.length - 1];
  const lines = [
    `Data (deterministic, --random-seed ${o.randomSeed}): Seeds of 4 providers over 17 regions with provider/region/environment`,
    'labels, 5% protected and 3% dedicated taints, 90% with 3 zones, 30% of EU seeds offering eu-access-only, 2% invisible,',
    '1% gardenlet not ready, 0.5% emergency-stopped, 85% with status.allocatable.shoots 8–20 (the rest unlimited);',
    `${o.shootsPerSeed} Shoots per seed bound to random seeds with room, 1% mid-migration (status.seedName another seed, counted on both).`,
    'New shoots: providers by share, random region of the provider (3% a region without seeds), mixed purposes (10% testing:',
    'any region), 30% of production zone-HA, 8% tolerating a taint, 10% of EU shoots wanting eu-access-only, 11% with a',
    'seed selector (1% matching no seed). Strategy SameRegion, no scoring. One CloudProfile per provider.',
    `Each way starts from the same state and decides the same ${fmt(o.warmup)} untimed + ${fmt(o.decisions)} timed shoots, each binding`,
    `changing its own state; chunks of ${o.chunk} decisions per way in rotating order. Outcomes (seed or failing stage and`,
    'message) and the final counts must agree across the ways, else the bench fails.',
    'incremental: decideSchedule over the Seeds and a counts map, then usageDelta of the bound shoot applied ("counts").',
    'upstream: per decision seedUsage (upstream CalculateSeedUsage) over every Shoot in an array ("counts"), then the same',
    'decideSchedule; the bound shoot is appended. Listing an informer cache in Go (controller-runtime deep-copies each',
    'listed object by default) costs more than walking an array, so this is the cheapest upstream can be here.',
    "function: the schedule-shoot function's path (bench/scheduler/function-ways.ts) on a private redis-server: per",
    'decision sync(shoot), the Seeds from the Seed cache in Redis ("seeds": one round trip for what changed; a list of',
    `the Seeds' metadata, then a read of the changed Seeds, whenever its last list is older than seedCacheTtl, ${SEED_CACHE_TTL_MS / 1000} s, the`,
    'default; the first list is a full one), decideReadingCounts ("decide": one pass over the seeds of the shoot\'s',
    'provider and region, "counts": the counts of those that fit, from the instance\'s copy brought up to date in one',
    'script run from the change log (only seeds it never read go out); decideSchedule over every seed only when none',
    'of them has room), reserve, sync(bound shoot); the scripts (EVALSHA) timed as "scripts".',
    'function-before: the function before issue 16: the Seeds listed per instance every 2 s and reused meanwhile,',
    'HGETALL of every count, decideSchedule over every seed. The Seed lists of both are pages of JSON text parsed per',
    "list (the client's share; the API server's encoding and the transfer are not counted). Each way has its own Redis",
    'database; redis-server CPU is not counted. Their usage store is rebuilt first from a full paged Shoot list (timed).',
    'No way reads the Shoot or the CloudProfile from the API or writes the binding or the Event (the same for all).',
    'Memory: heap this process adds for each part after two full GCs (JS objects, not Go structs). The counts map is what',
    `the product keeps beside the Seeds (copies of it, ${fmt(COUNTS_ENTRIES)} entries in all, measured at once and divided:`,
    'one is small beside the noise); upstream keeps every Shoot (and builds a fresh counts map per decision, garbage at',
    "once). GC ms/decision: pauses that started during the way's chunks; a major GC of the whole heap (every Shoot",
    "included) can land in any way's chunk. Up to ~1,000 seeds V8 keeps a counts map a fast object; its copies then share",
    'one shape (hidden classes, a few tens of KiB once), which the per-map figure leaves out.',
    "Redis: MEMORY USAGE of the store's counts hash and of its per-shoot records hash.",
  ];
  if (large) {
    const lists = Object.values(large.seedLists).join(', ');
    lines.push(
      `At ${fmt(large.seeds)} seeds a Seed list is ${fmt(large.json.seeds / 1024 / 1024, 1)} MiB of JSON here, and JSON.parse alone of it takes ` +
        `${fmt(large.json.seedsParseMs, 1)} ms (median of 3); ${fmt(large.shoots)} Shoots are ${fmt(large.json.shoots / 1024 / 1024, 1)} MiB of JSON.` +
        (lists ? ` Seed lists done (the first, untimed, included): ${lists}.` : ''),
    );
  }
  return lines;
}

/** Every fleet size in turn, with one private redis-server (emptied per fleet) unless --no-redis. */
interface Measured {
  scales: ScaleResult[];
  found: string[];
}

async function measure(o: SchedulerOptions): Promise<Measured> {
  const redis = o.redis ? await startRedis() : undefined;
  const undo = redis ? redisOnSignal(redis) : (): void => undefined;
  const client = redis ? new Redis(redis.url) : undefined;
  const scales: ScaleResult[] = [];
  const found: string[] = [];
  try {
    for (const n of o.seeds) {
      const { result, problems } = await scale(o, n, client, redis?.url);
      scales.push(result);
      found.push(...problems);
    }
  } finally {
    client?.disconnect();
    await redis?.stop();
    undo();
  }
  return { scales, found };
}

/** Prints the report; the problems found. */
function report(o: SchedulerOptions, { scales, found }: Measured): string[] {
  console.log(
    `Decisions, side by side (ms per timed decision; "by part" sums to less than mean: the rest is the loop):\n`,
  );
  console.log(`${speedTable(scales)}\n`);
  console.log(`${goalLines(scales).join('\n')}\n`);
  console.log(
    `Outcomes of the timed decisions (the same for every way):\n\n${outcomeLines(scales).join('\n')}\n`,
  );
  console.log(
    `Memory (heap after full GC, this process; Redis per MEMORY USAGE):\n\n${memoryTable(scales)}\n`,
  );
  if (scales.length > 1) console.log(`${growthLines(scales[0], scales[scales.length - 1]).join('\n')}\n`);
  console.log(`${notes(o, scales).join('\n')}\n`);
  return found;
}

export function run(argv: string[]): Promise<number> {
  return runBenchmark(argv, { name: 'scheduler', detailed: true, parse: parseOptions, measure, report });
}
