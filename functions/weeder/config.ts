/**
 * Configuration of the weeder: the seed's weeder config file (shared/watchdog/config.ts:
 * `watchDuration`, `servicesAndDependantSelectors`, case-insensitive keys, Go durations) with the
 * KUBE_API_QPS / KUBE_API_BURST / CONCURRENT_RECONCILES overrides; without a file, upstream's
 * example config (etcd-main-client and kube-apiserver with their selectors). REDIS_URL (where the
 * watch windows and the last seen readiness live) comes from the environment. Every problem is
 * listed.
 */
import type { ConfigResult } from '../../shared/config/index.js';
import {
  DEFAULT_WEEDER_CONFIG_YAML,
  loadWeederConfig,
  type WeederConfig,
} from '../../shared/watchdog/config.js';

export type { WeederConfig } from '../../shared/watchdog/config.js';

export const FUNCTION_NAME = 'weeder';

export function loadConfig(
  fileText: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult<WeederConfig> {
  return loadWeederConfig(fileText ?? DEFAULT_WEEDER_CONFIG_YAML, env);
}
