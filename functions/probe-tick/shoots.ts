/**
 * Which shoots the prober probes (specs/dependency-watchdog.md "Which shoots are probed"; upstream
 * controllers/cluster), pure: one `Cluster` in, a decision out.
 *
 * Upstream has two kinds of "no": `shouldStopProber` (deletion, hibernation, migration, no workers)
 * removes a running prober; `canStartProber` (waking up, no lastOperation, unfinished create/restore)
 * only keeps a new one from starting, and a prober already running carries on. `stopExisting` says
 * which kind a skip is.
 */
import { unhealthyConditionsByPool } from './lease.js';
import type { Cluster } from '../../shared/api/extensions.js';
import type { Shoot } from '../../shared/api/core.js';
import type { ProberConfig } from '../../shared/watchdog/config.js';
import { parseGoDuration, isOneOf } from '@landscape/apimachinery';

/** Node condition types that mark a node unhealthy when a pool does not name its own (MCM's defaults). */
export { DEFAULT_UNHEALTHY_NODE_CONDITIONS } from './lease.js';

export const SHOOT_SKIP_REASONS = [
  'invalid-cluster',
  'deleting',
  'hibernation-enabled',
  'migrating',
  'no-workers',
  'waking-up',
  'creating',
  'not-ready',
  'invalid-node-monitor-grace-period',
] as const;
export type ShootSkipReason = (typeof SHOOT_SKIP_REASONS)[number];
export const isShootSkipReason: (value: unknown) => value is ShootSkipReason = isOneOf(SHOOT_SKIP_REASONS);

export interface ShootProbeSkip {
  probe: false;
  reason: ShootSkipReason;
  /** True: remove a running prober (upstream shouldStopProber); false: only do not start one. */
  stopExisting: boolean;
  /** Upstream's log line for this case. */
  message: string;
}

export interface ShootProbe {
  probe: true;
  /** The shoot's namespace in the seed: the Cluster's name. */
  namespace: string;
  /** The prober config with this shoot's kcmNodeMonitorGraceDuration (ms). */
  config: ProberConfig;
  nodeMonitorGraceSource: 'shoot' | 'config';
  /** Unhealthy node condition types per worker pool that has machineControllerManagerSettings. */
  workerNodeConditions: Readonly<Record<string, readonly string[]>>;
}

export type ShootProbeDecision = ShootProbeSkip | ShootProbe;

type Check = readonly [ShootSkipReason, (shoot: Shoot) => boolean, string];

function hibernationEnabled(shoot: Shoot): boolean {
  return shoot.spec?.hibernation?.enabled === true;
}

/** Reconcile in any state, or a Create/Restore that Succeeded. */
function lastOperationAllowsStart(shoot: Shoot): boolean {
  const op = shoot.status?.lastOperation;
  if (op?.type === 'Reconcile') return true;
  return (op?.type === 'Create' || op?.type === 'Restore') && op.state === 'Succeeded';
}

/** In upstream's order; the first that matches decides. */
const STOP_CHECKS: readonly Check[] = [
  [
    'deleting',
    (s) => Boolean(s.metadata?.deletionTimestamp),
    'Cluster has been marked for deletion, existing prober if any will be removed',
  ],
  [
    'hibernation-enabled',
    hibernationEnabled,
    'Cluster hibernation is enabled, existing prober if any will be removed',
  ],
  [
    'migrating',
    (s) => s.status?.lastOperation?.type === 'Migrate',
    'Cluster migration is enabled, existing prober if any will be removed',
  ],
  [
    'no-workers',
    (s) => (s.spec?.provider?.workers ?? []).length === 0,
    'Cluster does not have any workers, existing prober if any will be removed',
  ],
];

const START_CHECKS: readonly Check[] = [
  [
    'waking-up',
    (s) => !hibernationEnabled(s) && s.status?.isHibernated === true,
    'Cannot start probe. Cluster is waking up from hibernation',
  ],
  ['creating', (s) => !s.status?.lastOperation, 'Cannot start probe. Cluster is creation phase'],
  [
    'not-ready',
    (s) => !lastOperationAllowsStart(s),
    'Cannot start probe. Cluster is either in migration or in creation phase',
  ],
];

const skip = (reason: ShootSkipReason, stopExisting: boolean, message: string): ShootProbeSkip => ({
  probe: false,
  reason,
  stopExisting,
  message,
});

/** The shoot's node-monitor grace period in ms; undefined when unset; NaN when not a positive duration. */
function shootGracePeriod(shoot: Shoot): number | undefined {
  const value = shoot.spec?.kubernetes?.kubeControllerManager?.nodeMonitorGracePeriod;
  if (value === undefined || value === null) return undefined;
  try {
    const ms = parseGoDuration(String(value));
    return ms > 0 ? ms : NaN;
  } catch {
    return NaN;
  }
}

/** Upstream's GetEffectiveNodeConditionsForWorkers (lease.ts's unhealthyConditionsByPool). */
export function workerNodeConditions(shoot: Shoot): Readonly<Record<string, readonly string[]>> {
  return unhealthyConditionsByPool(shoot.spec?.provider?.workers ?? []);
}

/** The first skip rule that matches, in upstream's order; undefined when the shoot may be probed. */
export function shootSkip(shoot: Shoot): ShootProbeSkip | undefined {
  for (const [reason, matches, message] of STOP_CHECKS) {
    if (matches(shoot)) return skip(reason, true, message);
  }
  for (const [reason, matches, message] of START_CHECKS) {
    if (matches(shoot)) return skip(reason, false, message);
  }
  return undefined;
}

/**
 * Whether to probe the shoot of `cluster`, and with which settings. `running`: a prober for this
 * shoot is already running, so only the stop rules apply (upstream's canStartProber guards a new
 * prober only). `defaults` is not mutated.
 */
export function decideShootProbe(
  cluster: Cluster,
  defaults: ProberConfig,
  running = false,
): ShootProbeDecision {
  const namespace = cluster.metadata?.name;
  const shoot = cluster.spec?.shoot;
  if (!namespace || !shoot || typeof shoot !== 'object') {
    return skip('invalid-cluster', false, 'Cluster has no name or no spec.shoot');
  }
  const skipped = shootSkip(shoot);
  if (skipped && (skipped.stopExisting || !running)) return skipped;
  return probeSettings(namespace, shoot, defaults);
}

function probeSettings(namespace: string, shoot: Shoot, defaults: ProberConfig): ShootProbeDecision {
  const grace = shootGracePeriod(shoot);
  if (Number.isNaN(grace)) {
    return skip(
      'invalid-node-monitor-grace-period',
      false,
      'Cannot start probe. spec.kubernetes.kubeControllerManager.nodeMonitorGracePeriod is not a positive duration',
    );
  }
  return {
    probe: true,
    namespace,
    config: grace === undefined ? defaults : { ...defaults, kcmNodeMonitorGraceDuration: grace },
    nodeMonitorGraceSource: grace === undefined ? 'config' : 'shoot',
    workerNodeConditions: workerNodeConditions(shoot),
  };
}
