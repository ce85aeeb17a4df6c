/** The prober bench's report: Markdown tables with ratios; nothing here judges speed. */
import { trafficTotal, type TrafficCount } from '@landscape/kube-apiserver/testing';
import { fmt, markdown, ratio } from '../common.js';
import type { PassResult } from './pass.js';

const MIB = 1024 * 1024;
const mib = (b: number): string => fmt(b / MIB, 1);
const per = (v: number, n: number, digits: number): string => fmt(v / n, digits);
const bytes = (c: TrafficCount): number => c.requestBytes + c.responseBytes;
const msPerShoot = (p: PassResult): number => p.ms / p.shoots;
const heapGrowth = (p: PassResult): number => p.memory.heapPeak - p.memory.heapBefore;
const rssGrowth = (p: PassResult): number => p.memory.rssPeak - p.memory.rssBefore;

const label = (p: PassResult): string => `${fmt(p.shoots)} ${p.leases === 'fresh' ? '' : '(leases expired)'}`;

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

/**
 * The figures before issue 16, from the README's run of 2026-11-23 (load 2.8, node v20.20.2,
 * 2 CPUs): the 1,000-shoot tick and the seed requests of a healthy shoot (the probe Secret, the
 * Machines, each dependent's object and scale subresource read per shoot). The code that made
 * them is gone; the README gives the A/B of both codes run alternately on one machine.
 */
export const BEFORE = { date: '2026-11-23', shoots: 1000, tickS: 10.2, seedRequestsPerShoot: 8 } as const;
/** Issue 16's goals: seed requests per healthy shoot per tick, and the tick time against BEFORE. */
export const GOALS = { seedRequestsPerShoot: 2, tickVsBefore: 0.5 } as const;

/** The goals of issue 16 against the fresh pass over BEFORE.shoots shoots (else the largest). */
export function goalTable(passes: readonly PassResult[]): string {
  const fresh = passes.filter((p) => p.leases === 'fresh');
  const p = fresh.find((x) => x.shoots === BEFORE.shoots) ?? fresh[fresh.length - 1];
  if (!p) return 'no fresh tick measured';
  const seedPerShoot = trafficTotal(p.seed).requests / p.shoots;
  const same = p.shoots === BEFORE.shoots;
  const tickS = same ? p.ms / 1000 : msPerShoot(p);
  const beforeTick = same ? BEFORE.tickS : (BEFORE.tickS * 1000) / BEFORE.shoots;
  const unit = same ? `tick s at ${fmt(p.shoots)} shoots` : `ms/shoot at ${fmt(p.shoots)} shoots`;
  const header = ['figure', 'now', `before (README ${BEFORE.date})`, 'now ÷ before', 'goal', 'now ÷ goal'];
  const rows = [
    [
      'seed requests per healthy shoot',
      fmt(seedPerShoot, 3),
      fmt(BEFORE.seedRequestsPerShoot),
      ratio(seedPerShoot, BEFORE.seedRequestsPerShoot),
      `≤ ${GOALS.seedRequestsPerShoot}`,
      ratio(seedPerShoot, GOALS.seedRequestsPerShoot),
    ],
    [
      unit,
      fmt(tickS, 2),
      fmt(beforeTick, 2),
      ratio(tickS, beforeTick),
      `≤ ${GOALS.tickVsBefore.toFixed(2)}× before`,
      ratio(tickS / beforeTick, GOALS.tickVsBefore),
    ],
  ];
  return markdown(header, rows);
}
