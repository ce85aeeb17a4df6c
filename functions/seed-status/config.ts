/**
 * Configuration of the seed status writer (pure): one YAML file (CONFIG_FILE), single keys
 * overridden by environment variables. Every problem of the file's shape is listed; the
 * quantities themselves are checked per Seed when used (./decide.ts), so one bad entry is a
 * Warning Event on its Seed instead of a function that does nothing at all.
 *
 * ```yaml
 * managedSeedNamespace: garden   # a Seed with a ManagedSeed of its name here takes the
 *                                # ManagedSeed's spec.gardenlet.config.resources (default shoots: 250)
 * default:                       # gardenlet-style resources of every other Seed (none: not written)
 *   capacity: {shoots: 250}
 * seeds:                         # per Seed name, instead of the default
 *   local: {capacity: {shoots: 100}, reserved: {shoots: 10}}
 * concurrency: 4                 # Seeds looked at once on a resync
 * logLevel: info
 * ```
 */
import * as z from '../../shared/config/zod.js';
import { MANAGED_SEED_NAMESPACE } from '../../shared/api/seedmanagement.js';
import { configLoader, functionConfigSchema, withLogLevel } from '../../shared/config/index.js';

export const FUNCTION_NAME = 'seed-status';

const resourceList = z.record(z.string().min(1), z.union([z.string(), z.number()]));

export const ResourcesSchema = z.strictObject({
  capacity: resourceList.optional(),
  reserved: resourceList.optional(),
});

export const SeedStatusConfigSchema = functionConfigSchema({
  managedSeedNamespace: z.string().min(1).default(MANAGED_SEED_NAMESPACE),
  default: ResourcesSchema.optional(),
  seeds: z.record(z.string().min(1), ResourcesSchema).default({}),
  concurrency: z.number().int().min(1).max(64).default(4),
});
export type SeedStatusConfig = z.output<typeof SeedStatusConfigSchema>;

export const ENV_OVERRIDES = withLogLevel({
  MANAGED_SEED_NAMESPACE: { key: 'managedSeedNamespace' },
} as const);

/** Parses the file text (may be absent) with the environment's overrides; lists every problem. */
export const loadConfig = configLoader(SeedStatusConfigSchema, ENV_OVERRIDES);
