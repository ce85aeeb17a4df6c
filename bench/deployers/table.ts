/** The deployers bench's report: Markdown tables with ratios; nothing here judges speed. */
import { trafficTotal, type TrafficCount, type TrafficSnapshot } from '@landscape/kube-apiserver/testing';
import { fmt, markdown, percentile, ratio } from '../common.js';
import type { EndToEndResult } from './e2e.js';
import { RECONCILE_STEPS, type InProcessResult, type StepResult } from './inprocess.js';
import type { SizeResult } from './responsibility.js';

const seconds = (ms: number): string => fmt(ms / 1000, 1);
export const perSecond = (n: number, ms: number): number => (n * 1000) / ms;

/** First create → DeployItem requests stopped, and the items/s over that. */
function untilQuiet(e: EndToEndResult): string {
  if (e.settleMs === undefined) return '—';
  const ms = e.ms + e.settleMs;
  return `${seconds(ms)} (${fmt(perSecond(e.completion.succeeded, ms), 1)})`;
}

/** One round's items/s: in-process, through the landscape, and their ratio (none without a landscape). */
export function roundRates(r: { inProcess: InProcessResult; e2e?: EndToEndResult }): {
  base: number;
  rate?: number;
  ratio?: number;
} {
  const base = perSecond(r.inProcess.items, r.inProcess.ms);
  if (!r.e2e) return { base };
  const rate = perSecond(r.e2e.completion.succeeded, r.e2e.ms);
  return { base, rate, ratio: rate / base };
}

/** The round whose landscape ÷ in-process ratio is the median (the lower middle one of an even count). */
export function medianRound(ratios: readonly number[]): number {
  const order = ratios.map((r, i) => ({ r, i })).sort((a, b) => a.r - b.r || a.i - b.i);
  return order[Math.floor((order.length - 1) / 2)]?.i ?? 0;
}

export function median(values: readonly number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

export function throughputTable(inProcess: InProcessResult, e2e: EndToEndResult | undefined): string {
  const base = perSecond(inProcess.items, inProcess.ms);
  const header = [
    'path',
    'items',
    'create s',
    'total s',
    'items/s',
    '÷ in-process',
    'requests stopped after s (items/s)',
    'item latency p50 / p90 s',
    'CPU s',
    'CPU ms/item',
    'Succeeded',
    'Failed',
    'other',
  ];
  const create = inProcess.steps.find((s) => s.step === 'create')!;
  const rows = [
    [
      'in-process: trigger → check → deployer, called',
      fmt(inProcess.items),
      seconds(create.pool.ms),
      seconds(inProcess.ms),
      fmt(base, 1),
      '1.00×',
      '—',
      '—',
      seconds(inProcess.cpuMs),
      fmt(inProcess.cpuMs / inProcess.items, 1),
      fmt(inProcess.completion.succeeded),
      fmt(inProcess.completion.failed),
      fmt(inProcess.completion.other),
    ],
  ];
  if (e2e) {
    const rate = perSecond(e2e.completion.succeeded, e2e.ms);
    rows.push([
      e2e.apiserver === 'bench'
        ? 'landscape: source → broker → functions as processes (API server in the bench process)'
        : 'landscape: source → broker → functions as processes (API server in the landscape process)',
      fmt(e2e.items),
      seconds(e2e.create.ms),
      seconds(e2e.ms) + (e2e.timedOut ? ' (timed out)' : ''),
      fmt(rate, 1),
      ratio(rate, base),
      untilQuiet(e2e),
      `${seconds(percentile(e2e.latenciesMs, 50))} / ${seconds(percentile(e2e.latenciesMs, 90))}`,
      seconds(e2e.cpuMs),
      fmt(e2e.cpuMs / e2e.items, 1),
      fmt(e2e.completion.succeeded),
      fmt(e2e.completion.failed),
      fmt(e2e.completion.other),
    ]);
  }
  return markdown(header, rows);
}

function sumTraffic(steps: readonly StepResult[]): TrafficSnapshot {
  const out: TrafficSnapshot = {};
  for (const s of steps) {
    for (const [key, c] of Object.entries(s.traffic)) {
      const o = (out[key] ??= { requests: 0, requestBytes: 0, responseBytes: 0, errors: 0 });
      o.requests += c.requests;
      o.requestBytes += c.requestBytes;
      o.responseBytes += c.responseBytes;
      o.errors += c.errors;
    }
  }
  return out;
}

interface Row {
  label: string;
  items: number;
  ms: number;
  traffic: TrafficSnapshot;
}

function rowsOf(r: InProcessResult): Row[] {
  const steps = r.steps.map((s) => ({
    label: s.items === r.items ? s.step : `${s.step} (first ${fmt(s.items)} items)`,
    items: s.items,
    ms: s.pool.ms,
    traffic: s.traffic,
  }));
  const reconcile = r.steps.filter((s) => RECONCILE_STEPS.includes(s.step));
  const sum: Row = {
    label: `per reconcile (${RECONCILE_STEPS.join(' + ')})`,
    items: r.items,
    ms: reconcile.reduce((t, s) => t + s.pool.ms, 0),
    traffic: sumTraffic(reconcile),
  };
  const last = steps.length - 1;
  return [...steps.slice(0, last), sum, steps[last]];
}

const per = (v: number, n: number, digits = 1): string => fmt(v / n, digits);

function countCells(c: TrafficCount, n: number): string[] {
  return [
    per(c.requests, n, 2),
    per(c.requestBytes, n, 0),
    per(c.responseBytes, n, 0),
    per(c.requestBytes + c.responseBytes, n, 0),
    per(c.errors, n, 2),
  ];
}

const COUNT_HEADER = [
  'requests/item',
  'request bytes/item',
  'response bytes/item',
  'bytes/item',
  'error answers/item',
];

export function stepTable(r: InProcessResult): string {
  const header = ['in-process step (all items)', 'items/s', ...COUNT_HEADER];
  const body = rowsOf(r).map((row) => [
    row.label,
    fmt(perSecond(row.items, row.ms), 0),
    ...countCells(trafficTotal(row.traffic), row.items),
  ]);
  return markdown(header, body);
}

export function verbTable(r: InProcessResult): string {
  const header = ['step', 'verb resource', ...COUNT_HEADER];
  const body: string[][] = [];
  // the steps alone: the per-reconcile sum of each key is in stepTable's totals
  for (const row of rowsOf(r).filter((x) => !x.label.startsWith('per reconcile'))) {
    const keys = Object.keys(row.traffic).sort();
    for (const key of keys) body.push([row.label, key, ...countCells(row.traffic[key], row.items)]);
  }
  return markdown(header, body);
}

export function sizeTable(results: readonly SizeResult[]): string {
  const small = results[0];
  const header = [
    'DeployItem (type nobody handles)',
    'stored JSON bytes (after trigger)',
    'before trigger: requests',
    'bytes read',
    '÷ 1 KB',
    'after trigger: requests',
    'bytes read',
    '÷ 1 KB',
    'of which managedFields',
    'median ms before / after',
  ];
  const body = results.map((r) => [
    r.c.label,
    fmt(r.objectBytes),
    fmt(r.before.requests, 0),
    fmt(r.before.responseBytes),
    ratio(r.before.responseBytes, small.before.responseBytes),
    fmt(r.after.requests, 0),
    fmt(r.after.responseBytes),
    ratio(r.after.responseBytes, small.after.responseBytes),
    fmt(r.managedFieldsBytes),
    `${fmt(r.before.medianMs, 2)} / ${fmt(r.after.medianMs, 2)}`,
  ]);
  return markdown(header, body);
}

/** Why an item's metadata-only read costs what it does, in words (never hidden). */
export function sizeFindings(results: readonly SizeResult[]): string[] {
  const small = results[0];
  const out: string[] = [];
  for (const r of results.slice(1)) {
    const extra = r.after.responseBytes - small.after.responseBytes;
    const mf = r.managedFieldsBytes - small.managedFieldsBytes;
    if (extra === 0) {
      out.push(
        `${r.c.label} vs ${small.c.label}, annotated: the same ${fmt(r.after.responseBytes)} bytes read (1.00×).`,
      );
      continue;
    }
    out.push(
      `${r.c.label} vs ${small.c.label}, annotated: ${fmt(extra)} bytes more per check (${ratio(r.after.responseBytes, small.after.responseBytes)}); ` +
        `${fmt(mf)} of them are managedFields (${fmt(r.managedFieldsBytes)} vs ${fmt(small.managedFieldsBytes)} bytes: ` +
        (r.c.shape === 'values'
          ? 'fieldsV1 names every key of spec.config.values the creator set'
          : 'fieldsV1 of the entries differs') +
        `), the other ${fmt(extra - mf)} the rest of the metadata.`,
    );
  }
  return out;
}

/** In-process (create + one reconcile) next to the landscape (everything from first create to quiet), per item. */
export function sideBySideTraffic(r: InProcessResult, theirs: TrafficSnapshot, items: number): string {
  const mine = sumTraffic(r.steps.filter((s) => s.step === 'create' || RECONCILE_STEPS.includes(s.step)));
  const header = [
    'verb resource',
    'in-process requests/item',
    'landscape requests/item',
    '÷',
    'in-process bytes/item',
    'landscape bytes/item',
    '÷',
  ];
  const zero: TrafficCount = { requests: 0, requestBytes: 0, responseBytes: 0, errors: 0 };
  const row = (label: string, a: TrafficCount, b: TrafficCount): string[] => [
    label,
    per(a.requests, r.items, 2),
    per(b.requests, items, 2),
    ratio(b.requests / items, a.requests / r.items),
    per(a.requestBytes + a.responseBytes, r.items, 0),
    per(b.requestBytes + b.responseBytes, items, 0),
    ratio((b.requestBytes + b.responseBytes) / items, (a.requestBytes + a.responseBytes) / r.items),
  ];
  const keys = [...new Set([...Object.keys(mine), ...Object.keys(theirs)])].sort();
  const body = keys.map((k) => row(k, mine[k] ?? zero, theirs[k] ?? zero));
  body.push(row('total', trafficTotal(mine), trafficTotal(theirs)));
  return markdown(header, body);
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** The landscape's traffic per item split into writes, reads (get, list) and watch. */
function split(t: TrafficSnapshot, items: number): Record<'writes' | 'reads' | 'watch', TrafficCount> {
  const zero = (): TrafficCount => ({ requests: 0, requestBytes: 0, responseBytes: 0, errors: 0 });
  const out = { writes: zero(), reads: zero(), watch: zero() };
  for (const [key, c] of Object.entries(t)) {
    const verb = key.split(' ')[0];
    const o = WRITE_VERBS.has(verb) ? out.writes : verb === 'watch' ? out.watch : out.reads;
    o.requests += c.requests / items;
    o.requestBytes += c.requestBytes / items;
    o.responseBytes += c.responseBytes / items;
    o.errors += c.errors / items;
  }
  return out;
}

const bytesOf = (c: TrafficCount): number => c.requestBytes + c.responseBytes;

/**
 * Issue 16's goals for the deployers, next to what this run measured, as ratios (value ÷ goal:
 * ≤ 1.00× meets an upper bound, ≥ 1.00× a lower one). Only with the landscape counted.
 */
export function goalTable(
  inProcess: InProcessResult,
  e: EndToEndResult,
  rounds: readonly { inProcess: InProcessResult; e2e?: EndToEndResult }[] = [{ inProcess, e2e: e }],
): string {
  const n = e.completion.succeeded || e.items;
  const t = e.traffic ? split(e.traffic, n) : undefined;
  const rates = rounds.map(roundRates);
  const rate = median(rates.flatMap((r) => (r.rate === undefined ? [] : [r.rate])));
  const relative = median(rates.flatMap((r) => (r.ratio === undefined ? [] : [r.ratio])));
  const of = rounds.length > 1 ? `, median of ${rounds.length} rounds` : '';
  const rows: string[][] = [];
  if (t) {
    const requests = t.writes.requests + t.reads.requests + t.watch.requests;
    const bytes = bytesOf(t.writes) + bytesOf(t.reads) + bytesOf(t.watch);
    const allowed = 3 * e.itemBytes + bytesOf(t.writes);
    rows.push(
      [
        'API requests per item (landscape, first create → quiet)',
        fmt(requests, 2),
        '≤ 10',
        ratio(requests, 10),
        'upper',
      ],
      [
        `  of them writes / reads (get, list) / watch`,
        `${fmt(t.writes.requests, 2)} / ${fmt(t.reads.requests, 2)} / ${fmt(t.watch.requests, 2)}`,
        'reads ≤ 3',
        ratio(t.reads.requests, 3),
        'upper',
      ],
      [
        `bytes per item (writes ${fmt(bytesOf(t.writes))}, reads ${fmt(bytesOf(t.reads))}, watch ${fmt(bytesOf(t.watch))})`,
        fmt(bytes),
        `≤ 3 × item (${fmt(e.itemBytes)}) + writes = ${fmt(allowed)}`,
        ratio(bytes, allowed),
        'upper',
      ],
    );
  }
  rows.push(
    [
      `mock items/s through the landscape${of}`,
      fmt(rate, 1),
      '≥ 150 (quiet 2-core machine)',
      ratio(rate, 150),
      'lower',
    ],
    [
      `landscape ÷ in-process items/s (same run${of})`,
      `${relative.toFixed(2)}×`,
      '≥ 0.90×',
      ratio(relative, 0.9),
      'lower',
    ],
  );
  return markdown(['goal (issue 16)', 'measured', 'goal', 'measured ÷ goal', 'bound'], rows);
}
