/** The runtime bench's report: Markdown tables with ratios; nothing here judges speed. */
import type { ThroughputResult } from './throughput.js';
import { BARE_IDLE_ID } from './coldstart.js';
import { BARE, variantId, type FunctionVariant } from './variants.js';

/** DESIGN/issue target: cold start ≤ 250 ms p50 for a bundled function. */
export const COLD_START_TARGET_MS = 250;
const MIB = 1024 * 1024;

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

export function fmt(v: number, digits = 0): string {
  if (!Number.isFinite(v)) return '—';
  return v.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '—';
  return `${(a / b).toFixed(2)}×`;
}

export function markdown(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

function size(v: FunctionVariant | undefined): string {
  if (v === undefined) return '—';
  return v.bytes >= MIB ? `${fmt(v.bytes / MIB, 2)} MiB` : `${fmt(v.bytes / 1024, 1)} KiB`;
}

export function coldStartTable(variants: readonly FunctionVariant[], samples: Map<string, number[]>): string {
  const p50 = (id: string): number => percentile(samples.get(id) ?? [], 50);
  const bare = p50(BARE.id);
  const header = [
    'process (spawn → first event acknowledged)',
    'bundle',
    'p50 ms',
    'p90 ms',
    'min ms',
    'max ms',
    `p50 ÷ ${COLD_START_TARGET_MS} ms target`,
    'p50 ÷ node -e 0',
    'p50 ÷ same fn bundled',
  ];
  const row = (id: string, label: string, v?: FunctionVariant): string[] => {
    const s = samples.get(id) ?? [];
    const own = p50(id);
    const bundled = v ? p50(variantId(v.fn, 'bundled')) : NaN;
    return [
      label,
      size(v),
      fmt(own, 1),
      fmt(percentile(s, 90), 1),
      fmt(Math.min(...s), 1),
      fmt(Math.max(...s), 1),
      v ? ratio(own, COLD_START_TARGET_MS) : '—',
      v ? ratio(own, bare) : '—',
      v?.packaging === 'unbundled' ? ratio(own, bundled) : '—',
    ];
  };
  return markdown(header, [
    row(BARE.id, 'node -e 0 (spawn → exit)'),
    ...variants.map((v) => row(v.id, v.id, v)),
  ]);
}

export function memoryTable(variants: readonly FunctionVariant[], samples: Map<string, number[]>): string {
  const median = (id: string): number => percentile(samples.get(id) ?? [], 50);
  const floor = median(variantId('noop', 'bundled'));
  const header = [
    'process (after first event + idle)',
    'RSS MiB (median)',
    'RSS MiB (max)',
    '÷ noop bundled',
  ];
  const row = (id: string): string[] => [
    id,
    fmt(median(id) / MIB, 1),
    fmt(Math.max(...(samples.get(id) ?? [])) / MIB, 1),
    ratio(median(id), floor),
  ];
  return markdown(header, [row(BARE_IDLE_ID), ...variants.map((v) => row(v.id))]);
}

const LABELS: Record<ThroughputResult['side'], string> = {
  direct: 'direct POST → replica',
  broker: 'ingress → broker → Trigger → replica',
};

export function throughputTable(results: readonly ThroughputResult[]): string {
  const direct = results.find((r) => r.side === 'direct');
  const directRate = direct ? (direct.events * 1000) / direct.ms : NaN;
  const header = [
    'path',
    'events',
    'events/s',
    '÷ direct',
    'accepted/s',
    'delivered',
    'lost',
    'retried',
    'dead-lettered',
    'bench process CPU',
    'replica CPU',
  ];
  const body = results.map((r) => {
    const rate = (r.events * 1000) / r.ms;
    return [
      LABELS[r.side],
      fmt(r.events),
      fmt(rate),
      ratio(rate, directRate),
      fmt((r.events * 1000) / r.acceptMs),
      fmt(r.delivered),
      fmt(r.lost),
      fmt(r.retried),
      fmt(r.deadLettered),
      `${fmt((100 * r.benchCpuMs) / r.ms)} %`,
      `${fmt((100 * r.subscriberCpuMs) / r.ms)} %`,
    ];
  });
  return markdown(header, body);
}
