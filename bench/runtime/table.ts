/** The runtime bench's report: Markdown tables with ratios; nothing here judges speed. */
import { fmt, markdown, percentile, ratio } from '../common.js';
import type { ThroughputResult } from './throughput.js';
import { BARE_IDLE_ID } from './coldstart.js';
import { BARE, variantId, type FunctionVariant } from './variants.js';

/** DESIGN/issue target: cold start ≤ 250 ms p50 for a bundled function. */
export const COLD_START_TARGET_MS = 250;

/**
 * Issue 16's goals, p50 of the `bundled` row ÷ p50 of `node -e 0` in the same run: ≤ 2× for the
 * no-op function, ≤ 3× for the real ones.
 */
export function coldStartGoal(fn: string): number {
  return fn === 'noop' ? 2 : 3;
}
const MIB = 1024 * 1024;
/** Issue 16: idle RSS ≤ 64 MB per replica. */
export const IDLE_RSS_GOAL_MIB = 64;

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
    'goal',
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
      v?.packaging === 'bundled' ? `≤ ${coldStartGoal(v.fn)}×` : '—',
      v && v.packaging !== 'bundled' ? ratio(own, bundled) : '—',
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
    `÷ ${IDLE_RSS_GOAL_MIB} MiB goal`,
  ];
  const row = (id: string): string[] => [
    id,
    fmt(median(id) / MIB, 1),
    fmt(Math.max(...(samples.get(id) ?? [])) / MIB, 1),
    ratio(median(id), floor),
    id === BARE_IDLE_ID ? '—' : ratio(median(id), IDLE_RSS_GOAL_MIB * MIB),
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
