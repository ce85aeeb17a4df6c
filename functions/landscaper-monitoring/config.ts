/**
 * Configuration of the autoscaling statistics (pure). Every problem is listed.
 *
 * ```yaml
 * namespace: landscape-system   # where the functions' Knative Services run
 * knative: true                 # Knative PodAutoscalers (and the HPAs of HPA-class ones)
 * hpa: false                    # also HPAs that no PodAutoscaler owns
 * activatorUrl: ""              # the embedded landscape's activator (LANDSCAPE_ACTIVATOR_URL)
 * ```
 */
import * as z from '../../shared/config/zod.js';
import { configLoader, functionConfigSchema, withLogLevel } from '../../shared/config/index.js';

export const FUNCTION_NAME = 'landscaper-monitoring';

export const MonitoringConfigSchema = functionConfigSchema({
  namespace: z.string().min(1).default('landscape-system'),
  knative: z.boolean().default(true),
  hpa: z.boolean().default(false),
  activatorUrl: z.union([z.literal(''), z.url({ protocol: /^https?$/ })]).default(''),
});
export type MonitoringConfig = z.output<typeof MonitoringConfigSchema>;

export const ENV_OVERRIDES = withLogLevel({
  LANDSCAPE_ACTIVATOR_URL: { key: 'activatorUrl' },
} as const);

export const loadConfig = configLoader(MonitoringConfigSchema, ENV_OVERRIDES);
