/**
 * Configuration of the pickup-timeout checker (pure). Every problem is listed.
 *
 * ```yaml
 * pickupTimeout: 5m     # Go duration; "none" or 0 switches it off
 * redisUrl: redis://...  # usually from REDIS_URL: where the next sweep is queued (shared/requeue);
 *                        # without it the function sweeps only when an event (the resync) comes
 * ```
 */
import * as z from '../../shared/config/zod.js';
import { redisUrlSchema } from '../../shared/config/redis.js';
import { configLoader, functionConfigSchema, withLogLevel } from '../../shared/config/index.js';
import { parseTimeout } from '../../shared/deployer/index.js';

export const FUNCTION_NAME = 'deployitem-timeout';

export const TimeoutConfigSchema = functionConfigSchema({
  pickupTimeout: z
    .string()
    .default('5m')
    .refine(
      (v) => {
        try {
          parseTimeout(v, 'none');
          return true;
        } catch {
          return false;
        }
      },
      { message: 'must be a Go duration (e.g. 5m, 90s) or none' },
    ),
  redisUrl: redisUrlSchema.optional(),
});
export type TimeoutConfig = z.output<typeof TimeoutConfigSchema>;

export const ENV_OVERRIDES = withLogLevel({
  PICKUP_TIMEOUT: { key: 'pickupTimeout' },
  REDIS_URL: { key: 'redisUrl' },
} as const);

export const loadConfig = configLoader(TimeoutConfigSchema, ENV_OVERRIDES);
