/**
 * Events/s to a function: `events` binary-mode CloudEvents POSTed with `concurrency` in flight over
 * keep-alive connections, (a) straight to the subscriber, (b) to a broker ingress whose one Trigger
 * routes them to the same subscriber; the broker side ends when `broker.idle()` resolves, and
 * counts what its delivery reports as delivered. Lost = sent − delivered (an ingress answer other
 * than 202 counts as lost too).
 *
 * The subscriber is whatever URL `subscriberUrl()` gives: a running replica here, the embedded
 * activator's route for a function later. The load generator, the ingress and the broker share
 * this process; the CPU of this process and of `cpuPids()` over each side is reported.
 */
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import {
  Broker,
  brokerMetrics,
  MemoryDeadLetterStore,
  startIngress,
  type BrokerMetrics,
  type Trigger,
} from '../../triggers/broker/index.js';
import { runPool } from '../apiserver/pool.js';
import { cpuMs } from './children.js';
import { BENCH_EVENT_TYPE, keepAliveAgent, postOk, wireEvents, type WireEvent } from './http.js';

export const THROUGHPUT_SIDES = ['direct', 'broker'] as const;
export type ThroughputSide = (typeof THROUGHPUT_SIDES)[number];

export interface ThroughputOptions {
  events: number;
  /** Requests in flight from the load generator (one keep-alive socket each). */
  concurrency: number;
  /** Events sent (and waited for) before each side's clock starts. */
  warmup: number;
  /** Where the events go: the Trigger's `subscriber.uri`, and the direct side's target. */
  subscriberUrl: () => Promise<string>;
  /** Processes whose CPU time is reported as the subscriber's (e.g. the replicas). */
  cpuPids?: () => readonly number[];
  /** The broker's concurrent deliveries (its default when absent). */
  brokerConcurrency?: number;
}

export interface ThroughputResult {
  side: ThroughputSide;
  events: number;
  /** Wall time from the first POST to the last delivery. */
  ms: number;
  /** Wall time until every POST was answered (the ingress's 202s on the broker side). */
  acceptMs: number;
  delivered: number;
  lost: number;
  postErrors: number;
  /** The first failed POST's error message. */
  firstPostError?: string;
  retried: number;
  deadLettered: number;
  /** CPU time over `ms`: this process (load generator, plus ingress and broker) and the subscriber. */
  benchCpuMs: number;
  subscriberCpuMs: number;
}

interface Cpu {
  bench: number;
  subscriber: number;
}

function cpuNow(o: ThroughputOptions): Cpu {
  const u = process.cpuUsage();
  const pids = o.cpuPids?.() ?? [];
  return { bench: (u.user + u.system) / 1000, subscriber: pids.reduce((n, pid) => n + cpuMs(pid), 0) };
}

async function send(url: URL, events: readonly WireEvent[], concurrency: number): ReturnType<typeof runPool> {
  const agent = keepAliveAgent(concurrency);
  try {
    return await runPool(events.length, concurrency, (i) => postOk(url, events[i], agent));
  } finally {
    agent.destroy();
  }
}

function describeFirst(err: unknown): { firstPostError?: string } {
  if (err === undefined) return {};
  return { firstPostError: err instanceof Error ? err.message : JSON.stringify(err) };
}

function result(
  side: ThroughputSide,
  fields: Omit<ThroughputResult, 'side' | 'benchCpuMs' | 'subscriberCpuMs'>,
  cpu0: Cpu,
  cpu1: Cpu,
): ThroughputResult {
  return {
    side,
    ...fields,
    benchCpuMs: cpu1.bench - cpu0.bench,
    subscriberCpuMs: cpu1.subscriber - cpu0.subscriber,
  };
}

/** Straight to the subscriber, no broker: the baseline the broker is compared with. */
export async function directThroughput(o: ThroughputOptions): Promise<ThroughputResult> {
  const url = new URL(await o.subscriberUrl());
  await send(url, wireEvents('direct-warmup', o.warmup), o.concurrency);
  const events = wireEvents('direct', o.events);
  const cpu0 = cpuNow(o);
  const t0 = performance.now();
  const pool = await send(url, events, o.concurrency);
  const ms = performance.now() - t0;
  const delivered = o.events - pool.errors;
  return result(
    'direct',
    {
      events: o.events,
      ms,
      acceptMs: ms,
      delivered,
      lost: o.events - delivered,
      postErrors: pool.errors,
      ...describeFirst(pool.firstError),
      retried: 0,
      deadLettered: 0,
    },
    cpu0,
    cpuNow(o),
  );
}

async function total(counter: BrokerMetrics['delivered']): Promise<number> {
  const { values } = await counter.get();
  return values.reduce((n, v) => n + v.value, 0);
}

interface Counts {
  delivered: number;
  retried: number;
  deadLettered: number;
}

async function counts(m: BrokerMetrics): Promise<Counts> {
  return {
    delivered: await total(m.delivered),
    retried: await total(m.retried),
    deadLettered: await total(m.deadLettered),
  };
}

export const BENCH_BROKER = { name: 'default', namespace: 'bench' } as const;

/** Through a broker ingress and one Trigger (exact match on the bench's event type). */
export async function brokerThroughput(o: ThroughputOptions): Promise<ThroughputResult> {
  const trigger: Trigger = {
    name: 'noop',
    namespace: BENCH_BROKER.namespace,
    broker: BENCH_BROKER.name,
    filters: [{ exact: { type: BENCH_EVENT_TYPE } }],
    subscriber: { uri: await o.subscriberUrl() },
  };
  const metrics = brokerMetrics(new Registry());
  const broker = new Broker({
    ...BENCH_BROKER,
    triggers: [trigger],
    metrics,
    deadLetters: new MemoryDeadLetterStore(),
    ...(o.brokerConcurrency !== undefined ? { concurrency: o.brokerConcurrency } : {}),
  });
  const ingress = await startIngress({ brokers: [broker], metrics });
  try {
    const url = new URL(`/${BENCH_BROKER.namespace}/${BENCH_BROKER.name}`, ingress.url);
    await send(url, wireEvents('broker-warmup', o.warmup), o.concurrency);
    await broker.idle();
    const events = wireEvents('broker', o.events);
    const before = await counts(metrics);
    const cpu0 = cpuNow(o);
    const t0 = performance.now();
    const pool = await send(url, events, o.concurrency);
    const acceptMs = performance.now() - t0;
    await broker.idle();
    const ms = performance.now() - t0;
    const cpu1 = cpuNow(o);
    const after = await counts(metrics);
    const delivered = after.delivered - before.delivered;
    return result(
      'broker',
      {
        events: o.events,
        ms,
        acceptMs,
        delivered,
        lost: o.events - delivered,
        postErrors: pool.errors,
        ...describeFirst(pool.firstError),
        retried: after.retried - before.retried,
        deadLettered: after.deadLettered - before.deadLettered,
      },
      cpu0,
      cpu1,
    );
  } finally {
    await ingress.close();
  }
}

/** Both sides, direct first, against the same subscriber. */
export async function measureThroughput(o: ThroughputOptions): Promise<ThroughputResult[]> {
  return [await directThroughput(o), await brokerThroughput(o)];
}
