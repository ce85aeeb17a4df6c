/**
 * The brokers of a manifest set, as the embedded landscape and the Cloud Functions event service
 * both run them: one Broker per Broker manifest with every Trigger (each keeps its own), shared
 * metrics, dead letters in `<stateDir>/dlq/` when a state directory is given.
 */
import { join } from 'node:path';
import type { FetchLike } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log/index.js';
import { Broker, type RefResolver } from './broker.js';
import { deadLetterFile, JsonlDeadLetterStore } from './dlq.js';
import type { BrokerFaults } from './faults.js';
import type { RunningIngress } from './ingress.js';
import type { BrokerMetrics } from './metrics.js';
import type { BrokerConfig, Trigger } from './trigger.js';

export interface BrokerSetOptions {
  brokers: readonly BrokerConfig[];
  triggers: readonly Trigger[];
  resolve: RefResolver;
  metrics: BrokerMetrics;
  log: Logger;
  stateDir?: string;
  /** The ingress's base URL: each broker's address is `<ingressUrl>/<namespace>/<name>`. */
  ingressUrl?: string;
  fetch?: FetchLike;
  /** One fault injector for every broker (off unless set). */
  faults?: BrokerFaults;
}

export function createBrokers(o: BrokerSetOptions): Broker[] {
  return o.brokers.map(
    (b) =>
      new Broker({
        name: b.name,
        namespace: b.namespace,
        ...(o.ingressUrl !== undefined ? { address: `${o.ingressUrl}/${b.namespace}/${b.name}` } : {}),
        triggers: o.triggers,
        delivery: b.delivery,
        resolve: o.resolve,
        metrics: o.metrics,
        log: (level, msg, fields) => o.log[level](msg, fields),
        ...(o.fetch ? { fetch: o.fetch } : {}),
        ...(o.faults ? { faults: o.faults } : {}),
        ...(o.stateDir !== undefined
          ? { deadLetters: new JsonlDeadLetterStore(deadLetterFile(join(o.stateDir, 'dlq'), b)) }
          : {}),
      }),
  );
}

/**
 * Closes the ingress (its port and its in-process path: nothing new comes in); deliveries in flight
 * get up to `graceMs`, retries waiting on backoff are not waited for.
 */
export async function stopBrokers(
  ingress: RunningIngress,
  brokers: readonly Broker[],
  graceMs = 2000,
): Promise<void> {
  await ingress.close();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(brokers.map((b) => b.idle())),
    new Promise((r) => (timer = setTimeout(r, graceMs))),
  ]);
  clearTimeout(timer);
  for (const b of brokers) b.stop();
}
