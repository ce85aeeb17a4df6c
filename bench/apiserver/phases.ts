/**
 * One side of the benchmark: a fresh API server process, one client, and the phases in order
 * (create, get, update, list, watch, delete), each timed with the CPU both processes spent.
 */
import { clientNodeClient, rawClient, type BenchClient } from './clients.js';
import { runPool, type PoolResult } from './pool.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { runWatchPhase, type WatchResult } from './watch-phase.js';

export const SIDES = ['client-node', 'raw'] as const;
export type Side = (typeof SIDES)[number];

export function isSide(v: unknown): v is Side {
  return typeof v === 'string' && (SIDES as readonly string[]).includes(v);
}

export const PHASES = ['create', 'get', 'update', 'list', 'watch', 'delete'] as const;
export type Phase = (typeof PHASES)[number];

export interface SideOptions {
  n: number;
  concurrency: number;
  watchers: number;
  listRepeats: number;
  cpuProfDir?: string;
}

export interface PhaseStat {
  ms: number;
  ops: number;
  errors: number;
  firstError?: unknown;
  /** CPU time of the server (and of the benchmark's own process) over the wall time, in % of one core. */
  serverCpuPct: number;
  clientCpuPct: number;
}

export interface SideResult {
  side: Side;
  phases: Record<Phase, PhaseStat>;
  /** Median wall time of one list of all N objects. */
  listMs: number;
  watch: WatchResult;
  heapPer10k: number;
  rssPer10k: number;
  gcAvailable: boolean;
}

const NAMESPACE = 'bench';

export function objectName(i: number): string {
  return `cm-${String(i).padStart(6, '0')}`;
}

async function timed(server: ServerProcess, ops: number, run: () => Promise<PoolResult>): Promise<PhaseStat> {
  const s0 = await server.usage(false);
  const c0 = process.cpuUsage();
  const r = await run();
  const s1 = await server.usage(false);
  const c1 = process.cpuUsage(c0);
  return {
    ms: r.ms,
    ops,
    errors: r.errors,
    firstError: r.firstError,
    serverCpuPct: (s1.cpuMicros - s0.cpuMicros) / 10 / r.ms,
    clientCpuPct: (c1.user + c1.system) / 10 / r.ms,
  };
}

async function listRepeatedly(client: BenchClient, opts: SideOptions, times: number[]): Promise<PoolResult> {
  return runPool(opts.listRepeats, 1, async () => {
    const t0 = performance.now();
    const count = await client.list();
    times.push(performance.now() - t0);
    if (count !== opts.n) throw new Error(`list returned ${count} objects, expected ${opts.n}`);
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

interface Clients {
  /** The client under test. */
  client: BenchClient;
  /** The raw keep-alive client, for the updates of the watch phase. */
  writer: BenchClient;
}

async function runPhases(
  server: ServerProcess,
  { client, writer }: Clients,
  side: Side,
  opts: SideOptions,
): Promise<SideResult> {
  const { n, concurrency } = opts;
  const rvs: string[] = new Array<string>(n).fill('');
  const before = await server.usage(true);
  const create = await timed(server, n, () =>
    runPool(n, concurrency, async (i) => {
      rvs[i] = await client.create(objectName(i), i);
    }),
  );
  const after = await server.usage(true);
  const get = await timed(server, n, () =>
    runPool(n, concurrency, async (i) => {
      rvs[i] = await client.get(objectName(i));
    }),
  );
  const update = await timed(server, n, () =>
    runPool(n, concurrency, async (i) => {
      rvs[i] = await client.update(objectName(i), i, rvs[i], 1);
    }),
  );
  const listTimes: number[] = [];
  const list = await timed(server, opts.listRepeats, () => listRepeatedly(client, opts, listTimes));
  let watch: WatchResult | undefined;
  const watchStat = await timed(server, n, async () => {
    watch = await runWatchPhase(client, writer, { ...opts, rvs, name: objectName });
    return watch.pool;
  });
  const del = await timed(server, n, () => runPool(n, concurrency, (i) => client.delete(objectName(i))));
  return {
    side,
    phases: { create, get, update, list, watch: watchStat, delete: del },
    listMs: median(listTimes),
    watch: watch!,
    heapPer10k: ((after.heapUsed - before.heapUsed) * 10_000) / n,
    rssPer10k: ((after.rss - before.rss) * 10_000) / n,
    gcAvailable: after.gcAvailable,
  };
}

/** Runs every phase for one side against a fresh server process. */
export async function runSide(side: Side, opts: SideOptions): Promise<SideResult> {
  const server = await startServerProcess({ cpuProfDir: opts.cpuProfDir });
  const admin = rawClient(server.kubeconfig, NAMESPACE);
  const client = side === 'raw' ? admin : clientNodeClient(server.kubeconfig, NAMESPACE);
  try {
    await admin.createNamespace();
    return await runPhases(server, { client, writer: admin }, side, opts);
  } finally {
    client.close();
    admin.close();
    await server.stop();
  }
}
