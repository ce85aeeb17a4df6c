/**
 * Configuration of the job trigger (pure): one YAML file (CONFIG_FILE), single keys overridden by
 * environment variables. Every problem is listed.
 *
 * ```yaml
 * enabled: true               # false where a real Landscaper hands out the jobs
 * ensureDefaultContext: true  # create the Context `default` in an item's namespace when missing
 * ```
 */
import * as z from '../../shared/config/zod.js';
import { configLoader, functionConfigSchema, withLogLevel } from '../../shared/config/index.js';

export const FUNCTION_NAME = 'deployitem-trigger';

export const TriggerConfigSchema = functionConfigSchema({
  enabled: z.boolean().default(true),
  ensureDefaultContext: z.boolean().default(true),
});
export type TriggerConfig = z.output<typeof TriggerConfigSchema>;

export const ENV_OVERRIDES = withLogLevel({
  DEPLOYITEM_TRIGGER_ENABLED: { key: 'enabled', kind: 'boolean' },
} as const);

export const loadConfig = configLoader(TriggerConfigSchema, ENV_OVERRIDES);
