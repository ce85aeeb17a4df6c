/**
 * Monitoring in the seed's log shapes (seed 000, specs/landscaper.md "Scale and monitoring"):
 * in-flight "worker threads" per controller across instances (Redis), and "HPA Statistics" per
 * function from PodAutoscalers, HPAs or the embedded activator. No I/O at import time.
 */
export {
  maxWorkers,
  MONITORING_FAMILY,
  MONITORING_KEYS,
  shouldLogWorkers,
  WORKER_LOG_PERCENT,
  WorkerCounterError,
  workerMember,
  workersKey,
  workerThreadsLine,
} from './workers-model.js';
export type { WorkerThreadsLine } from './workers-model.js';
export { createWorkerCounter, DEFAULT_WORKER_TTL_MS } from './workers.js';
export type {
  InFlight,
  IntervalTimers,
  ReconcileStart,
  WorkerCounter,
  WorkerCounterOptions,
} from './workers.js';
export {
  fromActivator,
  fromHpa,
  fromPodAutoscaler,
  HPA_STATISTICS_KEYS,
  HPA_STATISTICS_MSG,
  hpaOf,
  hpaStatistics,
  isHpaClass,
  knativeStatistics,
  KnativeAutoscaling,
  mergeRevisions,
  MONITORING_LOGGER_NAME,
  ownedByPodAutoscaler,
  POD_AUTOSCALER_GVK,
  podAutoscalerResource,
  resourceMetrics,
  statisticsFields,
} from './hpa.js';
export type {
  ActivatorStatusRow,
  HorizontalPodAutoscaler,
  HpaStatistics,
  MetricStatus,
  MetricValueStatus,
  PodAutoscaler,
} from './hpa.js';
export {
  activatorSource,
  ActivatorStatusError,
  collectStatistics,
  fetchActivatorStatus,
  hpaSource,
  knativeSource,
  listAll,
  listHpas,
  listPodAutoscalers,
  parseActivatorStatus,
} from './statistics.js';
export type { CollectResult, FetchActivatorOptions, KubeLister, StatisticsSource } from './statistics.js';
