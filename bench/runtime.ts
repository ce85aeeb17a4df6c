/**
 * The serverless runtime, side by side in one run: cold start of one function process (spawn to
 * first CloudEvent acknowledged) bundled (with its code cache, and without) vs unbundled vs bare
 * `node -e 0`, for a no-op function, requeue-tick and deployer-mock; idle memory per
 * instance; events/s through the broker to a no-op function, and straight to it. Prints the
 * results as ratios (the cold-start target is ≤ 250 ms p50 bundled); fails (exit 1) only when an
 * event was lost, never because of speed. Every child process is killed at the end.
 */
import { performance } from 'node:perf_hooks';
import { Command } from 'commander';
import { nonNegativeInt, parseCommand, positiveInt, runBenchmark, secondsSince } from './common.js';
import { ChildSet } from './runtime/children.js';
import { coldStarts, idleMemory, startServing, type PollOptions } from './runtime/coldstart.js';
import { RedisNotInstalledError, startRedis, type TestRedis } from '../local/redis.js';
import { coldStartTable, memoryTable, throughputTable } from './runtime/table.js';
import { measureThroughput, type ThroughputResult } from './runtime/throughput.js';
import { BARE, buildVariants, OUT_DIR, variantId, type FunctionVariant } from './runtime/variants.js';
import { REPLICA_V8_FLAGS } from '../shared/serve/v8-flags.js';

export const description =
  'serverless runtime: cold start bundled (code cache, none) vs unbundled vs node -e 0, idle RSS, events/s through the broker';

interface RuntimeOptions {
  runs: number;
  events: number;
  concurrency: number;
  warmupEvents: number;
  memorySamples: number;
  idleMs: number;
  pollMs: number;
  timeoutMs: number;
  brokerConcurrency?: number;
}

/** The options; commander's exit code when it printed the help or a usage error. */
function parseOptions(argv: string[]): RuntimeOptions | number {
  const cmd = new Command('runtime')
    .description(description)
    .option('--runs <count>', 'cold starts per variant (p50 and p90 reported)', positiveInt, 15)
    .option('--events <count>', 'events per throughput side', positiveInt, 5_000)
    .option('--concurrency <count>', 'events in flight from the load generator', positiveInt, 32)
    .option('--warmup-events <count>', 'unmeasured events before each throughput side', nonNegativeInt, 500)
    .option('--memory-samples <count>', 'idle-memory readings per variant (median reported)', positiveInt, 3)
    .option('--idle-ms <ms>', 'idle time after the first event before RSS is read', positiveInt, 1_000)
    .option('--poll-ms <ms>', 'pause between POST attempts while a process starts', positiveInt, 2)
    .option('--timeout-ms <ms>', 'give up on a process that acknowledges nothing after', positiveInt, 15_000)
    .option(
      '--broker-concurrency <count>',
      "the broker's concurrent deliveries (default: its own)",
      positiveInt,
    );
  return parseCommand<RuntimeOptions>(cmd, argv);
}

function requeueTickEnv(redis: TestRedis | undefined): Record<string, string> {
  // Nothing is due in the empty Redis, so K_SINK is never called.
  const sink = { K_SINK: 'http://127.0.0.1:9/' };
  return redis ? { ...sink, REDIS_URL: redis.url } : sink;
}

/** The deployer's configuration needs a Redis URL; the bench's event is not its own, so it is not used. */
function deployerMockEnv(redis: TestRedis | undefined): Record<string, string> {
  return { REDIS_URL: redis?.url ?? 'redis://127.0.0.1:9/' };
}

function envFor(fn: string, redis: TestRedis | undefined): Record<string, string> {
  if (fn === 'requeue-tick') return requeueTickEnv(redis);
  if (fn === 'deployer-mock') return deployerMockEnv(redis);
  return {};
}

interface Measured {
  redis: boolean;
  variants: FunctionVariant[];
  cold: Map<string, number[]>;
  memory: Map<string, number[]>;
  throughput: ThroughputResult[];
}

async function throughputPhase(
  children: ChildSet,
  noop: FunctionVariant,
  o: RuntimeOptions,
  poll: PollOptions,
): Promise<ThroughputResult[]> {
  const replica = await startServing(children, noop, poll);
  try {
    return await measureThroughput({
      events: o.events,
      concurrency: o.concurrency,
      warmup: o.warmupEvents,
      subscriberUrl: () => Promise.resolve(replica.url.href),
      cpuPids: () => [replica.child.pid],
      ...(o.brokerConcurrency !== undefined ? { brokerConcurrency: o.brokerConcurrency } : {}),
    });
  } finally {
    await children.kill(replica.child);
  }
}

/** A private empty redis-server; undefined when none is installed (the bench says so). */
async function privateRedis(): Promise<TestRedis | undefined> {
  try {
    return await startRedis();
  } catch (err) {
    if (err instanceof RedisNotInstalledError) return undefined;
    throw err;
  }
}

async function measure(children: ChildSet, o: RuntimeOptions): Promise<Measured> {
  const redis = await privateRedis();
  try {
    return await measureWith(children, o, redis);
  } finally {
    await redis?.stop();
  }
}

async function measureWith(
  children: ChildSet,
  o: RuntimeOptions,
  redis: TestRedis | undefined,
): Promise<Measured> {
  const poll: PollOptions = { pollMs: o.pollMs, timeoutMs: o.timeoutMs };
  let t0 = performance.now();
  const variants = await buildVariants((fn) => envFor(fn, redis));
  console.log(`bundles built (and code caches trained) into ${OUT_DIR}/ in ${secondsSince(t0)}`);
  t0 = performance.now();
  const cold = await coldStarts(children, [BARE, ...variants], { ...poll, runs: o.runs, warmupRounds: 1 });
  console.log(`cold starts: ${o.runs} runs × ${variants.length + 1} variants in ${secondsSince(t0)}`);
  t0 = performance.now();
  const memory = await idleMemory(children, variants, {
    ...poll,
    samples: o.memorySamples,
    idleMs: o.idleMs,
  });
  console.log(`idle memory: ${o.memorySamples} samples in ${secondsSince(t0)}`);
  t0 = performance.now();
  const noop = variants.find((v) => v.id === variantId('noop', 'bundled'))!;
  const throughput = await throughputPhase(children, noop, o, poll);
  console.log(`throughput: 2 × ${o.events.toLocaleString('en')} events in ${secondsSince(t0)}`);
  return { redis: redis !== undefined, variants, cold, memory, throughput };
}

function notes(m: Measured, o: RuntimeOptions): string[] {
  return [
    `Cold start: from just before spawn to the first 2xx to a binary-mode CloudEvent POSTed every ${o.pollMs} ms`,
    `(a new connection per attempt); the variants run round-robin, one process at a time, after one unmeasured`,
    `round. Bundles are local/bundle.ts "server" bundles (minified, CommonJS). "bundled" = as a replica and the`,
    `image start it: ${['node', ...REPLICA_V8_FLAGS, '--require preload.cjs server.cjs'].join(' ')}, with the V8 code cache a`,
    `training start (same env and flags, one event) wrote; "bundled, no code cache" = ${['node', ...REPLICA_V8_FLAGS, 'server.cjs'].join(' ')};`,
    `"unbundled" = externalPackages (project code bundled as an ES module, node_modules loaded from disk), the same flags.`,
    `Each process gets only PATH, HOME, PORT, POD_NAME (+ its config env).`,
    m.redis
      ? 'requeue-tick gets REDIS_URL of a private empty redis-server: its first event connects and finds nothing due.'
      : 'requeue-tick: no redis-server on PATH, so its first event is acknowledged as "invalid config" (no Redis I/O).',
    'deployer-mock gets REDIS_URL (and no cluster): the bench event is not a DeployItem event, so its first event',
    'loads its configuration, sets up its instance (cluster client, Redis handle, locker) and is acknowledged as ignored.',
    `Idle memory: VmRSS ${o.idleMs} ms after the process acknowledged its first event (bare node: after spawn),`,
    `all variants running at once, median of ${o.memorySamples}.`,
    `Throughput: ${o.concurrency} requests in flight over keep-alive node:http sockets, ${o.warmupEvents} unmeasured`,
    'events first; the broker side ends when broker.idle() resolves. Load generator, ingress and broker share the',
    'bench process (its CPU is the "bench process CPU" column; 100 % = one core).',
  ];
}

function problems(m: Measured): string[] {
  return m.throughput
    .filter((r) => r.lost > 0 || r.postErrors > 0)
    .map(
      (r) =>
        `${r.side}: ${r.lost} of ${r.events} events lost, ${r.postErrors} POSTs failed` +
        (r.firstPostError !== undefined ? `; first: ${r.firstPostError}` : ''),
    );
}

async function measureAndClean(o: RuntimeOptions): Promise<Measured> {
  const children = new ChildSet();
  try {
    return await measure(children, o);
  } finally {
    await children.close();
  }
}

/** Prints the report; the problems found. */
function report(o: RuntimeOptions, m: Measured): string[] {
  console.log(`Cold start (${o.runs} runs each):\n\n${coldStartTable(m.variants, m.cold)}\n`);
  console.log(`Idle memory per instance:\n\n${memoryTable(m.variants, m.memory)}\n`);
  console.log(`Events/s to the no-op function (bundled, one replica):\n\n${throughputTable(m.throughput)}\n`);
  console.log(`${notes(m, o).join('\n')}\n`);
  return problems(m);
}

export function run(argv: string[]): Promise<number> {
  const b = { name: 'runtime', detailed: false, parse: parseOptions, measure: measureAndClean, report };
  return runBenchmark(argv, b);
}
