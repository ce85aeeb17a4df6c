/** Test data shared by the scaler and flow tests (not a test file). */
import type { ScalableResource } from './scaler.js';

export const REPLICAS = 'dependency-watchdog.gardener.cloud/replicas';
export const MELTDOWN = 'dependency-watchdog.gardener.cloud/meltdown-protection-active';
export const IGNORE = 'dependency-watchdog.gardener.cloud/ignore-scaling';

/** A Deployment dependent at `level`, no initialDelay, 30 s timeout. */
export function res(name: string, level: number, extra: Partial<ScalableResource> = {}): ScalableResource {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name,
    level,
    optional: false,
    initialDelayMs: 0,
    timeoutMs: 30_000,
    ...extra,
  };
}
