/**
 * The broker's TTL, as Knative's MT broker keeps it (knative/eventing):
 * - the ingress (`cmd/broker/ingress/main.go`: `TTLDefaulter(logger, env.MaxTTL)`, MAX_TTL 255 by
 *   default; `pkg/broker/ttl.go`) gives an event without a `knativebrokerttl` extension (or with
 *   one that is no integer) the maximum, and takes one off an event that has one (never below
 *   0); `pkg/broker/ingress/ingress_handler.go` then answers 400 to an event whose TTL is 0;
 * - the filter (`pkg/broker/filter/filter_handler.go`) deletes the extension before it sends the
 *   event to the subscriber, and sets the same value again on the subscriber's reply, which goes
 *   back through the ingress: so each hop of a reply chain takes one off, and after 255 hops the
 *   ingress refuses the reply (a function that answers every event with an event it takes itself
 *   loops that many times, not forever).
 * Events a function POSTs to its K_SINK are new events: they come without the extension and get
 * the maximum, as on Knative.
 */
import type { Event } from '../../shared/events/index.js';

export const TTL_ATTRIBUTE = 'knativebrokerttl';
/** The ingress's MAX_TTL default. */
export const MAX_TTL = 255;

/** What the ingress answers (400) to an event whose TTL is used up. */
export const TTL_USED_UP = `event dropped: its ${TTL_ATTRIBUTE} is used up (a reply chain through the broker?)`;

const INT32_MAX = 2 ** 31 - 1;

/** The event's TTL as an integer (sdk-go `types.ToInteger`: an int32, or a string that parses as one); undefined otherwise. */
export function ttlOf(event: Event): number | undefined {
  const raw = (event as unknown as Record<string, unknown>)[TTL_ATTRIBUTE];
  if (typeof raw === 'number') return Number.isInteger(raw) && Math.abs(raw) <= INT32_MAX ? raw : undefined;
  if (typeof raw !== 'string' || !/^[+-]?\d+$/.test(raw.trim())) return undefined;
  const n = Number(raw.trim());
  return Math.abs(n) <= INT32_MAX ? n : undefined;
}

/** The TTL the ingress gives an event it takes (Knative's TTLDefaulter); 0 or less: it refuses it. */
export function ingressTtl(event: Event, maxTtl = MAX_TTL): number {
  const ttl = ttlOf(event);
  return ttl === undefined ? maxTtl : decremented(ttl);
}

/** One hop through the ingress: one less, never below 0. */
export function decremented(ttl: number): number {
  return Math.max(ttl - 1, 0);
}

export function withTtl(event: Event, ttl: number): Event {
  return event.cloneWith({ [TTL_ATTRIBUTE]: ttl }, false);
}

/** The event as a subscriber gets it: without the broker's TTL (the same event when it has none). */
export function withoutTtl(event: Event): Event {
  return (event as unknown as Record<string, unknown>)[TTL_ATTRIBUTE] === undefined
    ? event
    : event.cloneWith({ [TTL_ATTRIBUTE]: undefined }, false);
}
