/**
 * Delivery as Knative does it (pkg/kncloudevents: RetryConfigFromDeliverySpec, SelectiveRetry,
 * the dispatcher over go-retryablehttp):
 * - attempts = retry + 1; success is 2xx only;
 * - retried: network errors (incl. the per-attempt timeout), 5xx, 404, 408, 409, 429; any other
 *   status (3xx, other 4xx) fails at once;
 * - backoff before retry k (k = 1..retry) is Backoff(n) with n = k - 1, because the retry loop
 *   passes its zero-based attempt index: linear delay×n (so the first retry is immediate),
 *   exponential delay×2^n (delay, 2×delay, 4×delay, ...); no backoff unless both
 *   backoffPolicy and backoffDelay are set;
 * - a 2xx reply carrying a CloudEvent is a reply to publish; a 2xx with any other non-empty
 *   body is an error: Knative's broker answers 502 and it is retried;
 * - a failed delivery is dead-lettered with knativeerrordest (the subscriber URL),
 *   knativeerrorcode (the last status; 500 for a network error) and knativeerrordata (the base64
 *   of the response body, cut at 1024 characters).
 * The decisions here are pure; `deliver` runs them with injected send and sleep.
 */
import {
  decodeHttpEvent,
  KNATIVE_ERROR_DATA_MAX_LENGTH,
  looksLikeCloudEvent,
} from '../../shared/events/index.js';
import type { EmitResult, Event, KnativeErrorExtension } from '../../shared/events/index.js';
import { parseIsoDuration } from './duration.js';
import type { BackoffPolicy, DeliverySpec, Destination } from './trigger.js';

export interface DeliveryPlan {
  /** Retries after the first attempt (attempts = retry + 1). */
  retry: number;
  backoffPolicy?: BackoffPolicy;
  backoffDelayMs?: number;
  /** Per-attempt timeout. */
  timeoutMs?: number;
  deadLetterSink?: Destination;
}

/** The plan for a DeliverySpec (strings already validated by the manifest schema). */
export function planDelivery(spec: DeliverySpec | undefined): DeliveryPlan {
  const s: DeliverySpec = spec ?? {};
  const plan: DeliveryPlan = { retry: s.retry ?? 0 };
  if (s.backoffPolicy !== undefined) plan.backoffPolicy = s.backoffPolicy;
  if (s.backoffDelay !== undefined) plan.backoffDelayMs = parseIsoDuration(s.backoffDelay);
  if (s.timeout !== undefined) plan.timeoutMs = parseIsoDuration(s.timeout);
  if (s.deadLetterSink !== undefined) plan.deadLetterSink = s.deadLetterSink;
  return plan;
}

/** Knative's Backoff(n): `n` is the zero-based index of the failed attempt (0 before retry 1). */
export function backoffMs(plan: Pick<DeliveryPlan, 'backoffPolicy' | 'backoffDelayMs'>, n: number): number {
  if (plan.backoffPolicy === undefined || plan.backoffDelayMs === undefined) return 0;
  return plan.backoffPolicy === 'linear' ? plan.backoffDelayMs * n : plan.backoffDelayMs * 2 ** n;
}

/** The delays before each retry, in order (retry 1 .. retry). */
export function backoffSchedule(plan: DeliveryPlan): number[] {
  return Array.from({ length: plan.retry }, (_, k) => backoffMs(plan, k));
}

/** SelectiveRetry: whether a status (or 0 / -1 for "no response") is worth another attempt. */
export function isRetryableStatus(status: number): boolean {
  if (status <= 0) return true;
  return status >= 500 || status === 404 || status === 408 || status === 409 || status === 429;
}

export type AttemptVerdict =
  | { kind: 'success'; status: number; reply?: Event }
  | { kind: 'failure'; code: number; body: string; retryable: boolean; reason: string };

function replyVerdict(result: Extract<EmitResult, { kind: 'response' }>): AttemptVerdict {
  const message = { headers: result.headers, body: result.body };
  if (looksLikeCloudEvent(message)) {
    try {
      // the reply's body published as it came, as the ingress takes an event
      return { kind: 'success', status: result.status, reply: decodeHttpEvent(message, { rawData: true }) };
    } catch (err) {
      const reason = `reply is not a valid CloudEvent: ${(err as Error).message}`;
      return { kind: 'failure', code: 502, body: result.body, retryable: true, reason };
    }
  }
  if (result.body.length > 0) {
    const reason = 'received a non-empty response not recognized as a CloudEvent';
    return { kind: 'failure', code: 502, body: result.body, retryable: true, reason };
  }
  return { kind: 'success', status: result.status };
}

/** Classifies one attempt's outcome. */
export function judgeAttempt(result: EmitResult): AttemptVerdict {
  if (result.kind === 'error') {
    return {
      kind: 'failure',
      code: 500,
      body: `dispatch error: ${result.error}`,
      retryable: true,
      reason: result.error,
    };
  }
  if (result.status >= 200 && result.status < 300) return replyVerdict(result);
  return {
    kind: 'failure',
    code: result.status,
    body: result.body,
    retryable: isRetryableStatus(result.status),
    reason: `HTTP ${result.status}`,
  };
}

/** The extensions Knative puts on a dead-lettered event. */
export function errorExtensions(input: {
  destination: string;
  code: number;
  body: string;
}): Record<KnativeErrorExtension, string | number> {
  const data = Buffer.from(input.body, 'utf8').toString('base64').slice(0, KNATIVE_ERROR_DATA_MAX_LENGTH);
  return { knativeerrordest: input.destination, knativeerrorcode: input.code, knativeerrordata: data };
}

export type DeliveryResult =
  | { kind: 'delivered'; attempts: number; status: number; reply?: Event }
  | {
      kind: 'failed';
      attempts: number;
      code: number;
      body: string;
      reason: string;
      /** True when the last failure was retryable (retries exhausted), false for a terminal one. */
      exhausted: boolean;
    };

export interface DeliverDeps {
  /** One attempt: POST the event to the URL with the per-attempt timeout. */
  send: (event: Event, url: string, timeoutMs: number | undefined) => Promise<EmitResult>;
  sleep: (ms: number) => Promise<void>;
  /** Told before each retry, with the delay about to be slept. */
  onRetry?: (info: { attempt: number; delayMs: number; verdict: AttemptVerdict }) => void;
}

/** Sends until success, a non-retryable failure, or retries are exhausted. */
export async function deliver(
  event: Event,
  url: string,
  plan: DeliveryPlan,
  deps: DeliverDeps,
): Promise<DeliveryResult> {
  for (let attempt = 0; ; attempt++) {
    const verdict = judgeAttempt(await deps.send(event, url, plan.timeoutMs));
    if (verdict.kind === 'success') {
      return {
        kind: 'delivered',
        attempts: attempt + 1,
        status: verdict.status,
        ...(verdict.reply ? { reply: verdict.reply } : {}),
      };
    }
    if (!verdict.retryable || attempt >= plan.retry) {
      const { code, body, reason, retryable } = verdict;
      return { kind: 'failed', attempts: attempt + 1, code, body, reason, exhausted: retryable };
    }
    const delayMs = backoffMs(plan, attempt);
    deps.onRetry?.({ attempt: attempt + 1, delayMs, verdict });
    await deps.sleep(delayMs);
  }
}
