/**
 * The drill's workloads (local/drill/types.ts): DeployItems of both deployers, shoots to schedule,
 * a ManagedSeedSet under a SeedAutoscaler, shoots probed by the dependency watchdog and its weeder — only
 * those the scale asks for. `drillConfigFiles()` gives the function configs (files of the config
 * dir) the drill should run with: seed sizes for the shoots workload and short waits and intervals.
 */
import type { DrillScale, Workload } from '../types.js';
import { deployItems } from './deployitems.js';
import { probed } from './probed.js';
import { seedSet } from './seedset.js';
import { seedStatusConfig, shoots } from './shoots.js';
import { weederWorkload } from './weeder.js';

export { deployItems } from './deployitems.js';
export { probed } from './probed.js';
export { seedSet } from './seedset.js';
export { seedPlan, seedStatusConfig, shoots } from './shoots.js';
export { isTransient, retry } from './retry.js';

export function workloads(scale: DrillScale): Workload[] {
  return [
    ...(scale.mockItems + scale.manifestItems > 0 ? [deployItems()] : []),
    ...(scale.shoots > 0 ? [shoots()] : []),
    ...(scale.managedSeedSet ? [seedSet()] : []),
    ...(scale.probedShoots > 0 ? [probed(), weederWorkload()] : []),
  ];
}

const PROBE_TICK = `kubeConfigSecretName: dwd-api-server-probe-secret
probeInterval: 1s
initialDelay: 2s
probeTimeout: 2s
backoffJitterFactor: 0.2
kcmNodeMonitorGraceDuration: 10s
nodeLeaseFailureFraction: 0.6
dependentResourceInfos:
  - ref: {kind: Deployment, name: kube-controller-manager, apiVersion: apps/v1}
    optional: false
    scaleUp: {level: 0}
    scaleDown: {level: 1}
  - ref: {kind: Deployment, name: machine-controller-manager, apiVersion: apps/v1}
    optional: false
    scaleUp: {level: 1, initialDelay: 2s}
    scaleDown: {level: 0}
  - ref: {kind: Deployment, name: cluster-autoscaler, apiVersion: apps/v1}
    optional: true
    scaleUp: {level: 2}
    scaleDown: {level: 0}
`;

const SCHEDULE_SHOOT = `schedulerName: default-scheduler
candidateDeterminationStrategy: SameRegion
retrySyncPeriod: 1s
maxRetryPeriod: 4s
reserveAttempts: 10
reservationTimeout: 10s
rebuildTimeout: 10s
`;

const MANAGEDSEED = `namespace: garden
waitSyncPeriod: 1s
syncPeriod: 1h
errorBackoff: {min: 1s, max: 5s}
concurrency: 4
logLevel: info
`;

const MANAGEDSEEDSET = `syncPeriod: 30m
maxShootRetries: 3
errorRequeueDelay: 2s
lockRetryDelay: 500ms
logLevel: info
`;

/** A deployer's config; `concurrency` is its Service's containerConcurrency (knative/deployers). */
const deployer = (identity: string, concurrency: number): string => `identity: ${identity}
version: 0.1.0
lockRetryDelay: 200ms
continuousReconcile: true
workers: {concurrency: ${concurrency}, instances: 1}
logLevel: info
`;

/**
 * Files to write over a copy of config/ for a drill run in `namespace` (file name → content): the
 * shoots workload's seed sizes (seed-status, the seeds of runs with up to 1000 shoots), and short
 * intervals so a run takes seconds, not minutes (probe-tick, schedule-shoot, managedseed,
 * managedseedset, the deployers' lock retry).
 */
export function drillConfigFiles(namespace: string): Record<string, string> {
  return {
    'seed-status.yaml': seedStatusConfig(namespace),
    'probe-tick.yaml': PROBE_TICK,
    'schedule-shoot.yaml': SCHEDULE_SHOOT,
    'managedseed.yaml': MANAGEDSEED,
    'managedseedset.yaml': MANAGEDSEEDSET,
    'deployer-mock.yaml': deployer('deployer-mock', 25),
    'deployer-manifest.yaml': deployer('deployer-manifest', 10),
  };
}

/**
 * The weeder's window in a drill (upstream's example: 5m, longer than a whole drill run, so a
 * delete outside it could hardly be seen): long enough for a cold start under load between the
 * recovery and the weeder's delete, short against a run (the fault window plus the settle).
 */
export const WEEDER_WATCH_DURATION = '1m0s';

/** config/weeder.yaml with the drill's watchDuration (the selectors stay the repository's). */
export function drillWeederConfig(base: string): string {
  const line = /^watchDuration:.*$/m;
  if (!line.test(base)) throw new Error('weeder config: no top-level watchDuration line to override');
  return base.replace(line, `watchDuration: ${WEEDER_WATCH_DURATION}`);
}

/** drillConfigFiles() of the runner's namespace `drill`. */
export const DRILL_CONFIG: Readonly<Record<string, string>> = drillConfigFiles('drill');
