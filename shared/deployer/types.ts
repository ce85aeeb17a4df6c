/**
 * The deployer plugin interface: what a deployer type (mock, manifest, ...) implements, and what
 * the contract runtime (shared/deployer) gives it. The runtime owns everything of the contract
 * (responsibility, lock, jobID/jobIDFinished, phases, errors, finalizer, timeouts, hooks, status
 * writes); a plugin only does its type's work for one step and says how the step ended.
 *
 * A step never blocks: when it must wait (readiness, deletion of a group of objects) it returns
 * `{ kind: 'wait' }` and the runtime requeues the item (DESIGN "Requeue, never wait"); the next
 * event calls the plugin again with the item as it is then (phase Progressing / Deleting, the
 * providerStatus of the previous step). Steps must therefore be idempotent.
 */
import type { DeployItem, DeployItemPhase, ErrorCode, ObjectRef, Target } from '../api/landscaper.js';
import type { KubeClient } from '../kube/index.js';
import type { Logger } from '../log/index.js';

/** How one step of a plugin ended. */
export type StepResult =
  /**
   * The work of this job is done. `phase` overrides the final phase (the mock deployer's `phase`
   * / `initialPhase`): a final phase ends the job (jobIDFinished = jobID); a non-final phase
   * leaves the item in that phase with the job unfinished. Default: Succeeded (reconcile) /
   * the item is gone after the finalizer is removed (delete).
   */
  | {
      kind: 'done';
      providerStatus?: Record<string, unknown>;
      exportRef?: ObjectRef | null;
      phase?: DeployItemPhase;
    }
  /** Not finished yet: look again after `afterMs` (requeue), keeping this providerStatus. */
  | {
      kind: 'wait';
      afterMs: number;
      /** Why, for the log (e.g. `waiting for deployment default/web to be ready`). */
      reason: string;
      providerStatus?: Record<string, unknown>;
    };

/** A failed step: the runtime turns it into lastError (and Failed when a code is unrecoverable). */
export class DeployerError extends Error {
  override readonly name = 'DeployerError';
  constructor(
    /** `lastError.operation`, e.g. `Reconcile`, `ApplyManifests`, `Delete`. */
    readonly operation: string,
    /** `lastError.reason`, e.g. `ProviderConfigurationInvalid`. */
    readonly reason: string,
    message: string,
    readonly codes: readonly ErrorCode[] = [],
  ) {
    super(message);
  }
}

/**
 * A step that could not finish yet because something it needs does not exist yet (upstream: the
 * manifest deployer's create into a namespace that is not there, a kind discovery does not know
 * yet). Recoverable: recorded as lastError, the phase becomes Progressing (Deleting while
 * deleting), `providerStatus` (what the step did get done) is taken over, and the item is
 * requeued until it works or the progressing timeout fires.
 */
export class NotYetError extends DeployerError {
  readonly progressing = true;
  constructor(
    operation: string,
    reason: string,
    message: string,
    readonly providerStatus?: Record<string, unknown>,
  ) {
    super(operation, reason, message);
  }
}

/** Thrown by `checkpoint` when the progressing timeout has passed (the runtime ends the job Failed). */
export class ProgressingTimeoutError extends DeployerError {
  constructor(checkpoint: string) {
    super('StandardTimeoutChecker.TimeoutExceeded', 'ProgressingTimeout', `timeout at: "${checkpoint}"`, [
      'ERR_TIMEOUT',
    ]);
  }
}

export interface StepContext {
  /** The DeployItem as read at the start of this step (full object). */
  readonly item: DeployItem;
  /** The Target named by `spec.target`; undefined when the item names none. */
  readonly target?: Target;
  /** A client for the Target's cluster (`landscaper.gardener.cloud/kubernetes-cluster`); undefined without one. */
  readonly targetClient?: KubeClient;
  /** The cluster that holds the DeployItem (the Landscaper host cluster): export Secrets go here. */
  readonly hostClient: KubeClient;
  readonly now: () => Date;
  readonly log: Logger;
  /**
   * A progressing-timeout checkpoint: throws ProgressingTimeoutError (`timeout at: "<name>"`) when
   * `transitionTimes.initTime + (spec.timeout or 10m)` has passed. Call it between phases of work.
   */
  checkpoint(name: string): void;
}

export interface DeployerPlugin {
  /** `spec.type` it handles, e.g. `landscaper.gardener.cloud/kubernetes-manifest`. */
  readonly type: string;
  /** Short name: SyncObject prefix, `deployertype` event attribute, function suffix (`mock`, `manifest`). */
  readonly name: string;
  /** Apply `spec.config` (phase Init/Progressing). */
  reconcile(ctx: StepContext): Promise<StepResult>;
  /** Uninstall (phase InitDelete/Deleting); not called with `delete-without-uninstall: "true"`. */
  delete(ctx: StepContext): Promise<StepResult>;
}
