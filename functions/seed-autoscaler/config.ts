/**
 * Configuration of the SeedAutoscaler controller (pure): the HPA controller's flags that apply.
 * Every problem is listed.
 *
 * ```yaml
 * tolerance: 0.1                 # no rescale while |1 - usage/target| <= tolerance
 * downscaleStabilization: 5m     # scale-down window when an autoscaler sets no behavior.scaleDown
 * concurrency: 4                 # autoscalers handled at once on a pass over all
 * syncPeriod: 1m                 # a pass over all this long after the last while any exists
 * redisUrl: redis://...          # usually REDIS_URL: where the next pass is queued (shared/requeue)
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
import { DEFAULT_DOWNSCALE_STABILIZATION_SECONDS, DEFAULT_TOLERANCE } from './autoscaler.js';
import { parseGoDuration } from '@landscape/apimachinery';

export const FUNCTION_NAME = 'seed-autoscaler';

const MAX_WINDOW_MS = 3_600_000;

/** A Go duration from 0 to 1h (or milliseconds as a number), in whole seconds. */
const windowSchema = z.union([z.number(), z.string()]).transform((v, ctx) => {
  try {
    const ms = typeof v === 'number' ? v : parseGoDuration(v.trim());
    if (Number.isFinite(ms) && ms >= 0 && ms <= MAX_WINDOW_MS) return Math.round(ms / 1000);
    ctx.addIssue({ code: 'custom', message: `must be between 0s and 1h, got ${JSON.stringify(v)}` });
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
  return z.NEVER;
});

export const SeedAutoscalerConfigSchema = functionConfigSchema({
  tolerance: z.number().min(0).max(1).default(DEFAULT_TOLERANCE),
  /** Seconds (the file says a Go duration). */
  downscaleStabilization: windowSchema.default(DEFAULT_DOWNSCALE_STABILIZATION_SECONDS),
  concurrency: z.number().int().min(1).max(100).default(4),
  /** Milliseconds (the file says a Go duration). */
  syncPeriod: durationSchema.refine((ms) => ms >= 1000, { message: 'must be at least 1s' }).default(60_000),
  redisUrl: redisUrlSchema.optional(),
});
export type SeedAutoscalerConfig = z.output<typeof SeedAutoscalerConfigSchema>;

export const ENV_OVERRIDES = withLogLevel({
  AUTOSCALER_TOLERANCE: { key: 'tolerance', kind: 'number' },
  DOWNSCALE_STABILIZATION: { key: 'downscaleStabilization' },
  SYNC_PERIOD: { key: 'syncPeriod' },
  REDIS_URL: { key: 'redisUrl' },
} as const);

/** Parses the file text (may be absent) with the environment's overrides; lists every problem. */
export const loadConfig = configLoader(SeedAutoscalerConfigSchema, ENV_OVERRIDES);
