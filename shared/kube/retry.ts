/**
 * Optimistic-concurrency updates: read, change, write with the resourceVersion just read; on 409
 * Conflict read again and redo the change, a bounded number of times (client-go's
 * retry.RetryOnConflict with DefaultRetry: 5 steps, 10 ms apart). Sleep is injected.
 */
import { ConflictRetryExhaustedError, isConflict } from './errors.js';

export interface ConflictRetryOptions {
  /** Attempts in all (the first one included); default 5. */
  retries?: number;
  /** Milliseconds to wait before attempt n+1 (n = 1, 2, ...); a number for a constant; default 10. */
  backoff?: number | ((attempt: number) => number);
  /** Default: a real timer. Tests pass a fake. */
  sleep?: (ms: number) => Promise<void>;
  /** Which errors mean "read again"; default isConflict. */
  isRetryable?: (err: unknown) => boolean;
}

export const DEFAULT_CONFLICT_RETRIES = 5;
export const DEFAULT_CONFLICT_BACKOFF_MS = 10;

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `mutate` gets the object just read and returns the object to write, or undefined when nothing
 * needs writing (then the read object is returned and nothing is written). It may be called once
 * per attempt, so it must be a function of its input only. Errors other than Conflict, from any
 * of the three, are thrown at once.
 *
 * @returns what `update` returned (or the unchanged object)
 * @throws ConflictRetryExhaustedError after the last attempt conflicted
 */
export async function updateWithConflictRetry<T>(
  get: () => Promise<T>,
  mutate: (current: T) => T | undefined | Promise<T | undefined>,
  update: (next: T) => Promise<T>,
  options: ConflictRetryOptions = {},
): Promise<T> {
  const { attempts, delay, sleep, retryable } = withDefaults(options);
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep(delay(attempt - 1));
    const current = await get();
    const next = await mutate(current);
    if (next === undefined) return current;
    try {
      return await update(next);
    } catch (err) {
      if (!retryable(err)) throw err;
      lastError = err;
    }
  }
  throw new ConflictRetryExhaustedError(attempts, lastError);
}

interface ResolvedOptions {
  attempts: number;
  delay: (attempt: number) => number;
  sleep: (ms: number) => Promise<void>;
  retryable: (err: unknown) => boolean;
}

function withDefaults(options: ConflictRetryOptions): ResolvedOptions {
  const backoff = options.backoff ?? DEFAULT_CONFLICT_BACKOFF_MS;
  return {
    attempts: Math.max(1, options.retries ?? DEFAULT_CONFLICT_RETRIES),
    delay: typeof backoff === 'number' ? (): number => backoff : backoff,
    sleep: options.sleep ?? realSleep,
    retryable: options.isRetryable ?? isConflict,
  };
}
