/**
 * Test support of the package: test limits scaled for a slow machine, as the repository's tests
 * scale theirs (`E2E_TIMEOUT_SCALE`, a positive number, default 3).
 */

/** A base limit (ms, for a quiet machine) times `E2E_TIMEOUT_SCALE` (default 3), rounded up. */
export function scaled(ms: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.E2E_TIMEOUT_SCALE;
  const scale = raw === undefined || raw.trim() === '' ? 3 : Number(raw);
  if (!Number.isFinite(scale) || scale <= 0)
    throw new Error(`E2E_TIMEOUT_SCALE must be a positive number, not ${JSON.stringify(raw)}`);
  return Math.ceil(ms * scale);
}
