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
import { configLoader, functionConfigSchema, withLogLevel } from '../../shared/config/index.js';
import * as z from '../../shared/config/zod.js';

export const FUNCTION_NAME = 'dead-letter';

const chars = z.number().int().min(0).max(65_536);

export const DeadLetterConfigSchema = functionConfigSchema({
  logData: z.boolean().default(false),
  maxDataChars: chars.default(2048),
  maxErrorDataChars: chars.default(512),
});

export type DeadLetterConfig = z.output<typeof DeadLetterConfigSchema>;

/** The configuration without a file and without overrides. */
export function defaultConfig(): DeadLetterConfig {
  return DeadLetterConfigSchema.parse({});
}

/** Environment variable → config key. Numbers and booleans are converted. */
export const ENV_OVERRIDES = withLogLevel({
  DEAD_LETTER_LOG_DATA: { key: 'logData', kind: 'boolean' },
  DEAD_LETTER_MAX_DATA_CHARS: { key: 'maxDataChars', kind: 'number' },
  DEAD_LETTER_MAX_ERROR_DATA_CHARS: { key: 'maxErrorDataChars', kind: 'number' },
} as const);

/** Parses the file text (may be absent) with the environment's overrides; lists every problem. */
export const loadConfig = configLoader(DeadLetterConfigSchema, ENV_OVERRIDES);
