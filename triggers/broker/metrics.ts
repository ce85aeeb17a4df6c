/** Broker counters (prom-client) in a registry the caller owns. */
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';

export interface BrokerMetrics {
  received: Counter<'broker'>;
  rejected: Counter<'broker'>;
  delivered: Counter<'broker' | 'trigger'>;
  retried: Counter<'broker' | 'trigger'>;
  deadLettered: Counter<'broker' | 'trigger'>;
}

function counter<L extends string>(registry: Registry, name: string, help: string, labels: L[]): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<L>;
  return new Counter<L>({ name, help, labelNames: labels, registers: [registry] });
}

/** Creates the counters, or returns those already in the registry. */
export function brokerMetrics(registry: Registry): BrokerMetrics {
  return {
    received: counter(registry, 'broker_events_received_total', 'Valid events accepted by the ingress', [
      'broker',
    ]),
    rejected: counter(
      registry,
      'broker_events_rejected_total',
      'Events answered 400: malformed, or their TTL used up',
      ['broker'],
    ),
    delivered: counter(registry, 'broker_events_delivered_total', 'Events delivered to a subscriber', [
      'broker',
      'trigger',
    ]),
    retried: counter(registry, 'broker_events_retried_total', 'Delivery retries', ['broker', 'trigger']),
    deadLettered: counter(registry, 'broker_events_dead_lettered_total', 'Events dead-lettered', [
      'broker',
      'trigger',
    ]),
  };
}
