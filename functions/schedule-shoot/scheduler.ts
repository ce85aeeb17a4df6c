/**
 * The shoot scheduler's decision (specs/seed-management.md "Shoot scheduler decision"; upstream
 * gardener-scheduler pkg/scheduler/controller/shoot reconciler.go and add.go), pure: a Shoot, the
 * Seeds, the per-seed shoot counts, the CloudProfile and the region-config ConfigMaps in, a seed or
 * the failing stage with upstream's message out.
 *
 * Upstream acts on Shoots without `spec.seedName`, whose `spec.schedulerName` is unset or
 * `default-scheduler`, not being deleted. It runs the filter stages (scheduler-filters.ts), then the
 * candidate determination strategy (`purpose: testing` shoots: same provider type, any region;
 * SameRegion: same provider type and region; MinimalDistance: distance.ts), then picks the candidate
 * with the fewest shoots (a tie goes to the first in list order). It binds the shoot and emits
 * `SchedulingSuccessful` "Scheduled to seed '<name>'" (upstream's wording; the spec writes %q), or
 * emits `SchedulingFailed` "Failed to schedule Shoot: <message>" and sets `status.lastOperation`
 * {Create, Pending, that description}, then retries with backoff.
 *
 * Where the product differs: the shoot counts come in (scheduler-usage.ts keeps them incrementally)
 * instead of listing every Shoot; optional weighted scoring (scheduler-scoring.ts) replaces the
 * strategy and the fewest-shoots pick when configured.
 */
import { isOneOf } from '@landscape/apimachinery';
import type { CloudProfile, LastOperation, Seed, Shoot } from '../../shared/api/core.js';
import type { RegionConfigMap } from './distance.js';
import {
  configMapKey,
  minimalDistanceCandidates,
  regionConfigDistances,
  selectRegionConfig,
} from './distance.js';
import { applyFilters, FILTER_STAGES } from './scheduler-filters.js';
import type { ScoringConfig, SeedScore } from './scheduler-scoring.js';
import { bestScoreIndex, scoreSeeds, validateScoring } from './scheduler-scoring.js';

export { seedUsage, usageDelta, usageSeeds } from '../../shared/seedmanagement/scheduler-usage.js';

/** The scheduler name a shoot without `spec.schedulerName` is meant for. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

export const CANDIDATE_DETERMINATION_STRATEGIES = ['SameRegion', 'MinimalDistance'] as const;
export type CandidateDeterminationStrategy = (typeof CANDIDATE_DETERMINATION_STRATEGIES)[number];
export function isCandidateDeterminationStrategy(value: unknown): value is CandidateDeterminationStrategy {
  return (
    typeof value === 'string' && (CANDIDATE_DETERMINATION_STRATEGIES as readonly string[]).includes(value)
  );
}
export const DEFAULT_CANDIDATE_DETERMINATION_STRATEGY: CandidateDeterminationStrategy = 'SameRegion';

export const SCHEDULE_STAGES = ['config', ...FILTER_STAGES, 'strategy'] as const;
export type ScheduleStage = (typeof SCHEDULE_STAGES)[number];
export const isScheduleStage: (value: unknown) => value is ScheduleStage = isOneOf(SCHEDULE_STAGES);

/** Event reasons on the Shoot. */
export const ShootSchedulingEvents = {
  successful: 'SchedulingSuccessful',
  failed: 'SchedulingFailed',
} as const;

export interface SchedulerConfig {
  /** Default SameRegion. Any other value fails the strategy stage with upstream's message. */
  candidateDeterminationStrategy?: CandidateDeterminationStrategy;
  /** With at least one rule: replaces steps 9 and 10. */
  scoring?: ScoringConfig;
}

export interface ScheduleInput {
  shoot: Shoot;
  seeds: readonly Seed[];
  /** Shoots per seed name (seedUsage / usageDelta); a seed not listed counts 0. */
  usage: Readonly<Record<string, number>>;
  /** The shoot's CloudProfile (its name selects the region-config ConfigMap). */
  cloudProfile: CloudProfile;
  /** ConfigMaps of the garden namespace labelled `scheduling.gardener.cloud/purpose=region-config`. */
  regionConfigs?: readonly RegionConfigMap[];
  /** Name of the Project of the shoot's namespace (read only for a shoot with `spec.dns.domain`). */
  projectName?: string;
  config?: SchedulerConfig;
}

export interface ScheduleEvent {
  type: 'Normal' | 'Warning';
  reason: (typeof ShootSchedulingEvents)[keyof typeof ShootSchedulingEvents];
  message: string;
}

export interface ScheduleSuccess {
  ok: true;
  seed: Seed;
  seedName: string;
  /** The seeds the final pick chose from, in list order. */
  candidates: string[];
  /** Set when scoring decided. */
  scores?: SeedScore[];
  /** `namespace/name` of the region-config ConfigMap that applies, if any. */
  regionConfig?: string;
  /** Other ConfigMaps listing the same cloud profile (upstream logs "Duplicate scheduler region config found"). */
  duplicateRegionConfigs: string[];
  event: ScheduleEvent;
}

export interface ScheduleFailure {
  ok: false;
  stage: ScheduleStage;
  message: string;
  /** "Failed to schedule Shoot: <message>": the Event message and the lastOperation description. */
  description: string;
  event: ScheduleEvent;
}

export type ScheduleDecision = ScheduleSuccess | ScheduleFailure;

/** Whether the scheduler named `schedulerName` should schedule the shoot (upstream's predicates). */
export function shouldSchedule(shoot: Shoot, schedulerName: string = DEFAULT_SCHEDULER_NAME): boolean {
  if (shoot.spec.seedName) return false;
  if (shoot.metadata?.deletionTimestamp) return false;
  return (shoot.spec.schedulerName ?? DEFAULT_SCHEDULER_NAME) === schedulerName;
}

/** The `status.lastOperation` a failed decision writes, at `now` (the injected clock). */
export function schedulingFailedLastOperation(description: string, now: Date): LastOperation {
  return { type: 'Create', state: 'Pending', description, lastUpdateTime: now.toISOString() };
}

/** The shoot's cloud profile name as upstream prints it: `spec.cloudProfile.name`, else `spec.cloudProfileName`. */
export function shootCloudProfileName(shoot: Shoot): string {
  return shoot.spec.cloudProfile?.name ?? shoot.spec.cloudProfileName ?? '';
}

/** The failure at `stage` with upstream's message. */
export function fail(stage: ScheduleStage, message: string): ScheduleFailure {
  const description = `Failed to schedule Shoot: ${message}`;
  return {
    ok: false,
    stage,
    message,
    description,
    event: { type: 'Warning', reason: ShootSchedulingEvents.failed, message: description },
  };
}

type Candidates = { ok: true; seeds: Seed[] } | { ok: false; message: string };

function strategyCandidates(
  seeds: readonly Seed[],
  shoot: Shoot,
  strategy: string,
  regionConfig: RegionConfigMap | undefined,
): Candidates {
  const sameProvider = (s: Seed): boolean => s.spec.provider.type === shoot.spec.provider.type;
  if (shoot.spec.purpose === 'testing') return { ok: true, seeds: seeds.filter(sameProvider) };
  if (strategy === 'SameRegion') {
    return {
      ok: true,
      seeds: seeds.filter((s) => sameProvider(s) && s.spec.provider.region === shoot.spec.region),
    };
  }
  if (strategy === 'MinimalDistance') {
    const nearest = minimalDistanceCandidates(seeds, shoot, regionConfig);
    return nearest.ok ? { ok: true, seeds: nearest.candidates } : nearest;
  }
  return {
    ok: false,
    message: `failed to determine seed candidates. shoot purpose: '${shoot.spec.purpose ?? ''}', strategy: '${strategy}', valid strategies are: [${CANDIDATE_DETERMINATION_STRATEGIES.join(' ')}]`,
  };
}

/** Step 9: the strategy's candidates, or upstream's message when there are none. */
export function applyStrategy(
  seeds: readonly Seed[],
  shoot: Shoot,
  strategy: string,
  regionConfig: RegionConfigMap | undefined,
): Candidates {
  const result = strategyCandidates(seeds, shoot, strategy, regionConfig);
  if (!result.ok || result.seeds.length > 0) return result;
  return {
    ok: false,
    message: `no matching seed candidate found for Configuration (Cloud Profile '${shootCloudProfileName(shoot)}', Region '${shoot.spec.region}', SeedDeterminationStrategy '${strategy}')`,
  };
}

/** Step 10: the seed with the fewest shoots; a tie goes to the first in list order. */
export function seedWithFewestShoots(
  seeds: readonly Seed[],
  usage: Readonly<Record<string, number>>,
): Seed | undefined {
  let best: Seed | undefined;
  let min = Number.POSITIVE_INFINITY;
  for (const seed of seeds) {
    const count = usage[seed.metadata?.name ?? ''] ?? 0;
    if (count < min) [best, min] = [seed, count];
  }
  return best;
}

/** The success decision for `seed`, picked from `candidates` (list order). */
export function success(
  seed: Seed,
  candidates: readonly Seed[],
  extra: Pick<ScheduleSuccess, 'regionConfig' | 'duplicateRegionConfigs' | 'scores'>,
): ScheduleSuccess {
  const seedName = seed.metadata?.name ?? '';
  return {
    ok: true,
    seed,
    seedName,
    candidates: candidates.map((s) => s.metadata?.name ?? ''),
    ...extra,
    event: {
      type: 'Normal',
      reason: ShootSchedulingEvents.successful,
      message: `Scheduled to seed '${seedName}'`,
    },
  };
}

function decideByScoring(
  seeds: readonly Seed[],
  input: ScheduleInput,
  scoring: ScoringConfig,
  regionConfig: RegionConfigMap | undefined,
): { ok: true; seed: Seed; scores: SeedScore[] } | { ok: false; message: string } {
  const wantsDistance = scoring.rules.some((r) => r.name === 'MinimalDistance');
  const distances = wantsDistance
    ? regionConfigDistances(regionConfig, input.shoot.spec.region)
    : { ok: true as const };
  if (!distances.ok) return distances;
  const scores = scoreSeeds(
    { seeds, shoot: input.shoot, usage: input.usage, regionDistances: distances.distances },
    scoring,
  );
  return { ok: true, seed: seeds[bestScoreIndex(scores)], scores };
}

/** The scoring config when it has rules (it then replaces steps 9 and 10). */
export function activeScoring(config: SchedulerConfig | undefined): ScoringConfig | undefined {
  const scoring = config?.scoring;
  return scoring && scoring.rules.length > 0 ? scoring : undefined;
}

type Extra = Pick<ScheduleSuccess, 'regionConfig' | 'duplicateRegionConfigs'>;

/** The region-config ConfigMap that applies (and its duplicates), as the decision reports them. */
export function regionConfigExtra(input: Pick<ScheduleInput, 'regionConfigs' | 'cloudProfile'>): {
  configMap: RegionConfigMap | undefined;
  extra: Extra;
} {
  const profileName = input.cloudProfile.metadata?.name ?? '';
  const { configMap, duplicates } = selectRegionConfig(input.regionConfigs ?? [], profileName);
  return {
    configMap,
    extra: {
      regionConfig: configMap && configMapKey(configMap),
      duplicateRegionConfigs: duplicates.map(configMapKey),
    },
  };
}

/** Steps 9 and 10, or scoring, over the seeds the filters left. */
function pick(
  seeds: Seed[],
  input: ScheduleInput,
  regionConfig: RegionConfigMap | undefined,
  extra: Extra,
): ScheduleDecision {
  const scoring = activeScoring(input.config);
  if (scoring) {
    const scored = decideByScoring(seeds, input, scoring, regionConfig);
    if (!scored.ok) return fail('strategy', scored.message);
    return success(scored.seed, seeds, { ...extra, scores: scored.scores });
  }
  const strategy = input.config?.candidateDeterminationStrategy ?? DEFAULT_CANDIDATE_DETERMINATION_STRATEGY;
  const candidates = applyStrategy(seeds, input.shoot, strategy, regionConfig);
  if (!candidates.ok) return fail('strategy', candidates.message);
  const seed = seedWithFewestShoots(candidates.seeds, input.usage) ?? candidates.seeds[0];
  return success(seed, candidates.seeds, extra);
}

/** Steps 1–10 (or 1–8 and scoring): the seed to bind the shoot to, or the stage that left none. */
export function decideSchedule(input: ScheduleInput): ScheduleDecision {
  const scoring = activeScoring(input.config);
  const problems = scoring ? validateScoring(scoring) : [];
  if (problems.length > 0) return fail('config', `invalid scheduler configuration: ${problems.join('; ')}`);

  const { shoot, cloudProfile, usage, projectName } = input;
  const filtered = applyFilters(input.seeds, { shoot, cloudProfile, usage, projectName });
  if (!filtered.ok) return fail(filtered.stage, filtered.message);

  const { configMap, extra } = regionConfigExtra(input);
  return pick(filtered.seeds, input, configMap, extra);
}
