/**
 * Configuration of the deletion protection (pure): one YAML file (CONFIG_FILE), single keys
 * overridden by environment variables. Every problem is listed.
 *
 * ```yaml
 * seeds: true            # keep the finalizer on Seeds (deleting one waits while shoots use it)
 * shoots: true           # keep it on Shoots a ManagedSeed references
 * recheckInterval: 30s   # look again at a blocked deletion this much later (besides Shoot/ManagedSeed events)
 * concurrency: 4         # objects looked at once for one event or a resync
 * redisUrl: redis://...  # usually from REDIS_URL (the requeues)
 * logLevel: info
 * ```
 *
 * Switch a kind off where gardener-apiserver's admission plugins already refuse such deletions.
 */
import * as z from '../../shared/config/zod.js';
import { redisUrlSchema } from '../../shared/config/redis.js';
import {
  configLoader,
  durationSchema,
  functionConfigSchema,
  withLogLevel,
} from '../../shared/config/index.js';

export const FUNCTION_NAME = 'deletion-protection';

export const ProtectionConfigSchema = functionConfigSchema({
  seeds: z.boolean().default(true),
  shoots: z.boolean().default(true),
  recheckInterval: durationSchema.default(30_000),
  concurrency: z.number().int().min(1).max(64).default(4),
  redisUrl: redisUrlSchema,
});
export type ProtectionConfig = z.output<typeof ProtectionConfigSchema>;

export const ENV_OVERRIDES = withLogLevel({
  REDIS_URL: { key: 'redisUrl' },
  PROTECT_SEEDS: { key: 'seeds', kind: 'boolean' },
  PROTECT_SHOOTS: { key: 'shoots', kind: 'boolean' },
  PROTECTION_RECHECK_INTERVAL: { key: 'recheckInterval' },
} as const);

/** Parses the file text (may be absent) with the environment's overrides; lists every problem. */
export const loadConfig = configLoader(ProtectionConfigSchema, ENV_OVERRIDES);
