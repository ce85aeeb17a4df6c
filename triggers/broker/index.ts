export { Broker, resolveDestination } from './broker.js';
export type { BrokerLog, BrokerOptions, DestinationRef, RefResolver } from './broker.js';
export {
  backoffMs,
  backoffSchedule,
  deliver,
  errorExtensions,
  isRetryableStatus,
  judgeAttempt,
  planDelivery,
} from './delivery.js';
export type { AttemptVerdict, DeliverDeps, DeliveryPlan, DeliveryResult } from './delivery.js';
export {
  DEAD_LETTER_REASONS,
  deadLetterFile,
  JsonlDeadLetterStore,
  MemoryDeadLetterStore,
  storesIn,
} from './dlq.js';
export type { DeadLetter, DeadLetterReason, DeadLetterStore } from './dlq.js';
export { DurationError, isIsoDuration, parseIsoDuration } from './duration.js';
export { evaluateFilter, filterResult, lookupAttribute, matches } from './filter.js';
export type { FilterResult } from './filter.js';
export {
  hasBearerToken,
  ingressHandler,
  listenIngress,
  newIngressToken,
  startIngress,
  withIngressAuth,
} from './ingress.js';
export type { IngressListener, IngressOptions, RunningIngress } from './ingress.js';
export {
  loadManifests,
  loadManifestsOrThrow,
  ManifestError,
  parseManifests,
  yamlFiles,
} from './manifests.js';
export type { ManifestSet } from './manifests.js';
export { brokerMetrics } from './metrics.js';
export type { BrokerMetrics } from './metrics.js';
export { BACKOFF_POLICIES, FILTER_DIALECTS, isBackoffPolicy, toTrigger, triggerKey } from './trigger.js';
export type { BrokerConfig, DeliverySpec, Destination, SubscriptionsApiFilter, Trigger } from './trigger.js';
export { createBrokers, stopBrokers } from './brokers.js';
export { BrokerFaults } from './faults.js';
export type { BrokerFaultCounts, BrokerFaultSpec } from './faults.js';
export type { BrokerSetOptions } from './brokers.js';
