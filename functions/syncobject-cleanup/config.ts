/**
 * Configuration of the SyncObject cleanup (pure). Every problem is listed.
 *
 * ```yaml
 * namespace: ""      # only this namespace; empty: all
 * prefix: ""         # only SyncObjects of this controller (spec.prefix); empty: all
 * ```
 */
import * as z from '../../shared/config/zod.js';
import { configLoader, functionConfigSchema, withLogLevel } from '../../shared/config/index.js';

export const FUNCTION_NAME = 'syncobject-cleanup';

export const CleanupConfigSchema = functionConfigSchema({
  namespace: z.string().default(''),
  prefix: z.string().default(''),
});
export type CleanupConfig = z.output<typeof CleanupConfigSchema>;

export const ENV_OVERRIDES = withLogLevel({} as const);

export const loadConfig = configLoader(CleanupConfigSchema, ENV_OVERRIDES);
