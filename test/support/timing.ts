/**
 * Test support: the one place every limit of the slow tests (e2e, and anything else that waits
 * on a real process) comes from, and the one polling helper they wait with.
 *
 * A limit is a base figure in milliseconds, tuned on a quiet 2-core machine, times a scale:
 * `E2E_TIMEOUT_SCALE` (a positive number, default 3 — enough for a 2-core machine at load 10:
 * cold starts there took 14–18 s where a quiet machine needs 4–6 s). A limit is an upper bound
 * on waiting for a condition, never an assertion on how long something took; a test that
 * passes only fast enough is a benchmark (`npm run bench`), not a test.
 *
 *   it('…', async () => { await until('the pod to go', probe); }, scaled(60_000));
 *
 * Imitates the shape of kubernetes/apimachinery pkg/util/wait (PollUntilContextTimeout: a
 * condition polled at an interval until it holds or the time is up).
 */

export const DEFAULT_TIMEOUT_SCALE = 3;

/** The scale of every test limit: `E2E_TIMEOUT_SCALE`, or 3; throws on a value that is no positive number. */
export function timeoutScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.E2E_TIMEOUT_SCALE;
  if (raw === undefined || raw.trim() === '') return DEFAULT_TIMEOUT_SCALE;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0)
    throw new Error(`E2E_TIMEOUT_SCALE must be a positive number, not ${JSON.stringify(raw)}`);
  return scale;
}

/** A base limit (ms, for a quiet machine) times the scale, rounded up to whole ms. */
export function scaled(ms: number, env: NodeJS.ProcessEnv = process.env): number {
  return Math.ceil(ms * timeoutScale(env));
}

/** A scaled limit as a kubectl/Go duration in whole seconds (`--timeout=60s`). */
export function scaledSeconds(ms: number, env: NodeJS.ProcessEnv = process.env): string {
  return `${Math.ceil(scaled(ms, env) / 1000)}s`;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface UntilOptions {
  /** Base limit in ms (scaled here); default 20 s. */
  timeoutMs?: number;
  /** Pause between probes; default 150 ms. */
  intervalMs?: number;
  /** More text for the failure message (e.g. the landscape's output tail). */
  context?: () => string;
}

/**
 * Polls `probe` until it returns something other than undefined, and returns that; fails with
 * `what` (and the context) once the scaled limit has passed. A probe that throws fails at once.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  opts: UntilOptions = {},
): Promise<T> {
  const limit = scaled(opts.timeoutMs ?? 20_000);
  const deadline = Date.now() + limit;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const context = opts.context ? `\n${opts.context()}` : '';
      throw new Error(`timed out after ${limit} ms waiting for ${what}${context}`);
    }
    await sleep(opts.intervalMs ?? 150);
  }
}
