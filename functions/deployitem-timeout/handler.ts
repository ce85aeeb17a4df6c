/**
 * deployitem-timeout: the pickup timeout, on a PingSource tick (every minute on Knative, every
 * 5 s in the embedded landscape): every DeployItem whose job no deployer picked up within
 * `pickupTimeout` ends Failed (DeleteFailed when deleting) with WaitingForPickup / PickupTimeout /
 * ERR_TIMEOUT (./check.ts); a warm instance skips the ticks on which no job can be due yet. The
 * progressing timeout is the deployers' own (checkpoints).
 * Config: CONFIG_FILE (YAML) with LOG_LEVEL and PICKUP_TIMEOUT overrides (./config.ts).
 */
import * as ff from '@google-cloud/functions-framework';
import {
  createKubeInstance,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { checkAll, type TimeoutDeps, type TimeoutSummary } from './check.js';
import { FUNCTION_NAME, loadConfig, type TimeoutConfig } from './config.js';

export { FUNCTION_NAME } from './config.js';

export function createTimeoutInstance(
  opts: InstanceOptions = {},
): FunctionInstance<TimeoutConfig, TimeoutDeps> {
  return createKubeInstance(FUNCTION_NAME, loadConfig, () => ({ sweep: {} }), opts);
}

/** One tick: the summary (tests); undefined when the config is bad. */
export async function runTimeoutTick(
  instance: FunctionInstance<TimeoutConfig, TimeoutDeps>,
): Promise<TimeoutSummary | undefined> {
  const r = await instance.ready();
  const summary = await checkAll(r.deps, r.config);
  if (summary.timedOut > 0 || summary.conflicts > 0) r.log.info('pickup timeouts checked', { ...summary });
  return summary;
}

export const instance = createTimeoutInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const deployitemTimeout = async (): Promise<void> => {
  await runTimeoutTick(instance);
};

ff.cloudEvent(FUNCTION_NAME, deployitemTimeout);
ff.cloudEvent('deployitemTimeout', deployitemTimeout);
