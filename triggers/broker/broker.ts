/**
 * One broker: takes validated events, fans each out to every matching trigger's subscriber with
 * that trigger's delivery rules (the trigger's `spec.delivery`, else the broker's), publishes
 * CloudEvent replies back into itself, and dead-letters what cannot be delivered.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { emit, extensionsOf, storedJSON } from '../../shared/events/index.js';
import type { Event, FetchLike } from '../../shared/events/index.js';
import { deliver, errorExtensions, planDelivery } from './delivery.js';
import type { DeliveryPlan, DeliveryResult } from './delivery.js';
import type { DeadLetter, DeadLetterReason, DeadLetterStore } from './dlq.js';
import type { BrokerFaults } from './faults.js';
import { matches } from './filter.js';
import type { BrokerMetrics } from './metrics.js';
import { triggerKey } from './trigger.js';
import { decremented, MAX_TTL, TTL_USED_UP, withoutTtl, withTtl } from './ttl.js';
import type { DeliverySpec, Destination, Trigger } from './trigger.js';

export type DestinationRef = NonNullable<Destination['ref']>;
/** Maps a `ref` (e.g. {kind: Service, name}) to a URL; undefined when it cannot (yet). */
export type RefResolver = (ref: DestinationRef, trigger: Trigger) => string | undefined;

export interface BrokerLog {
  (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>): void;
}

export interface BrokerOptions {
  name: string;
  namespace?: string;
  /** The broker's address (its ingress URL; Knative's `status.address.url`): where replies go, named in a dead letter. */
  address?: string;
  /** Triggers for this broker (others are ignored). */
  triggers: readonly Trigger[];
  /** The broker's `spec.delivery`, used by triggers without their own. */
  delivery?: DeliverySpec;
  resolve?: RefResolver;
  deadLetters?: DeadLetterStore;
  metrics?: BrokerMetrics;
  fetch?: FetchLike;
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
  newId?: () => string;
  /**
   * Concurrent deliveries per trigger (default 100). Knative's fanout sends each event to each
   * subscription in a goroutine of its own (knative/eventing pkg/channel/fanout/
   * fanout_event_handler.go, `dispatch`), so one trigger's backlog never holds another trigger's
   * events back; the bound here only keeps what one trigger has in flight finite.
   */
  concurrency?: number;
  log?: BrokerLog;
  /** Fault injection (duplicates, delays, reordering) for tests; holds use `sleep`. Off when absent or unset. */
  faults?: BrokerFaults;
}

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves a Knative Destination: `uri` alone, `ref` through the resolver, `uri` relative to `ref`. */
export function resolveDestination(
  dest: Destination,
  trigger: Trigger,
  resolve?: RefResolver,
): string | undefined {
  if (dest.ref === undefined) return dest.uri;
  const base = resolve?.({ ...dest.ref, namespace: dest.ref.namespace ?? trigger.namespace }, trigger);
  if (base === undefined) return undefined;
  return dest.uri !== undefined ? new URL(dest.uri, base).toString() : base;
}

function describeRef(dest: Destination): string {
  return dest.ref ? `${dest.ref.kind}/${dest.ref.name}` : (dest.uri ?? '');
}

export class Broker {
  readonly name: string;
  readonly namespace: string;
  private triggers: Trigger[] = [];
  /** One delivery queue per trigger (by triggerKey), made when the trigger first gets an event. */
  private readonly limits = new Map<string, ReturnType<typeof pLimit>>();
  private readonly concurrency: number;
  private readonly inFlight = new Set<Promise<void>>();
  /** Set by stop(): a delivery that fails from then on was cut by the stop, not by its subscriber. */
  private stopped = false;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => Date;
  private readonly newId: () => string;

  constructor(private readonly options: BrokerOptions) {
    this.name = options.name;
    this.namespace = options.namespace ?? 'default';
    this.concurrency = options.concurrency ?? 100;
    this.sleep = options.sleep ?? realSleep;
    this.now = options.now ?? ((): Date => new Date());
    this.newId = options.newId ?? randomUUID;
    this.setTriggers(options.triggers);
  }

  get key(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** Replaces the routing table (triggers of other brokers are dropped). */
  setTriggers(triggers: readonly Trigger[]): void {
    this.triggers = triggers.filter((t) => t.broker === this.name && t.namespace === this.namespace);
    const kept = new Set(this.triggers.map(triggerKey));
    for (const [key, limit] of this.limits) {
      // a queue still holding deliveries drains first; an empty one of a removed trigger goes
      if (!kept.has(key) && limit.activeCount + limit.pendingCount === 0) this.limits.delete(key);
    }
  }

  private limitFor(trigger: Trigger): ReturnType<typeof pLimit> {
    const key = triggerKey(trigger);
    let limit = this.limits.get(key);
    if (limit === undefined) {
      limit = pLimit(this.concurrency);
      this.limits.set(key, limit);
    }
    return limit;
  }

  /** The triggers that take the event. */
  route(event: Event): Trigger[] {
    return this.triggers.filter((t) => matches(t, event));
  }

  /**
   * Queues the (already validated) event for every matching trigger; returns how many. `ttl` is
   * the broker TTL the ingress gave it (./ttl.ts): it rides beside the event, not in it, because a
   * subscriber gets the event without it; the event must not carry `knativebrokerttl` itself.
   */
  publish(event: Event, ttl = MAX_TTL): number {
    this.options.metrics?.received.inc({ broker: this.key });
    const targets = this.route(event);
    for (const trigger of targets) {
      for (const holdMs of this.options.faults?.plan() ?? [0])
        this.track(this.schedule(trigger, event, ttl, holdMs));
    }
    return targets.length;
  }

  /**
   * The landscape is stopping: a delivery still in flight that fails from now on (its subscriber's
   * replica stopped with it) is abandoned with a log line, not dead-lettered — it failed because
   * of the stop, and a letter written after the stop would only be replayed for nothing.
   */
  stop(): void {
    this.stopped = true;
  }

  /** Resolves once nothing is queued or in flight (replies included). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((err: unknown) => {
      this.options.log?.('error', 'delivery crashed', { broker: this.key, error: String(err) });
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  /** One delivery, after an injected hold (none unless faults are on); the hold takes no concurrency slot. */
  private schedule(trigger: Trigger, event: Event, ttl: number, holdMs: number): Promise<void> {
    const run = (): Promise<void> => this.limitFor(trigger)(() => this.dispatch(trigger, event, ttl));
    return holdMs > 0 ? this.sleep(holdMs).then(run) : run();
  }

  /** Per trigger object (setTriggers brings new ones): its ISO durations parsed once, not per delivery. */
  private readonly plans = new WeakMap<Trigger, DeliveryPlan>();

  private planFor(trigger: Trigger): DeliveryPlan {
    let plan = this.plans.get(trigger);
    if (plan === undefined) {
      plan = planDelivery(trigger.delivery ?? this.options.delivery);
      this.plans.set(trigger, plan);
    }
    return plan;
  }

  private async dispatch(trigger: Trigger, event: Event, ttl: number): Promise<void> {
    const labels = { broker: this.key, trigger: triggerKey(trigger) };
    const plan = this.planFor(trigger);
    const url = resolveDestination(trigger.subscriber, trigger, this.options.resolve);
    if (url === undefined) {
      const failure = {
        kind: 'failed',
        attempts: 0,
        code: 503,
        body: '',
        reason: 'unresolved',
        exhausted: false,
      } as const;
      await this.deadLetter(
        trigger,
        withTtl(event, ttl),
        describeRef(trigger.subscriber),
        failure,
        plan,
        'unresolved-subscriber',
      );
      return;
    }
    // the subscriber gets the event without the broker's TTL (Knative's filter deletes it)
    const result = await deliver(event, url, plan, {
      send: (e, u, timeoutMs) =>
        emit(e, { sink: u, fetch: this.options.fetch, timeoutMs, headers: { Prefer: 'reply' } }),
      sleep: this.sleep,
      onRetry: () => this.options.metrics?.retried.inc(labels),
    });
    if (result.kind === 'delivered') {
      this.options.metrics?.delivered.inc(labels);
      if (result.reply) await this.publishReply(trigger, event, ttl, result.reply, plan);
      return;
    }
    const reason: DeadLetterReason = result.exhausted ? 'retries-exhausted' : 'non-retryable';
    // the letter is the event as the broker held it: with its TTL (what Knative's dispatcher sends)
    await this.deadLetter(trigger, withTtl(event, ttl), url, result, plan, reason);
  }

  /**
   * A subscriber's reply goes back into the broker with the TTL of the event it answered, which the
   * ingress takes one off (./ttl.ts); when that leaves 0 the ingress refuses it (400) and, as
   * Knative's dispatcher does with a reply it could not forward, the event that was answered goes
   * to the dead-letter sink, the broker named as the destination.
   */
  private async publishReply(
    trigger: Trigger,
    answered: Event,
    ttl: number,
    reply: Event,
    plan: DeliveryPlan,
  ): Promise<void> {
    // the answered event's TTL set on the reply (whatever TTL the reply carried), then the ingress's step
    const next = decremented(ttl);
    if (next > 0) {
      this.publish(withoutTtl(reply), next);
      return;
    }
    this.options.metrics?.rejected.inc({ broker: this.key });
    const failure = {
      kind: 'failed',
      attempts: 1,
      code: 400,
      body: TTL_USED_UP,
      reason: TTL_USED_UP,
      exhausted: false,
    } as const;
    await this.deadLetter(trigger, withTtl(answered, ttl), this.address, failure, plan, 'reply-refused');
  }

  /** Where replies go: the configured address, else a name for the broker. */
  private get address(): string {
    return this.options.address ?? `broker:${this.key}`;
  }

  private async deadLetter(
    trigger: Trigger,
    event: Event,
    destination: string,
    result: Extract<DeliveryResult, { kind: 'failed' }>,
    plan: DeliveryPlan,
    reason: DeadLetterReason,
  ): Promise<void> {
    const labels = { broker: this.key, trigger: triggerKey(trigger) };
    if (this.stopped) {
      this.options.log?.('info', 'delivery abandoned: the broker stopped', { ...labels, id: event.id });
      return;
    }
    this.options.metrics?.deadLettered.inc(labels);
    const extensions = errorExtensions({ destination, code: result.code, body: result.body });
    const letter: DeadLetter = {
      id: this.newId(),
      time: this.now().toISOString(),
      broker: this.key,
      trigger: triggerKey(trigger),
      subscriber: destination,
      reason,
      attempts: result.attempts,
      // readable where that replays the same bytes (shared/events storedJSON)
      event: storedJSON(event),
      extensions,
    };
    this.options.log?.('warn', 'event dead-lettered', {
      ...labels,
      id: letter.id,
      reason,
      code: result.code,
    });
    await this.options.deadLetters?.add(letter);
    await this.sendToDeadLetterSink(trigger, event, extensions, plan);
  }

  private async sendToDeadLetterSink(
    trigger: Trigger,
    event: Event,
    extensions: Record<string, string | number>,
    plan: DeliveryPlan,
  ): Promise<void> {
    if (plan.deadLetterSink === undefined) return;
    const sink = resolveDestination(plan.deadLetterSink, trigger, this.options.resolve);
    if (sink === undefined) return;
    const letter = event.cloneWith({ ...extensionsOf(event), ...extensions }, true);
    const result = await deliver(letter, sink, plan, {
      send: (e, u, timeoutMs) => emit(e, { sink: u, fetch: this.options.fetch, timeoutMs }),
      sleep: this.sleep,
    });
    if (result.kind === 'failed') {
      this.options.log?.('error', 'dead-letter sink failed', {
        trigger: triggerKey(trigger),
        sink,
        code: result.code,
      });
    }
  }
}
