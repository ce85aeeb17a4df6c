/**
 * Configuration of the ManagedSeedSet controller (pure). Every problem is listed.
 *
 * ```yaml
 * syncPeriod: 30m          # look at every set again this much later (upstream's syncPeriod)
 * maxShootRetries: 3       # retries of a failed Shoot (gardener.cloud/operation=retry)
 * errorRequeueDelay: 1m    # look again after an error (e.g. "no deletable replicas found")
 * lockRetryDelay: 2s       # look again when another pass holds the set
 * redisUrl: redis://...    # usually from REDIS_URL (requeues and the per-set lease)
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
import { MANAGED_SEED_SET_SYNC_PERIOD_MS, MAX_SHOOT_RETRIES } from './managedseedset.js';

export const FUNCTION_NAME = 'managedseedset';

export const ManagedSeedSetConfigSchema = functionConfigSchema({
  syncPeriod: durationSchema.default(MANAGED_SEED_SET_SYNC_PERIOD_MS),
  maxShootRetries: z.number().int().min(0).max(100).default(MAX_SHOOT_RETRIES),
  errorRequeueDelay: durationSchema.default(60_000),
  lockRetryDelay: durationSchema.default(2_000),
  redisUrl: redisUrlSchema,
});
export type ManagedSeedSetConfig = z.output<typeof ManagedSeedSetConfigSchema>;

export const ENV_OVERRIDES = withLogLevel({
  REDIS_URL: { key: 'redisUrl' },
  SYNC_PERIOD: { key: 'syncPeriod' },
  MAX_SHOOT_RETRIES: { key: 'maxShootRetries', kind: 'number' },
} as const);

/** Parses the file text (may be absent) with the environment's overrides; lists every problem. */
export const loadConfig = configLoader(ManagedSeedSetConfigSchema, ENV_OVERRIDES);
