/**
 * The drill's shared shapes (`npm run drill`): a workload creates mixed work in a running
 * embedded landscape, says when it has settled, and checks its end state; the runner applies one
 * fault while the work goes through, then counts lost and wrongly duplicated effects.
 */
import type { KubeClient } from '../../shared/kube/index.js';
import type { Landscape } from '../landscape.js';

/** How much work each workload creates (the runner picks a scale per fault). */
export interface DrillScale {
  /** DeployItems of the mock deployer. */
  mockItems: number;
  /** DeployItems of the manifest deployer (each applies a ConfigMap + a Secret-free object into a target cluster). */
  manifestItems: number;
  /** Share (0..1) of the succeeded items deleted again before the end (their objects must go). */
  deleteShare: number;
  /** Shoots to schedule onto seeds (seeds sized so the shoots fit exactly, plus spare). */
  shoots: number;
  /** Shoots whose API server the prober probes; half of them go down and come back. */
  probedShoots: number;
  /** Whether a ManagedSeedSet under a SeedAutoscaler is part of the work. */
  managedSeedSet: boolean;
}

export interface DrillContext {
  landscape: Landscape;
  /** Admin client of the main cluster (keep-alive). */
  main: KubeClient;
  /** Admin client of any cluster by name (`main`, `shoot-1`, ...). */
  cluster(name: string): KubeClient;
  /** The namespace of this drill run (workloads may create more, prefixed with it). */
  namespace: string;
  scale: DrillScale;
  /** The landscape's Redis (what the functions remember between events). */
  redisUrl: string;
  /** Seeded randomness (0 <= x < 1) so a run can be repeated. */
  random: () => number;
  now: () => number;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

export interface WorkloadCheck {
  /**
   * Effects the workload asked for (items reconciled, shoots bound, scale-downs/-ups, ...), from
   * its plan: the runner counts what happened from the audit log and compares (effects.ts).
   */
  operations: number;
  /** One line per effect that did not happen or ended wrong (empty: nothing lost). */
  lost: string[];
}

export interface Workload {
  readonly name: string;
  /**
   * Creates the work. Runs while a fault may be active: every write retries until it took
   * (an AlreadyExists after a dropped response counts as taken).
   */
  start(ctx: DrillContext): Promise<void>;
  /**
   * Steps the workload takes in the middle of the run (delete some succeeded items, take a
   * probed shoot's API server down and up again); called once, while the fault is still active.
   */
  disturb?(ctx: DrillContext): Promise<void>;
  /** Polled after the fault ends: true once the workload reached its end state. */
  settled(ctx: DrillContext): Promise<boolean>;
  /** The end-state check, after settled() (or after the settle timeout). */
  check(ctx: DrillContext): Promise<WorkloadCheck>;
}
