/**
 * Replying to a delivery with an event (Knative's data plane contract: a subscriber's 2xx answer
 * that carries a CloudEvent is published to the broker the Trigger belongs to; the broker's filter
 * says it takes replies with `Prefer: reply`, RFC 7240). A function that emits one event for the
 * event it handles can hand it back as the answer instead of POSTing it to K_SINK: one request
 * less for the function, and for the broker an answer it reads anyway instead of a request at its
 * ingress. Semantics: the reply is published only when the handler succeeds; a handler that fails
 * after offering one answers 500, nothing is published, and the broker delivers the event again.
 *
 *   serve:    withReplySlot(req.headers.prefer, res, () => app(req, res))  (shared/serve/framework.ts)
 *   function: if (!offerReply(event)) await emitOrThrow(event, ...)          (a second event, or no
 *                                                                            Prefer: reply: emitted)
 *   serve:    the handler resolved → takeReply(): the event written as the binary-mode answer
 *
 * The slot is per request (AsyncLocalStorage, entered around the framework's whole request
 * handling: its body parsing and the function's awaits keep it), so concurrent requests of one
 * replica never see each other's. Only in a process whose function said it replies
 * (`replyingFunction()`, at load): on Node 20 an AsyncLocalStorage that is entered installs
 * async hooks that every promise of the process pays for (a no-op CloudEvent function behind the
 * framework's server: ≈ 12–20 % of its CPU per event, `npm run bench -- runtime`), so the
 * functions that never reply (all but responsibility-check) enter none; their offers are refused
 * and they emit to K_SINK, as without `Prefer: reply`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { encodeBinary, type Event } from './cloudevent.js';

/** Where the answer's headers go (node:http's ServerResponse). */
export interface ReplyHeaders {
  setHeader(name: string, value: string): unknown;
}

interface ReplySlot {
  readonly accepted: boolean;
  readonly answer: ReplyHeaders;
  event?: Event;
}

const slots = new AsyncLocalStorage<ReplySlot>();
let replying = false;

/** This process's function may answer a delivery with an event (called once, at load). */
export function replyingFunction(): void {
  replying = true;
}

/** Whether a `Prefer` header asks for replies (`Prefer: reply`, any case, among other preferences). */
export function prefersReply(prefer: string | string[] | undefined): boolean {
  const values = Array.isArray(prefer) ? prefer : prefer === undefined ? [] : [prefer];
  return values.some((v) =>
    v.split(',').some((pref) => pref.split(';')[0].split('=')[0].trim().toLowerCase() === 'reply'),
  );
}

/**
 * Runs `fn` (one request's handling) with a reply slot; the request's `Prefer` header decides
 * whether it takes a reply, `answer` gets the reply's headers.
 */
export function withReplySlot<T>(
  prefer: string | string[] | undefined,
  answer: ReplyHeaders,
  fn: () => T,
): T {
  if (!replying) return fn();
  return slots.run({ accepted: prefersReply(prefer), answer }, fn);
}

/** Runs `fn` where no offer is taken (e.g. a pass that sends many events for one ping). */
export function withoutReplies<T>(fn: () => T): T {
  if (!replying) return fn();
  return slots.run({ accepted: false, answer: { setHeader: () => undefined } }, fn);
}

/**
 * Offers `event` as the answer to the request being handled: true when it will be (the sender
 * takes replies and no other event was offered yet), false when the caller must send it itself.
 */
export function offerReply(event: Event): boolean {
  const slot = slots.getStore();
  if (!slot?.accepted || slot.event !== undefined) return false;
  slot.event = event;
  return true;
}

/**
 * The event offered for the request being handled, written as the binary-mode answer: its
 * `ce-*` and content-type headers set on the answer, its body returned (the framework sends it
 * with 200). Undefined when none was offered (the answer stays empty: 204). Once: it is taken.
 */
export function takeReply(): string | Uint8Array | undefined {
  const slot = slots.getStore();
  const event = slot?.event;
  if (!slot || !event) return undefined;
  slot.event = undefined;
  const wire = encodeBinary(event);
  for (const [name, value] of Object.entries(wire.headers)) slot.answer.setHeader(name, value);
  return wire.body;
}
