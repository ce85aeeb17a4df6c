/**
 * One tick: for every target, pop the due items (atomically: two tickers never hand an item over
 * twice), emit one `dev.landscape.requeue` event each, and put back what could not be emitted so
 * the next tick tries again. A tick that could not emit everything throws (the event is retried).
 *
 * At most once per pop, at least once per requeue: an item that was popped but whose emit failed
 * is restored at its original time. If the instance dies between pop and restore the item is
 * lost; the periodic resync of every controller covers that window.
 */
import type { Redis } from '../../shared/redis/index.js';
import { buildEvent, type Event } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log/index.js';
import { due, knownTargets, restore, type DueItem } from '../../shared/requeue/index.js';
import type { TickConfig } from './config.js';
import { requeueEvent, targetsToTick } from './decide.js';

export interface TickDeps {
  redis: Redis;
  /** POSTs the event to K_SINK; rejects unless the sink answered 2xx. */
  send: (event: Event) => Promise<void>;
  now: () => Date;
  newId: () => string;
  log: Logger;
}

export interface TickSummary {
  targets: string[];
  emitted: number;
  failed: number;
}

/** Some items could not be emitted; they were put back. Transient: the tick is retried. */
export class TickError extends Error {
  override readonly name = 'TickError';
  readonly transient = true;
}

async function emitBatch(deps: TickDeps, cfg: TickConfig, batch: DueItem[]): Promise<DueItem[]> {
  const now = deps.now();
  const results = await Promise.allSettled(
    batch.map((item) =>
      deps.send(buildEvent(requeueEvent(item, { source: cfg.source, now, id: deps.newId() }))),
    ),
  );
  const failed: DueItem[] = [];
  results.forEach((r, i) => {
    if (r.status === 'rejected') {
      failed.push(batch[i]);
      deps.log.warn('requeue event not delivered', { target: batch[i].target, error: String(r.reason) });
    }
  });
  if (failed.length > 0) await restore(deps.redis, failed);
  return failed;
}

async function tickTarget(
  deps: TickDeps,
  cfg: TickConfig,
  target: string,
): Promise<{ emitted: number; failed: number }> {
  let emitted = 0;
  while (emitted < cfg.maxPerTarget) {
    const limit = Math.min(cfg.batchSize, cfg.maxPerTarget - emitted);
    const batch = await due(deps.redis, target, deps.now(), limit);
    if (batch.length === 0) break;
    const failed = await emitBatch(deps, cfg, batch);
    emitted += batch.length - failed.length;
    if (failed.length > 0) return { emitted, failed: failed.length };
    if (batch.length < limit) break;
  }
  return { emitted, failed: 0 };
}

/** Runs one tick over every target. */
export async function runTick(deps: TickDeps, cfg: TickConfig): Promise<TickSummary> {
  const discovered = cfg.discoverTargets ? await knownTargets(deps.redis) : [];
  const targets = targetsToTick(cfg.targets, discovered, cfg.discoverTargets);
  const summary: TickSummary = { targets, emitted: 0, failed: 0 };
  for (const target of targets) {
    const r = await tickTarget(deps, cfg, target);
    summary.emitted += r.emitted;
    summary.failed += r.failed;
  }
  if (summary.emitted > 0 || summary.failed > 0) deps.log.info('requeue tick', { ...summary });
  if (summary.failed > 0)
    throw new TickError(`${summary.failed} requeue event(s) not delivered; put back for the next tick`);
  return summary;
}
