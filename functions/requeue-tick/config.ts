/**
 * Configuration of the requeue ticker (pure): one YAML file (CONFIG_FILE), single keys overridden
 * by environment variables. Every problem is listed.
 *
 * ```yaml
 * targets: [deployer-mock]   # functions always ticked (besides those found in Redis)
 * discoverTargets: true      # also tick every target ever requeued to (Redis set)
 * batchSize: 50              # items popped and emitted at once
 * maxPerTarget: 1000         # items per target per tick (the rest waits for the next tick)
 * emitTimeout: 5s            # per POST to K_SINK
 * source: /apis/landscape/functions/requeue-tick
 * redisUrl: redis://...      # usually from REDIS_URL
 * sink: http://...           # usually from K_SINK
 * sinkToken: ...             # optional bearer token for the sink, usually from K_SINK_TOKEN
 * ```
 */
import {
  durationSchema,
  loadConfigWith,
  type ConfigResult as SharedConfigResult,
  type EnvOverride,
} from '../../shared/config/index.js';
import * as z from '../../shared/config/zod.js';
import { FAMILY_NAME } from '../../shared/redis/index.js';
import { redisUrlSchema } from '../../shared/config/redis.js';

export const FUNCTION_NAME = 'requeue-tick';

const duration = durationSchema;

export const TickConfigSchema = z.strictObject({
  targets: z.array(z.string().regex(FAMILY_NAME, 'must be a function name')).default([]),
  discoverTargets: z.boolean().default(true),
  batchSize: z.number().int().min(1).max(1000).default(50),
  maxPerTarget: z.number().int().min(1).default(1000),
  emitTimeout: duration.default(5000),
  source: z.string().min(1).default(`/apis/landscape/functions/${FUNCTION_NAME}`),
  redisUrl: redisUrlSchema,
  sink: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL (K_SINK)' }),
  /** Bearer token for the sink (K_SINK_TOKEN; the embedded landscape's ingress); never logged. */
  sinkToken: z.string().min(1).optional(),
});

export type TickConfig = z.output<typeof TickConfigSchema>;

/** Environment variable → config key. Numbers and booleans are converted; lists are comma-separated. */
export const ENV_OVERRIDES = {
  REDIS_URL: { key: 'redisUrl' },
  K_SINK: { key: 'sink' },
  K_SINK_TOKEN: { key: 'sinkToken' },
  REQUEUE_TARGETS: { key: 'targets', kind: 'list' },
  REQUEUE_DISCOVER_TARGETS: { key: 'discoverTargets', kind: 'boolean' },
  REQUEUE_BATCH_SIZE: { key: 'batchSize', kind: 'number' },
  REQUEUE_MAX_PER_TARGET: { key: 'maxPerTarget', kind: 'number' },
  REQUEUE_EMIT_TIMEOUT: { key: 'emitTimeout' },
} as const satisfies Record<string, EnvOverride>;

export type ConfigResult = SharedConfigResult<TickConfig>;

/** Parses the file text (may be absent) with the environment's overrides; lists every problem. */
export function loadConfig(
  fileText: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult {
  return loadConfigWith(TickConfigSchema, ENV_OVERRIDES, fileText, env);
}
