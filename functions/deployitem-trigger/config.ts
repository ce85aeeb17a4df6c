/**
 * Configuration of the job trigger (pure): one YAML file (CONFIG_FILE), single keys overridden by
 * environment variables. Every problem is listed.
 *
 * ```yaml
 * enabled: true               # false where a real Landscaper hands out the jobs
 * ensureDefaultContext: true  # create the Context `default` in an item's namespace when missing
 * ```
 */
import { z } from 'zod';
import {
  loadConfigWith,
  type ConfigResult as SharedConfigResult,
  type EnvOverride,
} from '../../shared/config/index.js';
import { LOG_LEVELS } from '../../shared/log/index.js';

export const FUNCTION_NAME = 'deployitem-trigger';

export const TriggerConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  ensureDefaultContext: z.boolean().default(true),
  logLevel: z.enum(LOG_LEVELS).default('info'),
});
export type TriggerConfig = z.output<typeof TriggerConfigSchema>;

export const ENV_OVERRIDES = {
  LOG_LEVEL: { key: 'logLevel' },
  DEPLOYITEM_TRIGGER_ENABLED: { key: 'enabled', kind: 'boolean' },
} as const satisfies Record<string, EnvOverride>;

export type ConfigResult = SharedConfigResult<TriggerConfig>;

export function loadConfig(
  fileText: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult {
  return loadConfigWith(TriggerConfigSchema, ENV_OVERRIDES, fileText, env);
}
