/**
 * The "worker threads" model (pure). Seed 000: each controller counts the reconciles in flight
 * and logs the count at the start of a reconcile when it exceeds 70% of the maximum:
 *
 *   {"level":"info","msg":"worker threads of controller <name>","reconciledResourceKind":"DeployItem","usedWorkerThreads":10}
 *
 * Here a controller is a function with several instances, so the count is across all instances
 * (Redis) and the maximum is instances × concurrency (max-scale × containerConcurrency).
 *
 * In Redis: one sorted set per controller, `landscape:monitoring:workers:<controller>`; member
 * `<instance>/<request id>`, score = the epoch ms after which the entry no longer counts. An
 * instance that crashes leaves its entries behind, and they stop counting when they expire (an
 * INCR/DECR counter would leak them for ever).
 */
import { keyspace, type CacheKey } from '../redis/index.js';
import type { LogFields } from '../log/index.js';

export const MONITORING_FAMILY = 'monitoring';
export const MONITORING_KEYS = keyspace(MONITORING_FAMILY);

/** The share of the maximum above which the count is logged (seed 000: 70%). */
export const WORKER_LOG_PERCENT = 70;

/** Bad input to the worker counter (a programming error, not retried). */
export class WorkerCounterError extends Error {
  override readonly name = 'WorkerCounterError';
  readonly transient = false;
}

/** The sorted set of one controller's in-flight reconciles. */
export function workersKey(controller: string): CacheKey {
  if (controller === '') throw new WorkerCounterError('controller name must not be empty');
  return MONITORING_KEYS.key('workers', controller);
}

/** `<instance>/<request id>`: one entry per reconcile in flight. */
export function workerMember(instance: string, requestId: string): string {
  if (instance === '' || requestId === '') {
    throw new WorkerCounterError(`instance and request id must not be empty (got ${instance}/${requestId})`);
  }
  return `${instance}/${requestId}`;
}

/**
 * instances × concurrency, or undefined when there is no maximum (either is 0 or negative:
 * Knative's "no limit" for max-scale and containerConcurrency, or not a finite number).
 */
export function maxWorkers(instances: number, concurrency: number): number | undefined {
  if (!Number.isFinite(instances) || !Number.isFinite(concurrency)) return undefined;
  if (instances <= 0 || concurrency <= 0) return undefined;
  return instances * concurrency;
}

/**
 * Whether `count` reconciles in flight exceed 70% of instances × concurrency (the spec's
 * "exceeds"; upstream's WorkerCounter logs at `>=`). Never true without a maximum.
 */
export function shouldLogWorkers(count: number, instances: number, concurrency: number): boolean {
  const max = maxWorkers(instances, concurrency);
  if (max === undefined) return false;
  return count * 100 > max * WORKER_LOG_PERCENT;
}

export interface WorkerThreadsLine {
  msg: string;
  fields: LogFields;
}

/** The log line in the seed's shape. */
export function workerThreadsLine(controller: string, kind: string, count: number): WorkerThreadsLine {
  return {
    msg: `worker threads of controller ${controller}`,
    fields: { reconciledResourceKind: kind, usedWorkerThreads: count },
  };
}
