/** The scheduler bench's report: Markdown tables with ratios; nothing here judges speed. */
import { fmt, markdown, ratio } from '../common.js';
import { percentile, totalMs, type WayRun } from './run.js';
import type { RedisMemory } from './memory.js';

const MIB = 1024 * 1024;
const mib = (b: number): string => fmt(b / MIB, 1);
const kib = (b: number): string => fmt(b / 1024, 1);

export interface ScaleResult {
  seeds: number;
  shoots: number;
  /** Heap added by each part, bytes (after full GCs). */
  heap: { seeds: number; shoots: number; usage: number };
  json: { seeds: number; shoots: number; seedsParseMs: number };
  runs: WayRun[];
  redis?: { rebuildMs: number; memory: RedisMemory };
  /** Outcomes of the timed decisions: scheduled, or failed by stage. */
  outcomes: Record<string, number>;
  setupMs: number;
  runMs: number;
  /** Seed lists each function way did (its first included), as text per way. */
  seedLists: Record<string, string>;
}

/** The issue-16 goal: the function's path ≥ 20× upstream's decisions/s at 10,000 seeds / 100,000 shoots. */
export const FUNCTION_GOAL = { ratio: 20, seeds: 10_000 };

/** The function's ratio to upstream next to its goal, per fleet size, and before → now when measured. */
export function goalLines(scales: readonly ScaleResult[]): string[] {
  return scales.flatMap((s) => {
    const [fn, up, before] = [runOf(s, 'function'), runOf(s, 'upstream'), runOf(s, 'function-before')];
    if (!fn || !up) return [];
    const got = perSecond(fn) / perSecond(up);
    const goal =
      s.seeds === FUNCTION_GOAL.seeds
        ? ` — goal ≥ ${FUNCTION_GOAL.ratio}× at ${fmt(FUNCTION_GOAL.seeds)} seeds: ${got >= FUNCTION_GOAL.ratio ? 'met' : 'NOT met'}`
        : '';
    const was = before
      ? ` (before: ${ratio(perSecond(before), perSecond(up))}; now ÷ before ${ratio(perSecond(fn), perSecond(before))})`
      : '';
    return [
      `${fmt(s.seeds)} seeds: the function's path ${ratio(perSecond(fn), perSecond(up))} upstream's decisions/s${was}${goal}`,
    ];
  });
}

export const perSecond = (r: WayRun): number => (r.latencies.length / totalMs(r.latencies)) * 1000;
const meanMs = (r: WayRun): number => totalMs(r.latencies) / r.latencies.length;
const runOf = (s: ScaleResult, id: WayRun['id']): WayRun | undefined => s.runs.find((r) => r.id === id);

function splitText(r: WayRun): string {
  const n = r.latencies.length;
  return Object.entries(r.split)
    .map(([part, ms]) => `${part} ${fmt(ms / n, 3)}`)
    .join(', ');
}

export function speedTable(scales: readonly ScaleResult[]): string {
  const header = [
    'seeds',
    'shoots',
    'way',
    'decisions',
    'decisions/s',
    'decisions/s ÷ upstream',
    'mean ms',
    'p50 ms',
    'p99 ms',
    'max ms',
    'ms/decision by part',
    'GC ms/decision',
  ];
  const rows = scales.flatMap((s) => {
    const upstream = runOf(s, 'upstream');
    return s.runs.map((r) => [
      fmt(s.seeds),
      fmt(s.shoots),
      r.id,
      fmt(r.latencies.length),
      fmt(perSecond(r), 1),
      upstream ? ratio(perSecond(r), perSecond(upstream)) : '—',
      fmt(meanMs(r), 3),
      fmt(percentile(r.latencies, 50), 3),
      fmt(percentile(r.latencies, 99), 3),
      fmt(percentile(r.latencies, 100), 3),
      splitText(r),
      fmt(r.gcMs / r.latencies.length, 3),
    ]);
  });
  return markdown(header, rows);
}

export function memoryTable(scales: readonly ScaleResult[]): string {
  const header = [
    'seeds',
    'shoots',
    'Seeds heap MiB',
    'counts map KiB',
    'Shoots heap MiB',
    'KiB/Shoot',
    'product: Seeds + counts MiB',
    'upstream: Seeds + Shoots MiB',
    'upstream ÷ product',
    'Redis counts hash KiB',
    'Redis records hash MiB',
    'store rebuild s',
  ];
  const rows = scales.map((s) => {
    const product = s.heap.seeds + s.heap.usage;
    const upstream = s.heap.seeds + s.heap.shoots;
    return [
      fmt(s.seeds),
      fmt(s.shoots),
      mib(s.heap.seeds),
      kib(s.heap.usage),
      mib(s.heap.shoots),
      fmt(s.heap.shoots / s.shoots / 1024, 2),
      mib(product),
      mib(upstream),
      ratio(upstream, product),
      s.redis ? kib(s.redis.memory.countsBytes) : '—',
      s.redis ? mib(s.redis.memory.recordsBytes) : '—',
      s.redis ? fmt(s.redis.rebuildMs / 1000, 2) : '—',
    ];
  });
  return markdown(header, rows);
}

export function outcomeLines(scales: readonly ScaleResult[]): string[] {
  return scales.map(
    (s) =>
      `${fmt(s.seeds)} seeds: ` +
      Object.entries(s.outcomes)
        .sort(([, a], [, b]) => b - a)
        .map(([k, n]) => `${k} ${fmt(n)}`)
        .join(', '),
  );
}

/** "10,000 vs 1,000 seeds: …" for each way and the heap. */
export function growthLines(small: ScaleResult, large: ScaleResult): string[] {
  const head = `${fmt(large.seeds)} vs ${fmt(small.seeds)} seeds (${ratio(large.seeds, small.seeds)} the seeds and shoots)`;
  const ways = large.runs
    .map((r) => {
      const s = runOf(small, r.id);
      return s ? `${r.id} ${ratio(meanMs(r), meanMs(s))}` : undefined;
    })
    .filter((x): x is string => x !== undefined);
  const heap = (x: ScaleResult, up: boolean): number => x.heap.seeds + (up ? x.heap.shoots : x.heap.usage);
  const upL = runOf(large, 'upstream');
  const inL = runOf(large, 'incremental');
  const upS = runOf(small, 'upstream');
  const inS = runOf(small, 'incremental');
  const speedup =
    upL && inL && upS && inS
      ? ` Incremental ÷ upstream decisions/s: ${ratio(perSecond(inS), perSecond(upS))} at ${fmt(small.seeds)} seeds, ${ratio(perSecond(inL), perSecond(upL))} at ${fmt(large.seeds)}.`
      : '';
  return [
    `${head}: time per decision ${ways.join(', ')}; heap product ${ratio(heap(large, false), heap(small, false))}, upstream ${ratio(heap(large, true), heap(small, true))}.${speedup}`,
  ];
}
