/**
 * Configuration of the ManagedSeed controller (pure): one YAML file (CONFIG_FILE), single keys
 * overridden by environment variables. Every problem is listed.
 *
 * ```yaml
 * namespace: garden          # where ManagedSeeds (and the Shoots they register) live
 * waitSyncPeriod: 15s        # look again this much later while waiting (Shoot, Seed deletion)
 * syncPeriod: 1h             # look again this much later after a successful pass
 * errorBackoff: {min: 5s, max: 5m}   # look again after an error: as long as it has lasted, within these
 * concurrency: 4             # ManagedSeeds reconciled at once for one Shoot event or a resync
 * redisUrl: redis://...      # usually from REDIS_URL (the requeues)
 * logLevel: info
 * ```
 */
import * as z from '../../shared/config/zod.js';
import { redisUrlSchema } from '../../shared/config/redis.js';
import {
  configLoader,
  durationSchema,
  functionConfigSchema,
  withLogLevel,
} from '../../shared/config/index.js';
import { MANAGED_SEED_NAMESPACE } from '../../shared/api/seedmanagement.js';
import {
  MANAGED_SEED_SYNC_PERIOD_MS,
  MANAGED_SEED_WAIT_SYNC_PERIOD_MS,
} from '../../shared/seedmanagement/managedseed.js';

export const FUNCTION_NAME = 'managedseed';

const DEFAULT_BACKOFF = { min: 5_000, max: 300_000 };

export const ManagedSeedConfigSchema = functionConfigSchema({
  namespace: z.string().min(1).default(MANAGED_SEED_NAMESPACE),
  waitSyncPeriod: durationSchema.default(MANAGED_SEED_WAIT_SYNC_PERIOD_MS),
  syncPeriod: durationSchema.default(MANAGED_SEED_SYNC_PERIOD_MS),
  errorBackoff: z
    .strictObject({
      min: durationSchema.default(DEFAULT_BACKOFF.min),
      max: durationSchema.default(DEFAULT_BACKOFF.max),
    })
    .refine((b) => b.min <= b.max, { message: 'min must not be above max' })
    .default(DEFAULT_BACKOFF),
  concurrency: z.number().int().min(1).max(64).default(4),
  redisUrl: redisUrlSchema,
});
export type ManagedSeedConfig = z.output<typeof ManagedSeedConfigSchema>;

export const ENV_OVERRIDES = withLogLevel({
  REDIS_URL: { key: 'redisUrl' },
  MANAGED_SEED_NAMESPACE: { key: 'namespace' },
  MANAGED_SEED_WAIT_SYNC_PERIOD: { key: 'waitSyncPeriod' },
  MANAGED_SEED_SYNC_PERIOD: { key: 'syncPeriod' },
} as const);

/** Parses the file text (may be absent) with the environment's overrides; lists every problem. */
export const loadConfig = configLoader(ManagedSeedConfigSchema, ENV_OVERRIDES);
