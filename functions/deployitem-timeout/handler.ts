/**
 * deployitem-timeout: the pickup timeout. Every DeployItem whose job no deployer picked up within
 * `pickupTimeout` ends Failed (DeleteFailed when deleting) with WaitingForPickup / PickupTimeout /
 * ERR_TIMEOUT (./check.ts). A sweep runs on each event the function gets: its own queued sweep
 * (`dev.landscape.requeue`, ./schedule.ts: each sweep queues the next at the time a job can be due
 * first) and the deployers' resync ping, which starts the chain (and restarts it should its entry
 * be lost); a warm instance skips a sweep no job can be due for. No PingSource wakes it: an idle
 * landscape starts no replica of it between sweeps. The progressing timeout is the deployers' own
 * (checkpoints).
 * Config: CONFIG_FILE (YAML) with LOG_LEVEL, PICKUP_TIMEOUT and REDIS_URL overrides (./config.ts).
 */
import * as ff from '@google-cloud/functions-framework';
import {
  createInstance,
  kubeFunctionDeps,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { passQueue, type PassQueue } from '../../shared/function/redis.js';
import { checkAll, type TimeoutDeps, type TimeoutSummary } from './check.js';
import { FUNCTION_NAME, loadConfig, type TimeoutConfig } from './config.js';
import { nextSweep, SWEEP_REF } from './schedule.js';

export { FUNCTION_NAME } from './config.js';

/** The dependencies, with the queue of its own passes (absent without `redisUrl`). */
export interface TimeoutInstanceDeps extends TimeoutDeps, PassQueue {}

export function createTimeoutInstance(
  opts: InstanceOptions = {},
  overrides: Partial<TimeoutInstanceDeps> = {},
): FunctionInstance<TimeoutConfig, TimeoutInstanceDeps> {
  return createInstance<TimeoutConfig, TimeoutInstanceDeps>(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ config, env, log }) => ({
        ...kubeFunctionDeps(FUNCTION_NAME, env, log),
        sweep: {},
        ...passQueue(config.redisUrl, FUNCTION_NAME, SWEEP_REF, log),
        ...overrides,
      }),
      close: async (deps) => deps.handle?.close(),
    },
    opts,
  );
}

/**
 * One sweep and the next one queued: the summary (tests). A sweep that fails (a list or write the
 * API server refused) queues a retry a minute later before it throws, so the chain outlives the
 * Broker's retries of this event.
 */
export async function runTimeoutTick(
  instance: FunctionInstance<TimeoutConfig, TimeoutInstanceDeps>,
): Promise<TimeoutSummary & { next?: Date }> {
  const r = await instance.ready();
  let summary: TimeoutSummary;
  try {
    summary = await checkAll(r.deps, r.config);
  } catch (err) {
    await queueRetry(r.deps);
    throw err;
  }
  if (summary.timedOut > 0 || summary.conflicts > 0) r.log.info('pickup timeouts checked', { ...summary });
  const next = nextSweep(r.deps.sweep?.nextAt);
  if (next === undefined || r.deps.schedule === undefined) return summary;
  await r.deps.schedule(next);
  r.log.debug('next sweep queued', { at: next.toISOString() });
  return { ...summary, next };
}

/** After a failed sweep, the next one is queued this much later (one requeue-tick on Knative). */
const RETRY_MS = 60_000;

/** Queues the sweep after a failed one (at the latest RETRY_MS from now); a Redis error is dropped. */
async function queueRetry(deps: TimeoutInstanceDeps): Promise<void> {
  const retry = nextSweep(Math.min(deps.sweep?.nextAt ?? Infinity, deps.now().getTime() + RETRY_MS));
  if (retry && deps.schedule) await deps.schedule(retry).catch(() => undefined);
}

export const instance = createTimeoutInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const deployitemTimeout = async (): Promise<void> => {
  await runTimeoutTick(instance);
};

ff.cloudEvent(FUNCTION_NAME, deployitemTimeout);
ff.cloudEvent('deployitemTimeout', deployitemTimeout);
