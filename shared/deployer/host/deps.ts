/** What the deployer host works with: its dependencies, the item reference, the step outcomes. */
import type { DeployerInformation, DeployItem, Target } from '../../api/landscaper.js';
import type { KubeClient } from '../../kube/index.js';
import type { Locker } from '../../lock/index.js';
import type { Logger } from '../../log/index.js';
import type { ReconcileHooks } from '../index.js';
import type { DeployerPlugin } from '../types.js';
import type { JobMemo } from './jobs.js';

export interface ItemRef {
  namespace: string;
  name: string;
  uid?: string;
}

export interface RuntimeDeps {
  plugin: DeployerPlugin;
  /** The cluster of the DeployItems (Targets, Contexts, SyncObjects, Events, export Secrets). */
  host: KubeClient;
  locker: Locker;
  /** Look at the item again after `afterMs` (the requeue primitive). */
  requeue(ref: ItemRef, afterMs: number): Promise<void>;
  /** A client for a kubernetes-cluster Target (throws TargetKubeconfigError when refused). */
  targetClient(target: Target): Promise<KubeClient>;
  hooks: ReconcileHooks;
  deployer: DeployerInformation;
  now: () => Date;
  newId: () => string;
  log: Logger;
  /** Retry delay when another replica holds the lock. */
  lockRetryMs: number;
  /** Counts this reconcile as in flight (monitoring); resolves with its end; never rejects (entered beside the lock). */
  inFlight?: () => Promise<() => Promise<void>>;
  /** The jobs this instance's steps took (events that carry the item). */
  jobs?: JobMemo;
}

export const RUN_OUTCOMES = [
  'gone',
  'not-responsible',
  'nothing-to-do',
  'locked-elsewhere',
  'interrupted',
  'finished',
  'waiting',
  'retrying',
  'unfinished',
  'deleted',
  'aborted-by-hook',
] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export function key(ref: ItemRef): string {
  return `${ref.namespace}/${ref.name}`;
}

export function refOf(item: DeployItem): ItemRef {
  return {
    namespace: item.metadata?.namespace ?? '',
    name: item.metadata?.name ?? '',
    uid: item.metadata?.uid,
  };
}
