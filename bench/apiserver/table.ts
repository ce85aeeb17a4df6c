/** The report: one Markdown table of the metrics side by side, and one of where the CPU went. */
import { fmt, markdown, ratio } from '../common.js';
import { PHASES, type SideResult } from './phases.js';

/** Issue text: "at least 2,000 writes/s on these 2-core machines" (a benchmark target, not a test). */
export const WRITE_TARGET_PER_SEC = 2_000;

type Better = 'higher' | 'lower';

interface Row {
  metric: string;
  value: (r: SideResult) => number;
  digits: number;
  better: Better;
  /** A target in the metric's unit, for the writes. */
  target?: number;
  targetText?: string;
}

const perSec = (phase: 'create' | 'get' | 'update' | 'delete') => (r: SideResult) =>
  (r.phases[phase].ops * 1000) / r.phases[phase].ms;
const MIB = 1024 * 1024;

function rows(n: number, watchers: number): Row[] {
  const write = {
    target: WRITE_TARGET_PER_SEC,
    targetText: `≥ ${WRITE_TARGET_PER_SEC.toLocaleString('en')} writes/s`,
  };
  return [
    { metric: 'creates/s', value: perSec('create'), digits: 0, better: 'higher', ...write },
    { metric: 'gets/s', value: perSec('get'), digits: 0, better: 'higher' },
    {
      metric: 'updates/s (PUT with resourceVersion)',
      value: perSec('update'),
      digits: 0,
      better: 'higher',
      ...write,
    },
    {
      metric: `list of all ${n.toLocaleString('en')} (ms, median)`,
      value: (r) => r.listMs,
      digits: 1,
      better: 'lower',
    },
    {
      metric: `watch events/s delivered (${watchers} watchers)`,
      value: (r) => r.watch.eventsPerSec,
      digits: 0,
      better: 'higher',
    },
    { metric: 'watch events lost', value: (r) => r.watch.lost, digits: 0, better: 'lower', targetText: '0' },
    { metric: 'deletes/s', value: perSec('delete'), digits: 0, better: 'higher', ...write },
    {
      metric: 'heap used Δ per 10,000 objects (MiB)',
      value: (r) => r.heapPer10k / MIB,
      digits: 1,
      better: 'lower',
    },
    { metric: 'RSS Δ per 10,000 objects (MiB)', value: (r) => r.rssPer10k / MIB, digits: 1, better: 'lower' },
  ];
}

export function resultsTable(cn: SideResult, raw: SideResult, n: number, watchers: number): string {
  const header = [
    'metric',
    'client-node',
    'raw keep-alive',
    'client-node/raw',
    'target',
    'client-node/target',
    'raw/target',
  ];
  const body = rows(n, watchers).map((row) => {
    const a = row.value(cn);
    const b = row.value(raw);
    return [
      row.metric,
      fmt(a, row.digits),
      fmt(b, row.digits),
      row.metric.includes('lost') ? '—' : ratio(a, b),
      row.targetText ?? '—',
      row.target ? ratio(a, row.target) : '—',
      row.target ? ratio(b, row.target) : '—',
    ];
  });
  return markdown(header, body);
}

export function cpuTable(results: SideResult[]): string {
  const header = [
    'phase',
    ...results.flatMap((r) => [`${r.side} wall (ms)`, `${r.side} server CPU`, `${r.side} client CPU`]),
  ];
  const body = PHASES.map((phase) => [
    phase,
    ...results.flatMap((r) => {
      const p = r.phases[phase];
      return [fmt(p.ms, 0), `${fmt(p.serverCpuPct, 0)} %`, `${fmt(p.clientCpuPct, 0)} %`];
    }),
  ]);
  return markdown(header, body);
}
