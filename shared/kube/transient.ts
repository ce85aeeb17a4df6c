/**
 * client-go's rest client retries, for the functions' own cluster client (opt-in:
 * `KubeClientOptions.retryTransient`): an answer that carries `Retry-After` (429, or a 5xx the
 * server says is worth another try) is sent again after that many seconds, and a GET whose
 * connection failed (reset, refused, closed before the answer) or that got a 5xx is sent again
 * after a short pause (a read is safe to repeat; client-go leaves that to its callers).
 * A write whose connection failed is not: it may have been applied, and only the caller knows how
 * to check. Pure decisions here; kubeRequest runs them.
 */
export interface TransientRetry {
  /** Retries after the first attempt (client-go: 10). */
  maxRetries: number;
  /** Longest wait honoured from `Retry-After` (ms). */
  maxRetryAfterMs: number;
  /** Pause before retry k of a failed connection: baseMs × 2^k. */
  baseMs: number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_TRANSIENT_RETRY: TransientRetry = { maxRetries: 5, maxRetryAfterMs: 5_000, baseMs: 100 };

const CONNECTION_ERRORS: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** A connection that failed before any answer (not a timeout: that waited long enough already). */
export function isConnectionFailure(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === 'string' && CONNECTION_ERRORS.has(e.code)) return true;
  return typeof e?.message === 'string' && /socket hang up|other side closed/i.test(e.message);
}

/** The wait `Retry-After` asks for (seconds; an HTTP date is not honoured), capped. */
export function retryAfterMs(header: string | undefined, capMs: number): number | undefined {
  if (header === undefined || !/^\d+$/.test(header.trim())) return undefined;
  return Math.min(Number(header.trim()) * 1000, capMs);
}

export type Attempt =
  { kind: 'answer'; status: number; retryAfter?: string } | { kind: 'error'; error: unknown };

/** How long to wait before sending again after attempt `k` (0-based); undefined: do not. */
export function retryDelay(
  policy: TransientRetry,
  method: string,
  attempt: Attempt,
  k: number,
): number | undefined {
  if (k >= policy.maxRetries) return undefined;
  if (attempt.kind === 'error')
    return method === 'GET' && isConnectionFailure(attempt.error) ? policy.baseMs * 2 ** k : undefined;
  if (attempt.status !== 429 && attempt.status < 500) return undefined;
  const asked = retryAfterMs(attempt.retryAfter, policy.maxRetryAfterMs);
  // a read is safe to send again after a server error even when the server names no wait
  if (asked === undefined && method === 'GET' && attempt.status >= 500) return policy.baseMs * 2 ** k;
  return asked;
}
