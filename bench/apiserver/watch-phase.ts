/**
 * Watch delivery: W watches from the current resourceVersion, then N updates; every watcher
 * must see the MODIFIED event of every update (matched by resourceVersion). The watches are the
 * client's under test; the updates go through `writer` (the raw keep-alive client on both sides,
 * so that the watch row compares event delivery, not the update path measured in its own row).
 */
import type { BenchClient } from './clients.js';
import { runPool, type PoolResult } from './pool.js';

export interface WatchPhaseOptions {
  n: number;
  concurrency: number;
  watchers: number;
  /** resourceVersion of each object (updated in place). */
  rvs: string[];
  name: (i: number) => string;
  /** Give up when no watcher has received anything for this long after the updates. */
  stallMs?: number;
}

export interface WatchResult {
  pool: PoolResult;
  /** Events that should have reached the watchers: updates that succeeded × watchers. */
  expected: number;
  received: number;
  lost: number;
  /** Events delivered per second, from the first update to the last event received. */
  eventsPerSec: number;
  /** Watch streams that failed or closed early. */
  streamErrors: number;
  firstStreamError?: unknown;
}

interface Watcher {
  seen: Set<string>;
  lastAt: number;
}

function waitForDelivery(watchers: Watcher[], expected: number, stallMs: number): Promise<void> {
  return new Promise((resolve) => {
    let progress = -1;
    let progressAt = performance.now();
    const tick = (): void => {
      const total = watchers.reduce((s, w) => s + w.seen.size, 0);
      if (watchers.every((w) => w.seen.size >= expected)) return resolve();
      if (total !== progress) {
        progress = total;
        progressAt = performance.now();
      } else if (performance.now() - progressAt > stallMs) return resolve();
      setTimeout(tick, 10);
    };
    tick();
  });
}

export async function runWatchPhase(
  client: BenchClient,
  writer: BenchClient,
  opts: WatchPhaseOptions,
): Promise<WatchResult> {
  const from = await writer.currentResourceVersion();
  const watchers: Watcher[] = Array.from({ length: opts.watchers }, () => ({ seen: new Set(), lastAt: 0 }));
  let streamErrors = 0;
  let firstStreamError: unknown;
  const stops = await Promise.all(
    watchers.map((w) =>
      client.watch(
        from,
        (e) => {
          if (e.type !== 'MODIFIED') return;
          w.seen.add(e.resourceVersion);
          w.lastAt = performance.now();
        },
        (err) => {
          streamErrors++;
          firstStreamError ??= err;
        },
      ),
    ),
  );
  const written = new Set<string>();
  const start = performance.now();
  const pool = await runPool(opts.n, opts.concurrency, async (i) => {
    const rv = await writer.update(opts.name(i), i, opts.rvs[i], 2);
    opts.rvs[i] = rv;
    written.add(rv);
  });
  await waitForDelivery(watchers, written.size, opts.stallMs ?? 10_000);
  for (const stop of stops) stop();
  let received = 0;
  for (const w of watchers) for (const rv of written) if (w.seen.has(rv)) received++;
  const end = Math.max(start + pool.ms, ...watchers.map((w) => w.lastAt));
  const expected = written.size * opts.watchers;
  return {
    pool: { ...pool, ms: end - start },
    expected,
    received,
    lost: expected - received,
    eventsPerSec: (received * 1000) / (end - start),
    streamErrors,
    firstStreamError,
  };
}
