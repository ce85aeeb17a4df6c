/**
 * The fast path of the decision (./scheduler-counts.ts decideReadingCounts), pure: the same
 * decision as ./scheduler.ts decideSchedule with every count whenever it answers.
 *
 * One pass over the seeds the strategy can pick from (an index of the seed list by provider type
 * and region, built once per list): SameRegion keeps the seeds of the shoot's provider type and
 * region, a `purpose: testing` shoot those of its provider type (any strategy), and every filter
 * stage 1–9 keeps the seeds that pass a per-seed predicate, in list order, failing only when it
 * keeps none. The domain stage's predicate depends on whether any seed that passes stages 1–6 has
 * a default domain the shoot's domain lies under: the index's seeds with default domains answer
 * that. So the seeds that pass every stage and the strategy are F = {seed of the strategy's pool,
 * in list order, passing every predicate}; when F is not empty no stage kept none (each kept a
 * superset of F), and upstream's outcome is the seed of F with the fewest shoots (the first in
 * list order on a tie) with F as the candidates. The counts read: those of the pool's seeds that
 * pass every predicate but capacity.
 *
 * Not for scoring, MinimalDistance (a shoot not for testing), a seed selector that does not
 * convert: fastPlan answers undefined.
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
  DEFAULT_CANDIDATE_DETERMINATION_STRATEGY,
  regionConfigExtra,
  success,
  type ScheduleDecision,
  type ScheduleInput,
} from './scheduler.js';
import {
  accessRestrictionsSupported,
  FILTERS,
  isEmergencyStopped,
  isMultiZonalShootControlPlane,
  isUsableSeed,
  matchProvider,
  seedRefusesShootDns,
  taintsTolerated,
  type FilterContext,
} from './scheduler-filters.js';
import { networksProblem } from './scheduler-networks.js';

/** A decision's input before the counts are read. */
export type PlanInput = Omit<ScheduleInput, 'usage'>;

/** Reads the counts of the named seeds (a seed without shoots may be absent or 0). */
export type CountsOf = (names: readonly string[]) => Promise<Record<string, number>>;

/** A seed that may be a candidate whatever the shoot: usable, not emergency-stopped, room for a shoot possible. */
interface Candidate {
  seed: Seed;
  name: string;
  /** `status.allocatable.shoots`; undefined: no limit. */
  capacity: number | undefined;
}

/**
 * A seed list's index, built once per list (the list must not change afterwards): by
 * `<provider type>` and `<provider type>\0<region>` the seeds that may be candidates at all (the
 * shoot-independent predicates of stages 1, 7 and 8 evaluated once), and by `<default domain>` the
 * seeds with `spec.dns.defaults`; in list order.
 */
interface SeedIndex {
  pools: Map<string, Candidate[]>;
  byDefaultDomain: Map<string, Seed[]>;
}

const indexes = new WeakMap<readonly Seed[], SeedIndex>();

const nameOf = (seed: Seed): string => seed.metadata?.name ?? '';

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** `status.allocatable.shoots`: undefined without (no limit), 'invalid' when it is no quantity. */
export function shootCapacity(seed: Seed): number | undefined | 'invalid' {
  const allocatable = seed.status?.allocatable;
  if (!allocatable || !Object.prototype.hasOwnProperty.call(allocatable, RESOURCE_SHOOTS)) return undefined;
  const parsed = parseQuantity(allocatable[RESOURCE_SHOOTS]);
  return parsed.ok ? parsed.value : 'invalid';
}

/** The seed as a candidate, or undefined when no shoot can go there (a full seed at 0 shoots included). */
function candidateOf(seed: Seed): Candidate | undefined {
  if (!usable(seed) || isEmergencyStopped(seed)) return undefined;
  const capacity = shootCapacity(seed);
  if (capacity === 'invalid' || (capacity !== undefined && capacity <= 0)) return undefined;
  return { seed, name: nameOf(seed), capacity };
}

export function seedIndex(seeds: readonly Seed[]): SeedIndex {
  let index = indexes.get(seeds);
  if (index) return index;
  index = { pools: new Map(), byDefaultDomain: new Map() };
  for (const seed of seeds) {
    for (const d of new Set((seed.spec.dns?.defaults ?? []).map((x) => x.domain)))
      push(index.byDefaultDomain, d, seed);
    const candidate = candidateOf(seed);
    if (!candidate) continue;
    const type = seed.spec.provider.type;
    push(index.pools, type, candidate);
    push(index.pools, `${type}\0${seed.spec.provider.region}`, candidate);
  }
  indexes.set(seeds, index);
  return index;
}

/** The strategy's pool of seeds, or undefined when the strategy is no per-seed predicate. */
function strategyPool(input: PlanInput): readonly Candidate[] | undefined {
  const { shoot } = input;
  const type = shoot.spec.provider.type;
  const { pools } = seedIndex(input.seeds);
  if (shoot.spec.purpose === 'testing') return pools.get(type) ?? [];
  const strategy = input.config?.candidateDeterminationStrategy ?? DEFAULT_CANDIDATE_DETERMINATION_STRATEGY;
  if (strategy !== 'SameRegion') return undefined;
  return pools.get(`${type}\0${shoot.spec.region}`) ?? [];
}

export type Matcher = (seed: Seed) => boolean;

/** A seed selector as a predicate; undefined when it does not convert (that stage then fails on its own). */
function selectorMatcher(selector: ScheduleInput['shoot']['spec']['seedSelector']): Matcher | undefined {
  if (!selector) return () => true;
  const converted = labelSelectorAsSelector(selector);
  if (!converted.ok) return undefined;
  const requirements: readonly LabelRequirement[] = converted.requirements;
  return (seed) => requirementsMatch(requirements, seed.metadata?.labels);
}

/**
 * Stages 2–6 (cloud profile selector, shoot selector, provider, zones, access restrictions) as
 * per-seed predicates, in stage order; a selector that does not convert is a predicate no seed
 * passes (its stage then fails with the conversion message).
 */
export function stagePredicates(input: PlanInput): { matchers: Matcher[]; converted: boolean } {
  const { shoot, cloudProfile } = input;
  const byProfile = selectorMatcher(cloudProfile.spec.seedSelector);
  const byShoot = selectorMatcher(shoot.spec.seedSelector);
  const providerTypes = cloudProfile.spec.seedSelector?.providerTypes ?? [];
  const multiZonal = isMultiZonalShootControlPlane(shoot);
  const never: Matcher = () => false;
  return {
    converted: byProfile !== undefined && byShoot !== undefined,
    matchers: [
      byProfile ?? never,
      byShoot ?? never,
      (seed) => matchProvider(seed.spec.provider.type, shoot.spec.provider.type, providerTypes),
      (seed) => !multiZonal || (seed.spec.provider.zones ?? []).length >= 3,
      (seed) => accessRestrictionsSupported(seed, shoot),
    ],
  };
}

/** Stages 2–6 (stage 1, usable, is the index's) for one seed. */
function beforeDomainMatcher(input: PlanInput): Matcher | undefined {
  const { matchers, converted } = stagePredicates(input);
  if (!converted) return undefined;
  const [byProfile, byShoot, provider, zones, access] = matchers;
  return (seed) => byProfile(seed) && byShoot(seed) && provider(seed) && zones(seed) && access(seed);
}

const usableFacts = new WeakMap<Seed, boolean>();

/** isUsableSeed, once per Seed object (the cache hands out the same objects until a seed changes). */
export function usable(seed: Seed): boolean {
  let fact = usableFacts.get(seed);
  if (fact === undefined) {
    fact = isUsableSeed(seed);
    usableFacts.set(seed, fact);
  }
  return fact;
}

/** The seeds with a default domain the shoot's domain lies under (suffix by suffix), in list order. */
function seedsUnderDomain(index: SeedIndex, domain: string): Set<Seed> {
  const out = new Set<Seed>();
  const labels = domain.split('.');
  for (let i = 1; i < labels.length; i++)
    for (const s of index.byDefaultDomain.get(labels.slice(i).join('.')) ?? []) out.add(s);
  return out;
}

/**
 * Stage 7 (upstream's filterSeedsMatchingDomain) as a per-seed predicate: a shoot domain under a
 * default domain of a seed that passes stages 1–6 (that set decides, whichever its region) keeps
 * only the seeds with that default whose domain reads `<shoot>.<project>.<default>`; else every seed.
 */
export function domainMatcher(input: PlanInput, beforeDomain: Matcher): Matcher {
  const domain = input.shoot.spec.dns?.domain;
  if (domain === undefined) return () => true;
  const under = [...seedsUnderDomain(seedIndex(input.seeds), domain)];
  if (!under.some(beforeDomain)) return () => true;
  const { projectName } = input;
  const name = input.shoot.metadata?.name ?? '';
  return (seed) =>
    projectName !== undefined &&
    (seed.spec.dns?.defaults ?? []).some(
      (d) => domain.endsWith(`.${d.domain}`) && domain === `${name}.${projectName}.${d.domain}`,
    );
}

const networksKeys = new WeakMap<Seed, string>();

/** What networksProblem reads of a seed: its networks and their shoot defaults (once per Seed object). */
function networksKey(seed: Seed): string {
  let key = networksKeys.get(seed);
  if (key === undefined) {
    const n = seed.spec.networks;
    const d = n?.shootDefaults;
    key = n ? `${n.nodes ?? '-'} ${n.pods} ${n.services} ${d?.pods ?? '-'} ${d?.services ?? '-'}` : '';
    networksKeys.set(seed, key);
  }
  return key;
}

/** Whether the seed's networks are disjoint from the shoot's, once per distinct `spec.networks` (seeds share them). */
export function networksMatcher(shoot: Shoot): Matcher {
  if (!shoot.spec.networking) return () => true;
  const known = new Map<string, boolean>();
  return (seed) => {
    const key = networksKey(seed);
    let fits = known.get(key);
    if (fits === undefined) {
      fits = networksProblem(seed, shoot) === undefined;
      known.set(key, fits);
    }
    return fits;
  };
}

/** Stages 1–8 but capacity, for one seed of a pool (usable and not emergency-stopped: see candidateOf). */
function staticMatcher(input: PlanInput): Matcher | undefined {
  const beforeDomain = beforeDomainMatcher(input);
  if (!beforeDomain) return undefined;
  const inDomain = domainMatcher(input, (seed) => usable(seed) && beforeDomain(seed));
  const { shoot } = input;
  const networksFit = networksMatcher(shoot);
  return (seed) =>
    beforeDomain(seed) &&
    inDomain(seed) &&
    networksFit(seed) &&
    !seedRefusesShootDns(seed, shoot) &&
    taintsTolerated(seed, shoot);
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
  if (activeScoring(input.config)) return undefined;
  const pool = strategyPool(input);
  const matches = staticMatcher(input);
  if (!pool || !matches) return undefined;
  const fits = pool.filter((c) => matches(c.seed));
  return {
    names: fits.map((c) => c.name),
    decide(usage) {
      const kept = fits.filter((c) => c.capacity === undefined || (usage[c.name] ?? 0) < c.capacity);
      if (kept.length === 0) return undefined;
      let best = kept[0];
      for (const c of kept) if ((usage[c.name] ?? 0) < (usage[best.name] ?? 0)) best = c;
      return success(
        best.seed,
        kept.map((c) => c.seed),
        regionConfigExtra(input).extra,
      );
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
