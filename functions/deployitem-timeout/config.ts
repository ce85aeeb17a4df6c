/**
 * Configuration of the pickup-timeout checker (pure). Every problem is listed.
 *
 * ```yaml
 * pickupTimeout: 5m     # Go duration; "none" or 0 switches it off
 * ```
 */
import { z } from 'zod';
import {
  loadConfigWith,
  type ConfigResult as SharedConfigResult,
  type EnvOverride,
} from '../../shared/config/index.js';
import { parseTimeout } from '../../shared/deployer/index.js';
import { LOG_LEVELS } from '../../shared/log/index.js';

export const FUNCTION_NAME = 'deployitem-timeout';

export const TimeoutConfigSchema = z.strictObject({
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
  logLevel: z.enum(LOG_LEVELS).default('info'),
});
export type TimeoutConfig = z.output<typeof TimeoutConfigSchema>;

export const ENV_OVERRIDES = {
  LOG_LEVEL: { key: 'logLevel' },
  PICKUP_TIMEOUT: { key: 'pickupTimeout' },
} as const satisfies Record<string, EnvOverride>;

export type ConfigResult = SharedConfigResult<TimeoutConfig>;

export function loadConfig(
  fileText: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult {
  return loadConfigWith(TimeoutConfigSchema, ENV_OVERRIDES, fileText, env);
}
