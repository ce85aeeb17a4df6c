/**
 * Runs the ways side by side over one stream of new shoots: an untimed warm-up over the first
 * shoots, then the rest in chunks, every way deciding the same chunk in turn (the order rotated
 * chunk by chunk, so load that comes and goes hits every way alike). Each decision is timed on
 * its own; garbage-collection pauses (PerformanceObserver `gc`) are charged to the way whose chunk
 * was running when they started.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import type { Shoot } from '../../shared/api/core.js';
import type { Way, WayId } from './ways.js';

export interface WayRun {
  id: WayId;
  label: string;
  /** Milliseconds of each timed decision, in stream order. */
  latencies: Float64Array;
  /** Every outcome, warm-up included, in stream order. */
  outcomes: string[];
  gcMs: number;
  gcCount: number;
  /** Milliseconds per part over the timed decisions. */
  split: Record<string, number>;
}

export interface RunOptions {
  warmup: number;
  chunk: number;
}

interface Interval {
  way: number;
  t0: number;
  t1: number;
}

async function decideAll(
  way: Way,
  shoots: readonly Shoot[],
  out: string[],
  latencies?: Float64Array,
  at = 0,
): Promise<void> {
  for (let i = 0; i < shoots.length; i++) {
    const t0 = performance.now();
    const r = way.decide(shoots[i]);
    const outcome = typeof r === 'string' ? r : await r;
    if (latencies) latencies[at + i] = performance.now() - t0;
    out.push(outcome);
  }
}

export async function runWays(
  ways: readonly Way[],
  stream: readonly Shoot[],
  o: RunOptions,
): Promise<WayRun[]> {
  const warm = stream.slice(0, o.warmup);
  const timedShoots = stream.slice(o.warmup);
  const runs: WayRun[] = ways.map((w) => ({
    id: w.id,
    label: w.label,
    latencies: new Float64Array(timedShoots.length),
    outcomes: [],
    gcMs: 0,
    gcCount: 0,
    split: {},
  }));
  for (let k = 0; k < ways.length; k++) await decideAll(ways[k], warm, runs[k].outcomes);
  const splitBefore = ways.map((w) => ({ ...w.split }));

  const gcs: { start: number; duration: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, duration: e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const intervals: Interval[] = [];
  try {
    for (let c = 0, start = 0; start < timedShoots.length; c++, start += o.chunk) {
      const chunk = timedShoots.slice(start, start + o.chunk);
      for (let j = 0; j < ways.length; j++) {
        const k = (c + j) % ways.length;
        const t0 = performance.now();
        await decideAll(ways[k], chunk, runs[k].outcomes, runs[k].latencies, start);
        intervals.push({ way: k, t0, t1: performance.now() });
        await yieldLoop();
      }
    }
    await yieldLoop();
  } finally {
    observer.disconnect();
  }
  for (const g of gcs) {
    const hit = intervals.find((iv) => g.start >= iv.t0 && g.start < iv.t1);
    if (!hit) continue;
    runs[hit.way].gcMs += g.duration;
    runs[hit.way].gcCount++;
  }
  ways.forEach((w, k) => {
    for (const [part, ms] of Object.entries(w.split)) runs[k].split[part] = ms - (splitBefore[k][part] ?? 0);
  });
  return runs;
}

/** Nearest-rank percentile of the samples. */
export function percentile(samples: Float64Array, p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = Float64Array.from(samples).sort();
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

export function totalMs(samples: Float64Array): number {
  let sum = 0;
  for (const v of samples) sum += v;
  return sum;
}
