/**
 * Weighted scoring of seed candidates (GEP-13's proposal, never built upstream; specs/seed-management.md
 * "Beyond upstream"), pure. When configured it replaces the strategy and the fewest-shoots pick
 * (steps 9 and 10): every seed left after the filter stages gets a score per rule, 0–100, and the
 * highest weighted sum wins.
 *
 * Scoring formula (the product's own; the GEP names the rules only):
 * - MinimalDistance: d(seed) is the region-config distance when the applicable region-config
 *   ConfigMap lists at least one candidate's region for the shoot's region (an unlisted seed then
 *   scores 0), else the Levenshtein distance of the fallback (provider difference + 2 included). For
 *   `purpose: testing` shoots the region is ignored: d = 0 for the shoot's provider type, else 2.
 *   score = floor(100 × (dmax − d) / (dmax − dmin)) over the scored seeds; 100 when all are equal.
 * - SeedResourcesLeastAllocated (Kubernetes' LeastAllocated for the `shoots` resource): with
 *   a = `status.allocatable.shoots` and u = the seed's usage, score = floor(100 × (a − (u + 1)) / a),
 *   the share left free once the shoot is placed; 0 for a seed without allocatable shoots (or a ≤ 0).
 * - total = Σ weight × score; the highest total wins, a tie goes to the seed with fewer shoots, then
 *   to the first in list order.
 * Weights are positive integers; each rule at most once.
 */
import type { Seed, Shoot } from '../../shared/api/core.js';
import { parseQuantity, isOneOf } from '@landscape/apimachinery';
import { RESOURCE_SHOOTS } from '../../shared/seedmanagement/capacity.js';
import { keepMinimal, seedDistance } from './distance.js';

export const SCORING_RULES = ['MinimalDistance', 'SeedResourcesLeastAllocated'] as const;
export type ScoringRuleName = (typeof SCORING_RULES)[number];
export const isScoringRuleName: (value: unknown) => value is ScoringRuleName = isOneOf(SCORING_RULES);

/** The best score one rule gives (Kubernetes' MaxNodeScore). */
export const MAX_SEED_SCORE = 100;

export interface ScoringRule {
  name: ScoringRuleName;
  weight: number;
}

export interface ScoringConfig {
  rules: ScoringRule[];
}

export interface SeedScore {
  seed: string;
  total: number;
  usage: number;
  rules: Partial<Record<ScoringRuleName, number>>;
}

export interface ScoringInput {
  seeds: readonly Seed[];
  shoot: Shoot;
  usage: Readonly<Record<string, number>>;
  /** The region config's distances for the shoot's region (regionConfigDistances), if any. */
  regionDistances?: ReadonlyMap<string, number>;
}

/** Problems of a scoring config; empty when valid. */
export function validateScoring(config: ScoringConfig): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  config.rules.forEach((rule, i) => {
    const path = `scoring.rules[${i}]`;
    if (!isScoringRuleName(rule.name)) {
      problems.push(
        `${path}.name: Unsupported value: ${JSON.stringify(rule.name)}: supported values: ${SCORING_RULES.join(', ')}`,
      );
    } else if (seen.has(rule.name)) {
      problems.push(`${path}.name: Duplicate value: ${JSON.stringify(rule.name)}`);
    }
    seen.add(rule.name);
    if (!Number.isSafeInteger(rule.weight) || rule.weight < 1) {
      problems.push(`${path}.weight: Invalid value: ${String(rule.weight)}: must be a positive integer`);
    }
  });
  return problems;
}

const nameOf = (seed: Seed): string => seed.metadata?.name ?? '';

/** d(seed) for MinimalDistance; undefined: not listed in an applicable region config (scores 0). */
function distanceFunction(input: ScoringInput): (seed: Seed) => number | undefined {
  const { shoot, regionDistances, seeds } = input;
  if (shoot.spec.purpose === 'testing') {
    return (s) => (s.spec.provider.type === shoot.spec.provider.type ? 0 : 2);
  }
  const listed = regionDistances && seeds.some((s) => regionDistances.has(s.spec.provider.region));
  if (listed) return (s) => regionDistances.get(s.spec.provider.region);
  return (s) => seedDistance(s, shoot);
}

function minimalDistanceScores(input: ScoringInput): number[] {
  const distanceOf = distanceFunction(input);
  const distances = input.seeds.map(distanceOf);
  const known = distances.filter((d): d is number => d !== undefined);
  const min = Math.min(...known);
  const max = Math.max(...known);
  return distances.map((d) => {
    if (d === undefined) return 0;
    return max === min ? MAX_SEED_SCORE : Math.floor((MAX_SEED_SCORE * (max - d)) / (max - min));
  });
}

function leastAllocatedScore(seed: Seed, usage: number): number {
  const allocatable = seed.status?.allocatable?.[RESOURCE_SHOOTS];
  const parsed = allocatable === undefined ? undefined : parseQuantity(allocatable);
  if (!parsed?.ok || parsed.value <= 0) return 0;
  return Math.floor((MAX_SEED_SCORE * Math.max(0, parsed.value - (usage + 1))) / parsed.value);
}

const RULE_SCORES: Readonly<Record<ScoringRuleName, (input: ScoringInput) => number[]>> = {
  MinimalDistance: minimalDistanceScores,
  SeedResourcesLeastAllocated: (input) =>
    input.seeds.map((s) => leastAllocatedScore(s, input.usage[nameOf(s)] ?? 0)),
};

/** Every seed's scores, in list order. */
export function scoreSeeds(input: ScoringInput, config: ScoringConfig): SeedScore[] {
  const scores: SeedScore[] = input.seeds.map((s) => ({
    seed: nameOf(s),
    total: 0,
    usage: input.usage[nameOf(s)] ?? 0,
    rules: {},
  }));
  for (const rule of config.rules) {
    RULE_SCORES[rule.name](input).forEach((score, i) => {
      scores[i].rules[rule.name] = score;
      scores[i].total += rule.weight * score;
    });
  }
  return scores;
}

/** The index of the best score: highest total, then fewer shoots, then first in list order. */
export function bestScoreIndex(scores: readonly SeedScore[]): number {
  const indexes = scores.map((_, i) => i);
  const top = keepMinimal(indexes, (i) => -scores[i].total, Number.POSITIVE_INFINITY);
  return keepMinimal(top, (i) => scores[i].usage, Number.POSITIVE_INFINITY)[0] ?? -1;
}
