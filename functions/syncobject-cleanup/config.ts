/**
 * Configuration of the SyncObject cleanup (pure). Every problem is listed.
 *
 * ```yaml
 * namespace: ""      # only this namespace; empty: all
 * prefix: ""         # only SyncObjects of this controller (spec.prefix); empty: all
 * ```
 */
import { z } from 'zod';
import {
  loadConfigWith,
  type ConfigResult as SharedConfigResult,
  type EnvOverride,
} from '../../shared/config/index.js';
import { LOG_LEVELS } from '../../shared/log/index.js';

export const FUNCTION_NAME = 'syncobject-cleanup';

export const CleanupConfigSchema = z.strictObject({
  namespace: z.string().default(''),
  prefix: z.string().default(''),
  logLevel: z.enum(LOG_LEVELS).default('info'),
});
export type CleanupConfig = z.output<typeof CleanupConfigSchema>;

export const ENV_OVERRIDES = {
  LOG_LEVEL: { key: 'logLevel' },
} as const satisfies Record<string, EnvOverride>;

export type ConfigResult = SharedConfigResult<CleanupConfig>;

export function loadConfig(
  fileText: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult {
  return loadConfigWith(CleanupConfigSchema, ENV_OVERRIDES, fileText, env);
}
