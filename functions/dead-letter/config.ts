/**
 * Configuration of the dead-letter sink (pure): one YAML file (CONFIG_FILE), single keys
 * overridden by environment variables. Every problem is listed.
 *
 * ```yaml
 * logData: false            # log the event's data (redacted, truncated); off: only its size and type
 * maxDataChars: 2048        # with logData: characters of the data's JSON kept
 * maxErrorDataChars: 512    # characters of the decoded knativeerrordata (the subscriber's answer) kept
 * logLevel: info            # debug | info | warn | error (dead letters are logged at warn)
 * ```
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { LOG_LEVELS } from '../../shared/log/index.js';

export const FUNCTION_NAME = 'dead-letter';

const chars = z.number().int().min(0).max(65_536);

export const DeadLetterConfigSchema = z.strictObject({
  logData: z.boolean().default(false),
  maxDataChars: chars.default(2048),
  maxErrorDataChars: chars.default(512),
  logLevel: z.enum(LOG_LEVELS).default('info'),
});

export type DeadLetterConfig = z.output<typeof DeadLetterConfigSchema>;

/** The configuration without a file and without overrides. */
export function defaultConfig(): DeadLetterConfig {
  return DeadLetterConfigSchema.parse({});
}

/** Environment variable → config key. Numbers and booleans are converted. */
export const ENV_OVERRIDES = {
  LOG_LEVEL: 'logLevel',
  DEAD_LETTER_LOG_DATA: 'logData',
  DEAD_LETTER_MAX_DATA_CHARS: 'maxDataChars',
  DEAD_LETTER_MAX_ERROR_DATA_CHARS: 'maxErrorDataChars',
} as const;

export type ConfigResult = { ok: true; config: DeadLetterConfig } | { ok: false; problems: string[] };

function envValue(key: string, raw: string): unknown {
  if (key === 'logData') return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (key === 'maxDataChars' || key === 'maxErrorDataChars') return /^\d+$/.test(raw) ? Number(raw) : raw;
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
  const parsed = DeadLetterConfigSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.length > 0 ? issue.path.join('.') : '(root)';
      problems.push(`${path}: ${issue.message}`);
    }
  }
  if (problems.length > 0 || !parsed.success) return { ok: false, problems };
  return { ok: true, config: parsed.data };
}
