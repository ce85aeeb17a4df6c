/**
 * The decision reading the counts of the seeds it needs only (the function: ./usage.ts countsOf,
 * the instance's copy of the counts in Redis, kept by the change log), the same decision as
 * ./scheduler.ts decideSchedule with every count (table-tested against it on random worlds):
 *
 * 1. the fast path (./scheduler-fast.ts): a seed of the strategy's pool that fits and has room;
 * 2. else, when the fast path applies (no scoring, SameRegion or a testing shoot, selectors that
 *    convert), no seed of the pool can take the shoot, so the decision fails, and one pass over
 *    every seed finds where: each seed's first failing stage of 1–8 (per-seed predicates, the
 *    domain stage's decided by the seeds with default domains) gives the seeds each stage was
 *    given; the first stage that keeps none fails, its message from its own filter run on the
 *    seeds it was given. When stages 1–8 keep some, stage 9 (candidates) keeps one if any of them
 *    has no problem: then the strategy fails (its message names no seed); else stage 9 fails,
 *    listing every problem (the counts of all its seeds read);
 * 3. else (scoring, MinimalDistance for a shoot not for testing) decideSchedule with the counts of
 *    the seeds that reach stage 9 (the candidates stage and the pick read no others).
 */
import type { Seed } from '../../shared/api/core.js';
import {
  decideSchedule,
  fail,
  applyStrategy,
  activeScoring,
  regionConfigExtra,
  DEFAULT_CANDIDATE_DETERMINATION_STRATEGY,
  type ScheduleDecision,
} from './scheduler.js';
import {
  FILTERS,
  isEmergencyStopped,
  seedRefusesShootDns,
  taintsTolerated,
  type FilterContext,
} from './scheduler-filters.js';
import {
  domainMatcher,
  fastPlan,
  networksMatcher,
  seedsReachingCandidates,
  shootCapacity,
  stagePredicates,
  usable,
  type CountsOf,
  type Matcher,
  type PlanInput,
} from './scheduler-fast.js';

const nameOf = (seed: Seed): string => seed.metadata?.name ?? '';

/** Stage 9's checks but capacity. */
function fitsBesidesCapacity(input: PlanInput): Matcher {
  const networksFit = networksMatcher(input.shoot);
  return (seed) =>
    networksFit(seed) && !seedRefusesShootDns(seed, input.shoot) && taintsTolerated(seed, input.shoot);
}

/** Each seed's first failing stage of 1–8 (index into FILTERS), 8 when it passes them all. */
function firstFailures(input: PlanInput): number[] {
  const { matchers } = stagePredicates(input);
  const beforeDomain: Matcher = (seed) => usable(seed) && matchers.every((m) => m(seed));
  const inDomain = domainMatcher(input, beforeDomain);
  const predicates: Matcher[] = [usable, ...matchers, inDomain, (seed) => !isEmergencyStopped(seed)];
  return input.seeds.map((seed) => {
    const k = predicates.findIndex((p) => !p(seed));
    return k < 0 ? predicates.length : k;
  });
}

function context(input: PlanInput, usage: Readonly<Record<string, number>>): FilterContext {
  return { shoot: input.shoot, cloudProfile: input.cloudProfile, usage, projectName: input.projectName };
}

/** Whether some seed of stage 9 has no problem (so stage 9 keeps it), reading as few counts as it can. */
async function someCandidate(input: PlanInput, seeds: readonly Seed[], countsOf: CountsOf): Promise<boolean> {
  const fits = fitsBesidesCapacity(input);
  const limited: { name: string; capacity: number }[] = [];
  for (const seed of seeds) {
    if (!fits(seed)) continue;
    const capacity = shootCapacity(seed);
    // a seed without a limit always has room: no count needed
    if (capacity === undefined) return true;
    if (capacity !== 'invalid' && capacity > 0) limited.push({ name: nameOf(seed), capacity });
  }
  if (limited.length === 0) return false;
  const usage = await countsOf(limited.map((l) => l.name));
  return limited.some((l) => (usage[l.name] ?? 0) < l.capacity);
}

/** Step 2: where a decision fails that no seed of the strategy's pool can take. */
async function decideFailure(input: PlanInput, countsOf: CountsOf): Promise<ScheduleDecision | undefined> {
  const first = firstFailures(input);
  const given = (k: number): Seed[] => input.seeds.filter((_, i) => first[i] >= k);
  const reached = FILTERS.length - 1;
  for (let k = 0; k < reached; k++) {
    if (first.some((f) => f > k)) continue;
    const [stage, filter] = FILTERS[k];
    const result = filter(given(k), context(input, {}));
    return result.ok ? undefined : fail(stage, result.message);
  }
  const stage9 = given(reached);
  if (await someCandidate(input, stage9, countsOf)) {
    const strategy = input.config?.candidateDeterminationStrategy ?? DEFAULT_CANDIDATE_DETERMINATION_STRATEGY;
    const none = applyStrategy([], input.shoot, strategy, regionConfigExtra(input).configMap);
    return none.ok ? undefined : fail('strategy', none.message);
  }
  const [stage, filter] = FILTERS[reached];
  const result = filter(stage9, context(input, await countsOf(stage9.map(nameOf))));
  return result.ok ? undefined : fail(stage, result.message);
}

/** The decision, reading the counts of the seeds it needs only. */
export async function decideReadingCounts(input: PlanInput, countsOf: CountsOf): Promise<ScheduleDecision> {
  const fast = activeScoring(input.config) ? undefined : fastPlan(input);
  if (fast) {
    const decided = fast.names.length > 0 ? fast.decide(await countsOf(fast.names)) : undefined;
    const failed = decided ?? (await decideFailure(input, countsOf));
    if (failed) return failed;
  }
  const names = seedsReachingCandidates(input);
  const usage = names.length > 0 ? await countsOf(names) : {};
  return decideSchedule({ ...input, usage });
}
