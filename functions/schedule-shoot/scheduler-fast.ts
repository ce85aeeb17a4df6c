/**
 * The scheduler's decision with the shoot counts read for the seeds it needs only, pure except for
 * the injected `countsOf` (the function: an HMGET of those seeds' counts in Redis), and the same
 * decision as ./scheduler.ts decideSchedule with every count (table-tested against it).
 *
 * Fast path, one pass over the seeds the strategy can pick from (an index of the seed list by
 * provider type and region, built once per list): SameRegion keeps the seeds of the shoot's
 * provider type and region, a `purpose: testing` shoot those of its provider type (any strategy),
 * and every filter stage 1–8 but the domain stage keeps the seeds that pass a per-seed predicate,
 * in list order, failing only when it keeps none. So the seeds that pass every stage and the
 * strategy are F = {seed of the strategy's pool, in list order, passing every predicate}; when F is
 * not empty no stage kept none (each kept a superset of F), and upstream's outcome is the seed of F
 * with the fewest shoots (the first in list order on a tie) with F as the candidates. The counts
 * read: those of the pool's seeds that pass every predicate but capacity.
 *
 * Otherwise (F empty: some stage fails, and its message counts the seeds each stage was given; or
 * scoring, MinimalDistance for a shoot not for testing, a shoot with `spec.dns.domain`, a seed
 * selector that does not convert) the full decideSchedule decides, with the counts of the seeds
 * that reach stage 8 (the candidates stage and the pick read no others).
 */
import type { Seed, Shoot } from '../../shared/api/core.js';
import { RESOURCE_SHOOTS } from '../../shared/seedmanagement/capacity.js';
import {
  labelSelectorAsSelector,
  parseQuantity,
  requirementsMatch,
  type LabelRequirement,
} from '@landscape/apimachinery';
import {
  activeScoring,
  decideSchedule,
  DEFAULT_CANDIDATE_DETERMINATION_STRATEGY,
  regionConfigExtra,
  success,
  type ScheduleDecision,
  type ScheduleInput,
} from './scheduler.js';
import {
  accessRestrictionsSupported,
  candidateProblem,
  FILTERS,
  isEmergencyStopped,
  isMultiZonalShootControlPlane,
  isUsableSeed,
  matchProvider,
  type FilterContext,
} from './scheduler-filters.js';

/** A decision's input before the counts are read. */
export type PlanInput = Omit<ScheduleInput, 'usage'>;

/** Reads the counts of the named seeds (a seed without shoots may be absent or 0). */
export type CountsOf = (names: readonly string[]) => Promise<Record<string, number>>;

/** The seeds of a list by `<provider type>` and `<provider type>\0<region>`, in list order. */
type SeedIndex = Map<string, Seed[]>;

const indexes = new WeakMap<readonly Seed[], SeedIndex>();

const nameOf = (seed: Seed): string => seed.metadata?.name ?? '';

function push(index: SeedIndex, key: string, seed: Seed): void {
  const list = index.get(key);
  if (list) list.push(seed);
  else index.set(key, [seed]);
}

/** The index of a seed list, built once per list (the list must not change afterwards). */
export function seedIndex(seeds: readonly Seed[]): SeedIndex {
  let index = indexes.get(seeds);
  if (index) return index;
  index = new Map();
  for (const seed of seeds) {
    const type = seed.spec.provider.type;
    push(index, type, seed);
    push(index, `${type}\0${seed.spec.provider.region}`, seed);
  }
  indexes.set(seeds, index);
  return index;
}

/** The strategy's pool of seeds, or undefined when the strategy is no per-seed predicate. */
function strategyPool(input: PlanInput): readonly Seed[] | undefined {
  const { shoot } = input;
  const type = shoot.spec.provider.type;
  const index = seedIndex(input.seeds);
  if (shoot.spec.purpose === 'testing') return index.get(type) ?? [];
  const strategy = input.config?.candidateDeterminationStrategy ?? DEFAULT_CANDIDATE_DETERMINATION_STRATEGY;
  if (strategy !== 'SameRegion') return undefined;
  return index.get(`${type}\0${shoot.spec.region}`) ?? [];
}

type Matcher = (seed: Seed) => boolean;

/** A seed selector as a predicate; undefined when it does not convert (that stage then fails on its own). */
function selectorMatcher(selector: ScheduleInput['shoot']['spec']['seedSelector']): Matcher | undefined {
  if (!selector) return () => true;
  const converted = labelSelectorAsSelector(selector);
  if (!converted.ok) return undefined;
  const requirements: readonly LabelRequirement[] = converted.requirements;
  return (seed) => requirementsMatch(requirements, seed.metadata?.labels);
}

/** Stages 1–7 (no domain) and the strategy for one seed of the pool. */
function staticMatcher(input: PlanInput): Matcher | undefined {
  const { shoot, cloudProfile } = input;
  const byProfile = selectorMatcher(cloudProfile.spec.seedSelector);
  const byShoot = selectorMatcher(shoot.spec.seedSelector);
  if (!byProfile || !byShoot) return undefined;
  const providerTypes = cloudProfile.spec.seedSelector?.providerTypes ?? [];
  const multiZonal = isMultiZonalShootControlPlane(shoot);
  return (seed) =>
    isUsableSeed(seed) &&
    byProfile(seed) &&
    byShoot(seed) &&
    matchProvider(seed.spec.provider.type, shoot.spec.provider.type, providerTypes) &&
    (!multiZonal || (seed.spec.provider.zones ?? []).length >= 3) &&
    accessRestrictionsSupported(seed, shoot) &&
    !isEmergencyStopped(seed);
}

/** The seed's shoot capacity: undefined without `status.allocatable.shoots` (no limit). */
function capacityOf(seed: Seed): number | undefined {
  const allocatable = seed.status?.allocatable;
  if (!allocatable || !Object.prototype.hasOwnProperty.call(allocatable, RESOURCE_SHOOTS)) return undefined;
  const parsed = parseQuantity(allocatable[RESOURCE_SHOOTS]);
  return parsed.ok ? parsed.value : undefined;
}

export interface FastPlan {
  /** The seeds whose counts the pick needs. */
  names: string[];
  /** The decision with their counts; undefined when no seed has room (the full decision decides). */
  decide(usage: Readonly<Record<string, number>>): ScheduleDecision | undefined;
}

function noCountsContext(shoot: Shoot, input: PlanInput): FilterContext {
  return { shoot, cloudProfile: input.cloudProfile, usage: {}, projectName: input.projectName };
}

/** The fast path's plan, or undefined when it does not apply. */
export function fastPlan(input: PlanInput): FastPlan | undefined {
  const { shoot } = input;
  if (activeScoring(input.config) || shoot.spec.dns?.domain !== undefined) return undefined;
  const pool = strategyPool(input);
  const matches = staticMatcher(input);
  if (!pool || !matches) return undefined;
  // candidateProblem with no counts: every problem but capacity (a seed full at 0 shoots is full at any count)
  const ctx = noCountsContext(shoot, input);
  const fits = pool.filter((seed) => matches(seed) && candidateProblem(seed, ctx) === undefined);
  const capacities = fits.map(capacityOf);
  return {
    names: fits.map(nameOf),
    decide(usage) {
      const kept = fits.filter((seed, i) => {
        const capacity = capacities[i];
        return capacity === undefined || (usage[nameOf(seed)] ?? 0) < capacity;
      });
      if (kept.length === 0) return undefined;
      let best = kept[0];
      for (const seed of kept) if ((usage[nameOf(seed)] ?? 0) < (usage[nameOf(best)] ?? 0)) best = seed;
      return success(best, kept, regionConfigExtra(input).extra);
    },
  };
}

/** The seeds that reach stage 8 (the only ones whose counts the full decision reads); none when a stage before fails. */
export function seedsReachingCandidates(input: PlanInput): string[] {
  const ctx: FilterContext = noCountsContext(input.shoot, input);
  let current: Seed[] = [...input.seeds];
  for (const [stage, filter] of FILTERS) {
    if (stage === 'candidates') break;
    const result = filter(current, ctx);
    if (!result.ok) return [];
    current = result.seeds;
  }
  return current.map(nameOf);
}

/** The decision, reading the counts of the seeds it needs only: the fast path, else the full decision. */
export async function decideReadingCounts(input: PlanInput, countsOf: CountsOf): Promise<ScheduleDecision> {
  const fast = fastPlan(input);
  if (fast && fast.names.length > 0) {
    const decided = fast.decide(await countsOf(fast.names));
    if (decided) return decided;
  }
  const names = seedsReachingCandidates(input);
  const usage = names.length > 0 ? await countsOf(names) : {};
  return decideSchedule({ ...input, usage });
}
