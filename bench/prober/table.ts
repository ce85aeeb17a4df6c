/** The prober bench's report: Markdown tables with ratios; nothing here judges speed. */
import { trafficTotal, type TrafficCount } from '@landscape/kube-apiserver/testing';
import { fmt, markdown, ratio } from '../common.js';
import type { PassResult } from './pass.js';
import { median } from '../apiserver/ab-stats.js';
import { WAYS, type Way } from './ways.js';

const MIB = 1024 * 1024;
const mib = (b: number): string => fmt(b / MIB, 1);
const per = (v: number, n: number, digits: number): string => fmt(v / n, digits);
const bytes = (c: TrafficCount): number => c.requestBytes + c.responseBytes;
const msPerShoot = (p: PassResult): number => p.ms / p.shoots;
const heapGrowth = (p: PassResult): number => p.memory.heapPeak - p.memory.heapBefore;
const rssGrowth = (p: PassResult): number => p.memory.rssPeak - p.memory.rssBefore;

const label = (p: PassResult): string =>
  [fmt(p.shoots), p.leases === 'fresh' ? '' : '(leases expired)', p.way === 'now' ? '' : p.way]
    .filter((part) => part !== '')
    .join(' ');

export function tickTable(passes: readonly PassResult[], base: PassResult | undefined): string {
  const header = [
    'shoots',
    'probes',
    'tick s',
    'ms/shoot',
    `ms/shoot ÷ ${base ? fmt(base.shoots) : '—'}`,
    'CPU s',
    'seed req/shoot',
    'shoot req/shoot',
    'seed KiB/shoot',
    'shoot KiB/shoot',
    'error answers',
    'Redis cmds/shoot',
    'dependents at 0',
    'states after: flows pending',
  ];
  const rows = passes.map((p) => {
    const seed = trafficTotal(p.seed);
    const shoot = trafficTotal(p.shoot);
    return [
      label(p).trim(),
      fmt(p.summary?.probes ?? NaN),
      fmt(p.ms / 1000, 2),
      fmt(msPerShoot(p), 2),
      base && p.leases === 'fresh' ? ratio(msPerShoot(p), msPerShoot(base)) : '—',
      fmt(p.cpuMs / 1000, 2),
      per(seed.requests, p.shoots, 2),
      per(shoot.requests, p.shoots, 2),
      per(bytes(seed) / 1024, p.shoots, 1),
      per(bytes(shoot) / 1024, p.shoots, 1),
      fmt(seed.errors + shoot.errors),
      per(p.redisCalls, p.shoots, 2),
      `${fmt(p.replicas.zero)} of ${fmt(p.replicas.total)}`,
      Object.entries(p.states)
        .map(([k, n]) => `${k} ×${fmt(n)}`)
        .join(', '),
    ];
  });
  return markdown(header, rows);
}

export function memoryTable(passes: readonly PassResult[], base: PassResult | undefined): string {
  const header = [
    'shoots',
    'RSS before MiB',
    'RSS peak MiB',
    'RSS peak − before MiB',
    'heap before MiB',
    'heap peak MiB',
    'heap peak − before MiB',
    'heap growth KiB/shoot',
    `heap growth ÷ ${base ? fmt(base.shoots) : '—'}`,
    'heap kept after GC MiB',
    'samples',
  ];
  const rows = passes.map((p) => [
    label(p).trim(),
    mib(p.memory.rssBefore),
    mib(p.memory.rssPeak),
    mib(rssGrowth(p)),
    mib(p.memory.heapBefore),
    mib(p.memory.heapPeak),
    mib(heapGrowth(p)),
    per(heapGrowth(p) / 1024, p.shoots, 1),
    base && p.leases === 'fresh' ? ratio(heapGrowth(p), heapGrowth(base)) : '—',
    mib(p.memory.heapAfter - p.memory.heapBefore),
    fmt(p.memory.samples),
  ]);
  return markdown(header, rows);
}

/** "1,000 vs 100 shoots: …" */
export function growthLines(small: PassResult, large: PassResult): string[] {
  const n = `${fmt(large.shoots)} vs ${fmt(small.shoots)} shoots (${ratio(large.shoots, small.shoots)} the shoots)`;
  return [
    `${n}: tick ${ratio(large.ms, small.ms)}, seconds per shoot ${ratio(msPerShoot(large), msPerShoot(small))}, ` +
      `CPU ${ratio(large.cpuMs, small.cpuMs)}; heap growth during the tick ${ratio(heapGrowth(large), heapGrowth(small))}, ` +
      `peak heap ${ratio(large.memory.heapPeak, small.memory.heapPeak)}, peak RSS ${ratio(large.memory.rssPeak, small.memory.rssPeak)}.`,
  ];
}

function keysOf(passes: readonly PassResult[], side: 'seed' | 'shoot'): string[] {
  const keys = new Set<string>();
  for (const p of passes) Object.keys(p[side]).forEach((k) => keys.add(k));
  return [...keys].sort();
}

/** Requests and bytes per shoot by verb and resource, for each pass given. */
export function verbTable(passes: readonly PassResult[]): string {
  const header = [
    'cluster',
    'request',
    ...passes.flatMap((p) => [`${label(p).trim()}: req/shoot`, 'bytes/shoot', 'errors']),
  ];
  const rows: string[][] = [];
  for (const side of ['seed', 'shoot'] as const) {
    for (const key of keysOf(passes, side)) {
      rows.push([
        side,
        key,
        ...passes.flatMap((p) => {
          const c: TrafficCount | undefined = p[side][key];
          return c
            ? [per(c.requests, p.shoots, 3), per(bytes(c), p.shoots, 0), fmt(c.errors)]
            : ['—', '—', '—'];
        }),
      ]);
    }
  }
  return markdown(header, rows);
}

/** Issue 16's goals: seed requests per healthy shoot per tick, and the tick time against the tick before. */
export const GOALS = { seedRequestsPerShoot: 2, tickVsBefore: 0.5 } as const;

/** The ticks of the same-run A/B: probe-tick in each way, alternately, at one fleet size. */
export interface AbRounds {
  shoots: number;
  ticks: Record<Way, PassResult[]>;
}

const seedPerShoot = (p: PassResult): number => trafficTotal(p.seed).requests / p.shoots;
const medianOf = (ps: readonly PassResult[], f: (p: PassResult) => number): number => median(ps.map(f));

/** The A/B's rounds: tick and CPU seconds of each way, now against each other way. */
export function abTable(ab: AbRounds): string {
  const others = WAYS.filter((w) => w !== 'now');
  const header = [
    'round',
    ...WAYS.map((w) => `${w} tick s`),
    ...others.map((w) => `now ÷ ${w}`),
    ...WAYS.map((w) => `${w} CPU s`),
    ...others.map((w) => `CPU now ÷ ${w}`),
    `seed req/shoot ${WAYS.join(' / ')}`,
  ];
  const rows = ab.ticks.now.map((n, i) => {
    const at = (w: Way): PassResult => ab.ticks[w][i];
    return [
      String(i + 1),
      ...WAYS.map((w) => fmt(at(w).ms / 1000, 2)),
      ...others.map((w) => ratio(n.ms, at(w).ms)),
      ...WAYS.map((w) => fmt(at(w).cpuMs / 1000, 2)),
      ...others.map((w) => ratio(n.cpuMs, at(w).cpuMs)),
      WAYS.map((w) => fmt(seedPerShoot(at(w)), 3)).join(' / '),
    ];
  });
  return markdown(header, rows);
}

/** Issue 16's goals: seed requests of the healthy ticks, and the A/B's median tick against the median before. */
export function goalTable(passes: readonly PassResult[], ab: AbRounds | undefined): string {
  const fresh = passes.filter((p) => p.leases === 'fresh' && p.way === 'now');
  const p = fresh[fresh.length - 1];
  if (!p) return 'no fresh tick measured';
  const header = ['figure', 'now', 'before', 'now ÷ before', 'goal', 'now ÷ goal'];
  const seedNow = seedPerShoot(p);
  const before = ab?.ticks.before ?? [];
  const seedBefore = before.length > 0 ? medianOf(before, seedPerShoot) : NaN;
  const rows = [
    [
      `seed requests per healthy shoot (${fmt(p.shoots)} shoots)`,
      fmt(seedNow, 3),
      before.length > 0 ? fmt(seedBefore, 3) : '—',
      ratio(seedNow, seedBefore),
      `≤ ${GOALS.seedRequestsPerShoot}`,
      ratio(seedNow, GOALS.seedRequestsPerShoot),
    ],
  ];
  if (ab && ab.ticks.now.length > 0 && before.length > 0) {
    const nowS = medianOf(ab.ticks.now, (x) => x.ms) / 1000;
    const beforeS = medianOf(before, (x) => x.ms) / 1000;
    rows.push([
      `tick s at ${fmt(ab.shoots)} shoots, median of ${ab.ticks.now.length} rounds`,
      fmt(nowS, 2),
      fmt(beforeS, 2),
      ratio(nowS, beforeS),
      `≤ ${GOALS.tickVsBefore.toFixed(2)}× before`,
      ratio(nowS / beforeS, GOALS.tickVsBefore),
    ]);
  }
  return markdown(header, rows);
}
