/**
 * Annotations of the dependency watchdog (specs/dependency-watchdog.md). DWD has no API group of
 * its own; these are set on the dependents it scales (Deployments in a shoot's seed namespace).
 */

export const DependencyWatchdogAnnotations = {
  /** The replica count before a scale-down, restored on scale-up. */
  replicas: 'dependency-watchdog.gardener.cloud/replicas',
  /** Set (to `""`) while a dependent is scaled down. */
  meltdownProtectionActive: 'dependency-watchdog.gardener.cloud/meltdown-protection-active',
  /** Parsing as true (1, t, T, TRUE, true, True): never scale this dependent. */
  ignoreScaling: 'dependency-watchdog.gardener.cloud/ignore-scaling',
} as const;

/** Go's strconv.ParseBool true values, as DWD parses the ignore-scaling annotation. */
export const GO_BOOL_TRUE_VALUES = ['1', 't', 'T', 'TRUE', 'true', 'True'] as const;
export function isGoBoolTrue(value: unknown): value is (typeof GO_BOOL_TRUE_VALUES)[number] {
  return typeof value === 'string' && (GO_BOOL_TRUE_VALUES as readonly string[]).includes(value);
}
