/** The deployers bench's rounds: each round's items/s side by side, with each side's warm-up from zero. */
import { fmt, markdown } from '../common.js';
import type { EndToEndResult } from './e2e.js';
import type { InProcessResult } from './inprocess.js';
import { median, perSecond, roundRates } from './table.js';

/** Each side's warm-up items/s (from zero: the landscape's cold starts and every process's first compiles). */
export function warmupRates(r: { inProcess: InProcessResult; e2e?: EndToEndResult }): {
  base?: number;
  rate?: number;
  ratio?: number;
} {
  const i = r.inProcess;
  const base = i.warmupMs !== undefined && i.warmupItems ? perSecond(i.warmupItems, i.warmupMs) : undefined;
  const e = r.e2e;
  const rate = e?.warmupMs !== undefined && e.warmupItems ? perSecond(e.warmupItems, e.warmupMs) : undefined;
  return {
    ...(base !== undefined ? { base } : {}),
    ...(rate !== undefined ? { rate } : {}),
    ...(base !== undefined && rate !== undefined ? { ratio: rate / base } : {}),
  };
}

const orDash = (v: number | undefined, f: (v: number) => string): string => (v === undefined ? '—' : f(v));
const items1 = (v: number): string => fmt(v, 1);
const times = (v: number): string => `${v.toFixed(2)}×`;
const medianOf = (vs: readonly (number | undefined)[]): number | undefined => {
  const some = vs.filter((v): v is number => v !== undefined);
  return some.length ? median(some) : undefined;
};

/** Each round's items/s side by side, and the medians the goals take. */
export function roundsTable(
  rounds: readonly { inProcess: InProcessResult; e2e?: EndToEndResult }[],
  shown: number,
): string {
  const rates = rounds.map(roundRates);
  const warm = rounds.map(warmupRates);
  const withWarmup = warm.some((w) => w.base !== undefined);
  const warmCells = (w: ReturnType<typeof warmupRates>): string[] =>
    withWarmup ? [orDash(w.base, items1), orDash(w.rate, items1), orDash(w.ratio, times)] : [];
  const rows = rates.map((r, k) => [
    `${k + 1}${k === shown ? ' (shown)' : ''}`,
    fmt(r.base, 1),
    orDash(r.rate, items1),
    orDash(r.ratio, times),
    ...warmCells(warm[k]),
  ]);
  rows.push([
    'median',
    fmt(median(rates.map((r) => r.base)), 1),
    orDash(medianOf(rates.map((r) => r.rate)), items1),
    orDash(medianOf(rates.map((r) => r.ratio)), times),
    ...warmCells({
      base: medianOf(warm.map((w) => w.base)),
      rate: medianOf(warm.map((w) => w.rate)),
      ratio: medianOf(warm.map((w) => w.ratio)),
    }),
  ]);
  const header = ['round', 'in-process items/s', 'landscape items/s', 'landscape ÷ in-process'];
  if (withWarmup)
    header.push('warm-up from zero: in-process items/s', 'landscape items/s', 'landscape ÷ in-process');
  return markdown(header, rows);
}

/** What the report says of the warm-up. */
export function warmupNotes(warmup: number): string[] {
  if (warmup === 0) return ['No warm-up (--warmup 0): each side is measured from zero.'];
  return [
    `Warm-up: each side first takes ${warmup.toLocaleString('en')} items of its own (another namespace), unmeasured, then the measured`,
    "ones: the landscape's replicas started and every process's code compiled (V8's optimizing compiles of four fresh",
    'processes were ≈ 13 % of the CPU samples in a 1,000-item landscape run from zero: perf, 2026-11-29), as in a landscape',
    "that has been running; cold starts are the runtime bench's figures. The rounds table's warm-up columns are those",
    'items, from zero.',
  ];
}
