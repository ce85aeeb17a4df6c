/**
 * landscaper-monitoring: the seed's "HPA Statistics" log, one line per function on a PingSource
 * tick (every minute), from Knative PodAutoscalers (and the HPAs of HPA-class ones), plain HPAs,
 * or the embedded landscape's activator (shared/monitoring). A failing source is logged and the
 * others still are. Lines come from the logger `controllers.landscaper-monitoring`, as upstream.
 * Config: CONFIG_FILE (YAML) with LOG_LEVEL and LANDSCAPE_ACTIVATOR_URL overrides (./config.ts).
 */
import * as ff from '@google-cloud/functions-framework';
import {
  createInstance,
  hostKubeClient,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { createLogger, isLogLevel } from '../../shared/log/index.js';
import {
  activatorSource,
  collectStatistics,
  hpaSource,
  knativeSource,
  MONITORING_LOGGER_NAME,
  type CollectResult,
  type StatisticsSource,
} from '../../shared/monitoring/index.js';
import { FUNCTION_NAME, loadConfig, type MonitoringConfig } from './config.js';

export { FUNCTION_NAME } from './config.js';

export function createMonitoringInstance(
  opts: InstanceOptions = {},
): FunctionInstance<MonitoringConfig, readonly StatisticsSource[]> {
  return createInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ config, env }) => {
        const needsKube = config.knative || config.hpa;
        const client = needsKube ? hostKubeClient(env, FUNCTION_NAME) : undefined;
        const sources: StatisticsSource[] = [];
        if (client && config.knative) sources.push(knativeSource(client, config.namespace));
        if (client && config.hpa) sources.push(hpaSource(client, config.namespace));
        if (config.activatorUrl) sources.push(activatorSource(config.activatorUrl));
        return sources;
      },
    },
    opts,
  );
}

/** One tick: what was logged (tests); undefined when the config is bad. */
export async function runStatisticsTick(
  instance: FunctionInstance<MonitoringConfig, readonly StatisticsSource[]>,
): Promise<CollectResult | undefined> {
  const r = await instance.ready();
  const env = process.env;
  const level = env['LOG_LEVEL'];
  const log = createLogger({
    name: MONITORING_LOGGER_NAME,
    level: isLogLevel(level) ? level : r.config.logLevel,
  });
  return collectStatistics(r.deps, log);
}

export const instance = createMonitoringInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const landscaperMonitoring = async (): Promise<void> => {
  await runStatisticsTick(instance);
};

ff.cloudEvent(FUNCTION_NAME, landscaperMonitoring);
ff.cloudEvent('landscaperMonitoring', landscaperMonitoring);
