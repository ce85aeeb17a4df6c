/**
 * Configuration of probe-tick: the seed's prober config file (shared/watchdog/config.ts:
 * case-insensitive keys, Go durations, upstream defaults) with the KUBE_API_QPS / KUBE_API_BURST /
 * CONCURRENT_RECONCILES overrides; without a file, upstream's example config. Two settings of the
 * function itself (not part of upstream's format, so they are environment variables only):
 *
 * - PROBE_TICK_SPAN (Go duration, default 50s): how long one invocation keeps probing. The next
 *   invocation starts with requeue-tick's next tick (once a minute on Knative), so sub-minute probe
 *   intervals are served by repeating passes inside an invocation; 0 runs a single pass.
 * - PROBE_CONCURRENCY (default 50): shoots probed at once.
 *
 * REDIS_URL (the probers' state) comes from the environment. Every problem is listed.
 */
import type { ConfigResult } from '../../shared/config/index.js';
import {
  DEFAULT_PROBER_CONFIG_YAML,
  loadProberConfig,
  type ProberConfig,
} from '../../shared/watchdog/config.js';
import { parseGoDuration } from '@landscape/apimachinery';

export const FUNCTION_NAME = 'probe-tick';

export const DEFAULT_TICK_SPAN_MS = 50_000;
export const DEFAULT_PROBE_CONCURRENCY = 50;
const MAX_TICK_SPAN_MS = 15 * 60_000;

export interface ProbeTickConfig {
  prober: ProberConfig;
  /** How long one invocation keeps probing (ms); 0: one pass. */
  tickSpanMs: number;
  concurrency: number;
}

function tickSpan(raw: string | undefined, problems: string[]): number {
  if (raw === undefined || raw === '') return DEFAULT_TICK_SPAN_MS;
  try {
    const ms = parseGoDuration(raw);
    if (ms >= 0 && ms <= MAX_TICK_SPAN_MS) return ms;
    problems.push(`PROBE_TICK_SPAN: must be between 0s and 15m, got ${JSON.stringify(raw)}`);
  } catch (err) {
    problems.push(`PROBE_TICK_SPAN: ${(err as Error).message}`);
  }
  return 0;
}

function concurrency(raw: string | undefined, problems: string[]): number {
  if (raw === undefined || raw === '') return DEFAULT_PROBE_CONCURRENCY;
  const n = /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (Number.isInteger(n) && n >= 1 && n <= 1000) return n;
  problems.push(`PROBE_CONCURRENCY: must be a whole number from 1 to 1000, got ${JSON.stringify(raw)}`);
  return 0;
}

export function loadConfig(
  fileText: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult<ProbeTickConfig> {
  const problems: string[] = [];
  const prober = loadProberConfig(fileText ?? DEFAULT_PROBER_CONFIG_YAML, env);
  if (!prober.ok) problems.push(...prober.problems);
  const tickSpanMs = tickSpan(env['PROBE_TICK_SPAN'], problems);
  const n = concurrency(env['PROBE_CONCURRENCY'], problems);
  if (!prober.ok || problems.length > 0) return { ok: false, problems };
  return { ok: true, config: { prober: prober.config, tickSpanMs, concurrency: n } };
}
