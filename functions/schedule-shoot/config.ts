/**
 * Configuration of schedule-shoot (pure): one YAML file (CONFIG_FILE), single keys overridden by
 * environment variables, every problem listed. Upstream's gardener-scheduler keys where it has
 * them (`schedulers.shoot`: candidateDeterminationStrategy, retrySyncPeriod); the rest is the
 * product's own.
 *
 * ```yaml
 * schedulerName: default-scheduler        # shoots whose spec.schedulerName names this (unset = default-scheduler)
 * candidateDeterminationStrategy: SameRegion   # or MinimalDistance
 * scoring:                                 # optional (GEP-13); replaces strategy + fewest-shoots pick
 *   rules: [{name: SeedResourcesLeastAllocated, weight: 1}, {name: MinimalDistance, weight: 2}]
 * retrySyncPeriod: 15s                     # first retry of a shoot that could not be scheduled
 * maxRetryPeriod: 5m                       # the backoff doubles up to this
 * reserveAttempts: 5                       # decisions per event when other replicas take the last slots
 * reservationTimeout: 60s                  # a reservation whose binding never came is dropped after this
 * rebuildTimeout: 30s                      # how long a usage rebuild (list every Shoot) may take
 * seedCacheTtl: 2s                         # the Seed cache in Redis is listed again (metadata, then the changed
 *                                          # Seeds) when its last list is older than this (0s: no cache, list per decision)
 * redisUrl: redis://...                    # usually from REDIS_URL
 * ```
 *
 * Overrides: REDIS_URL, SCHEDULER_NAME, CANDIDATE_DETERMINATION_STRATEGY,
 * SCHEDULER_RETRY_SYNC_PERIOD, SCHEDULER_MAX_RETRY_PERIOD. LOG_LEVEL sets the log level (shared/function).
 */
import * as z from '../../shared/config/zod.js';
import { redisUrlSchema } from '../../shared/config/redis.js';
import { configLoader, durationSchema, type EnvOverride } from '../../shared/config/index.js';
import {
  CANDIDATE_DETERMINATION_STRATEGIES,
  DEFAULT_CANDIDATE_DETERMINATION_STRATEGY,
  DEFAULT_SCHEDULER_NAME,
} from './scheduler.js';
import { SCORING_RULES } from './scheduler-scoring.js';

export const FUNCTION_NAME = 'schedule-shoot';

const ScoringSchema = z.strictObject({
  rules: z
    .array(
      z.strictObject({
        name: z.enum(SCORING_RULES),
        weight: z.number().int().min(1),
      }),
    )
    .refine((rules) => new Set(rules.map((r) => r.name)).size === rules.length, {
      message: 'each rule at most once',
    }),
});

export const ScheduleShootConfigSchema = z
  .strictObject({
    schedulerName: z.string().min(1).default(DEFAULT_SCHEDULER_NAME),
    candidateDeterminationStrategy: z
      .enum(CANDIDATE_DETERMINATION_STRATEGIES)
      .default(DEFAULT_CANDIDATE_DETERMINATION_STRATEGY),
    scoring: ScoringSchema.optional(),
    retrySyncPeriod: durationSchema.default(15_000),
    maxRetryPeriod: durationSchema.default(300_000),
    reserveAttempts: z.number().int().min(1).max(50).default(5),
    reservationTimeout: durationSchema.default(60_000),
    rebuildTimeout: durationSchema.default(30_000),
    seedCacheTtl: z.union([z.literal(0), z.literal('0s').transform(() => 0), durationSchema]).default(2_000),
    redisUrl: redisUrlSchema,
  })
  .superRefine((c, ctx) => {
    if (c.retrySyncPeriod <= 0)
      ctx.addIssue({ code: 'custom', path: ['retrySyncPeriod'], message: 'must be positive' });
    if (c.maxRetryPeriod < c.retrySyncPeriod)
      ctx.addIssue({
        code: 'custom',
        path: ['maxRetryPeriod'],
        message: 'must not be shorter than retrySyncPeriod',
      });
    for (const key of ['reservationTimeout', 'rebuildTimeout'] as const)
      if (c[key] < 1000) ctx.addIssue({ code: 'custom', path: [key], message: 'must be at least 1s' });
  });

export type ScheduleShootConfig = z.output<typeof ScheduleShootConfigSchema>;

export const ENV_OVERRIDES = {
  REDIS_URL: { key: 'redisUrl' },
  SCHEDULER_NAME: { key: 'schedulerName' },
  CANDIDATE_DETERMINATION_STRATEGY: { key: 'candidateDeterminationStrategy' },
  SCHEDULER_RETRY_SYNC_PERIOD: { key: 'retrySyncPeriod' },
  SCHEDULER_MAX_RETRY_PERIOD: { key: 'maxRetryPeriod' },
} as const satisfies Record<string, EnvOverride>;

/** Parses the file text (may be absent) with the environment's overrides; lists every problem. */
export const loadConfig = configLoader(ScheduleShootConfigSchema, ENV_OVERRIDES);

/** Whether a decision may need the region-config ConfigMaps (MinimalDistance as strategy or rule). */
export function wantsRegionConfigs(config: ScheduleShootConfig): boolean {
  const rules = config.scoring?.rules ?? [];
  if (rules.length > 0) return rules.some((r) => r.name === 'MinimalDistance');
  return config.candidateDeterminationStrategy === 'MinimalDistance';
}
