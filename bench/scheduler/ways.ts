/**
 * The ways the scheduler bench decides, each keeping its own state from the same start:
 *
 * - incremental (the product): per-seed shoot counts built once, then `decideSchedule` over the
 *   seeds and the counts, and `usageDelta` of the binding applied: O(seeds) per decision;
 * - upstream (gardener-scheduler): per decision the counts are computed from every Shoot (its
 *   informer cache listed: the array walked, CalculateSeedUsage = `seedUsage`), then the same
 *   `decideSchedule`; the bound shoot joins the list: O(seeds + shoots) per decision;
 * - function and function-before: the schedule-shoot function's own path, now and before
 *   (./function-ways.ts).
 *
 * A decision's outcome is the seed name, or `<stage>: <message>` when it fails.
 */
import type { CloudProfile, Seed, Shoot } from '../../shared/api/core.js';
import {
  decideSchedule,
  seedUsage,
  usageDelta,
  type ScheduleDecision,
  type SchedulerConfig,
} from '../../functions/schedule-shoot/scheduler.js';
import { bound } from './shoots.js';

export const WAY_IDS = ['incremental', 'upstream', 'function', 'function-before'] as const;
export type WayId = (typeof WAY_IDS)[number];

export interface World {
  seeds: readonly Seed[];
  /** The shoots bound before the stream starts. */
  shoots: readonly Shoot[];
  profiles: ReadonlyMap<string, CloudProfile>;
  config: SchedulerConfig;
}

export interface Way {
  id: WayId;
  label: string;
  /** One decision for the shoot, binding it on success: the seed name or `<stage>: <message>`. */
  decide(shoot: Shoot): string | Promise<string>;
  /** Milliseconds per part of the decisions so far (e.g. counts, decide). */
  readonly split: Record<string, number>;
  /** Shoots per seed as this way has them now. */
  usage(): Record<string, number> | Promise<Record<string, number>>;
  close(): Promise<void>;
}

export function outcomeOf(decision: ScheduleDecision): string {
  return decision.ok ? decision.seedName : `${decision.stage}: ${decision.message}`;
}

function profileOf(w: World, shoot: Shoot): CloudProfile {
  const name = shoot.spec.cloudProfile?.name ?? shoot.spec.cloudProfileName ?? '';
  const profile = w.profiles.get(name);
  if (!profile) throw new Error(`bench: no cloud profile ${name}`);
  return profile;
}

function applyDelta(usage: Record<string, number>, delta: Record<string, number>): void {
  for (const [seed, d] of Object.entries(delta)) {
    const n = (usage[seed] ?? 0) + d;
    if (n === 0) delete usage[seed];
    else usage[seed] = n;
  }
}

/** Times `fn` into `split[part]`. */
function timed<T>(split: Record<string, number>, part: string, fn: () => T): T {
  const t0 = performance.now();
  const out = fn();
  split[part] = (split[part] ?? 0) + performance.now() - t0;
  return out;
}

export function incrementalWay(w: World): Way {
  const usage = seedUsage(w.shoots);
  const split: Record<string, number> = {};
  return {
    id: 'incremental',
    label: 'product: counts kept incrementally',
    split,
    decide(shoot) {
      const decision = timed(split, 'decide', () =>
        decideSchedule({ shoot, seeds: w.seeds, usage, cloudProfile: profileOf(w, shoot), config: w.config }),
      );
      if (!decision.ok) return outcomeOf(decision);
      timed(split, 'counts', () => applyDelta(usage, usageDelta(shoot, bound(shoot, decision.seedName))));
      return decision.seedName;
    },
    usage: () => ({ ...usage }),
    close: () => Promise.resolve(),
  };
}

export function upstreamWay(w: World): Way {
  const shoots = [...w.shoots];
  const split: Record<string, number> = {};
  return {
    id: 'upstream',
    label: 'upstream: every shoot listed per decision',
    split,
    decide(shoot) {
      const usage = timed(split, 'counts', () => seedUsage(shoots));
      const decision = timed(split, 'decide', () =>
        decideSchedule({ shoot, seeds: w.seeds, usage, cloudProfile: profileOf(w, shoot), config: w.config }),
      );
      if (!decision.ok) return outcomeOf(decision);
      shoots.push(bound(shoot, decision.seedName));
      return decision.seedName;
    },
    usage: () => seedUsage(shoots),
    close: () => Promise.resolve(),
  };
}
