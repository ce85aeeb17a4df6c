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
 * ```
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CacheUsageError, FAMILY_NAME, parseDuration, safeRedisUrl } from '../../shared/cache/index.js';

export const FUNCTION_NAME = 'requeue-tick';

const duration = z.union([z.number(), z.string()]).transform((v, ctx) => {
  try {
    return parseDuration(v);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});

const redisUrl = z.string().refine(
  (v) => {
    try {
      safeRedisUrl(v);
      return true;
    } catch (err) {
      if (err instanceof CacheUsageError) return false;
      throw err;
    }
  },
  { message: 'must be a redis:// or rediss:// URL' },
);

export const TickConfigSchema = z.strictObject({
  targets: z.array(z.string().regex(FAMILY_NAME, 'must be a function name')).default([]),
  discoverTargets: z.boolean().default(true),
  batchSize: z.number().int().min(1).max(1000).default(50),
  maxPerTarget: z.number().int().min(1).default(1000),
  emitTimeout: duration.default(5000),
  source: z.string().min(1).default(`/apis/landscape/functions/${FUNCTION_NAME}`),
  redisUrl: redisUrl,
  sink: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL (K_SINK)' }),
});

export type TickConfig = z.output<typeof TickConfigSchema>;

/** Environment variable → config key. Numbers and booleans are converted; lists are comma-separated. */
export const ENV_OVERRIDES = {
  REDIS_URL: 'redisUrl',
  K_SINK: 'sink',
  REQUEUE_TARGETS: 'targets',
  REQUEUE_DISCOVER_TARGETS: 'discoverTargets',
  REQUEUE_BATCH_SIZE: 'batchSize',
  REQUEUE_MAX_PER_TARGET: 'maxPerTarget',
  REQUEUE_EMIT_TIMEOUT: 'emitTimeout',
} as const;

export type ConfigResult = { ok: true; config: TickConfig } | { ok: false; problems: string[] };

function envValue(key: string, raw: string): unknown {
  if (key === 'targets')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (key === 'discoverTargets') return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (key === 'batchSize' || key === 'maxPerTarget') return /^\d+$/.test(raw) ? Number(raw) : raw;
  return raw;
}

function parseFile(text: string | undefined, problems: string[]): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  try {
    const doc: unknown = parseYaml(text);
    if (doc === null || doc === undefined) return {};
    if (typeof doc === 'object' && !Array.isArray(doc)) return doc as Record<string, unknown>;
    problems.push('config file: the document must be a mapping');
  } catch (err) {
    problems.push(`config file: not YAML: ${(err as Error).message}`);
  }
  return {};
}

/** Parses the file text (may be absent) with the environment's overrides; lists every problem. */
export function loadConfig(
  fileText: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult {
  const problems: string[] = [];
  const raw = { ...parseFile(fileText, problems) };
  for (const [name, key] of Object.entries(ENV_OVERRIDES)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[key] = envValue(key, value);
  }
  const parsed = TickConfigSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.length > 0 ? issue.path.join('.') : '(root)';
      problems.push(`${path}: ${issue.message}`);
    }
  }
  if (problems.length > 0 || !parsed.success) return { ok: false, problems };
  return { ok: true, config: parsed.data };
}
