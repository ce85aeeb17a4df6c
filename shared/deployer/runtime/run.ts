/**
 * The deployer runtime: one step of the contract for one DeployItem, as a function runs it on a
 * `dev.landscape.deployitem.reconcile` or `dev.landscape.requeue` event. It owns the I/O around
 * the pure decisions of shared/deployer: read the item, type check, lock (SyncObject), the
 * operation annotation (with BeforeAbort / BeforeForceReconcile hooks), the ShouldReconcile hooks
 * (continuous reconcile), the job start, Target / Context / config checks, the plugin's step,
 * then ONE status write when the status changed (final phase and jobIDFinished together), a
 * Warning Event for an error, the finalizer, and a requeue instead of any wait. The lock is
 * released whatever happens.
 */
import { GVK } from '../../api/gvk.js';
import {
  DEFAULT_CONTEXT_NAME,
  KUBERNETES_CLUSTER_TARGET_TYPE,
  LANDSCAPER_FINALIZER,
  LandscaperAnnotations,
  type DeployerInformation,
  type DeployItem,
  type DeployItemStatus,
  type Target,
} from '../../api/landscaper.js';
import { isNotFound, TargetKubeconfigError, type KubeClient } from '../../kube/index.js';
import type { Logger } from '../../log/index.js';
import type { Locker } from '../../lock/index.js';
import {
  applyError,
  applyStepResult,
  contextError,
  decideOperation,
  invalidTargetError,
  isDeleting,
  isProviderConfigurationEmpty,
  missingTargetError,
  mustWork,
  progressingDeadline,
  providerConfigurationMissingError,
  responsibleAfterHooks,
  runHooks,
  shouldReconcileAfterHooks,
  startContinuousJob,
  startJob,
  statusChanged,
  timeoutError,
  toDeployerError,
  type HookResult,
  type HookType,
  type ItemEvent,
  type ReconcileHooks,
  type StepOutcome,
} from '../index.js';
import type { DeployerPlugin, StepContext, StepResult } from '../types.js';
import { recordItemEvent } from './events.js';
import { statusMergePatch } from './patch.js';

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
  /** Counts this reconcile as in flight (monitoring); returns its end. */
  inFlight?: () => Promise<() => Promise<void>>;
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

async function readItem(host: KubeClient, ref: ItemRef): Promise<DeployItem | undefined> {
  try {
    const item = await host.get<DeployItem>(GVK.DeployItem, ref.namespace, ref.name);
    if (ref.uid && item.metadata?.uid !== ref.uid) return undefined;
    return item;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function key(ref: ItemRef): string {
  return `${ref.namespace}/${ref.name}`;
}

async function writeStatus(
  deps: RuntimeDeps,
  item: DeployItem,
  status: DeployItemStatus,
): Promise<DeployItem> {
  if (!statusChanged(item.status, status)) return item;
  const ref = { namespace: item.metadata?.namespace, name: item.metadata?.name ?? '' };
  return deps.host.patchStatus<DeployItem>(GVK.DeployItem, ref, statusMergePatch(item.status, status));
}

/** Adds or removes the Landscaper finalizer; optimistic (resourceVersion), a conflict is retried by the caller. */
async function setFinalizer(deps: RuntimeDeps, item: DeployItem, present: boolean): Promise<DeployItem> {
  const current = item.metadata?.finalizers ?? [];
  const has = current.includes(LANDSCAPER_FINALIZER);
  if (has === present) return item;
  const finalizers = present
    ? [...current, LANDSCAPER_FINALIZER]
    : current.filter((f) => f !== LANDSCAPER_FINALIZER);
  return deps.host.mergePatch<DeployItem>(
    GVK.DeployItem,
    { namespace: item.metadata?.namespace, name: item.metadata?.name ?? '' },
    { metadata: { finalizers, resourceVersion: item.metadata?.resourceVersion } },
  );
}

async function hook(
  deps: RuntimeDeps,
  type: HookType,
  item?: DeployItem,
  target?: Target,
): ReturnType<typeof runHooks> {
  return runHooks(deps.hooks, type, { item, target, now: deps.now(), log: deps.log });
}

/** A hook point asked to abort the reconcile (seed 002): the step stops here, writing nothing. */
export class HookAbort extends Error {
  override readonly name = 'HookAbort';
  constructor(
    readonly type: HookType,
    readonly requeueAfterMs: number | undefined,
  ) {
    super(`reconcile aborted by a ${type} hook`);
  }
}

/** Runs a hook point; an aggregated abortReconcile throws HookAbort (with its requeue, if any). */
async function gate(deps: RuntimeDeps, type: HookType, item?: DeployItem, target?: Target): Promise<void> {
  const result = await hook(deps, type, item, target);
  if (!result?.abortReconcile) return;
  const after = result.requeue || result.requeueAfterMs > 0 ? result.requeueAfterMs : undefined;
  throw new HookAbort(type, after);
}

/** The operation annotation; true when the step ends here (interrupt). */
async function handleOperation(
  deps: RuntimeDeps,
  item: DeployItem,
): Promise<{ item: DeployItem; stop: boolean }> {
  const op = decideOperation(item, deps.now(), deps.newId);
  if (!op) return { item, stop: false };
  await gate(deps, op.operation === 'interrupt' ? 'BeforeAbort' : 'BeforeForceReconcile', item);
  if (op.status) await writeStatus(deps, item, op.status);
  const next = await deps.host.mergePatch<DeployItem>(
    GVK.DeployItem,
    { namespace: item.metadata?.namespace, name: item.metadata?.name ?? '' },
    { metadata: { annotations: op.annotations } },
  );
  deps.log.info('operation', {
    deployItem: key(refOf(item)),
    operation: op.operation,
    jobID: next.status?.jobID,
  });
  return { item: next, stop: op.operation === 'interrupt' };
}

function refOf(item: DeployItem): ItemRef {
  return {
    namespace: item.metadata?.namespace ?? '',
    name: item.metadata?.name ?? '',
    uid: item.metadata?.uid,
  };
}

/** A finished item: the ShouldReconcile hooks may start a new job (continuous reconcile). */
async function maybeContinuous(deps: RuntimeDeps, item: DeployItem): Promise<DeployItem | undefined> {
  const result = await hook(deps, 'ShouldReconcile', item);
  if (result && (result.requeue || result.requeueAfterMs > 0))
    await deps.requeue(refOf(item), result.requeueAfterMs);
  if (!shouldReconcileAfterHooks(false, result)) return undefined;
  const status = startContinuousJob(item, deps.now(), deps.newId);
  if (!status) return undefined;
  deps.log.info('continuous reconcile: new job', { deployItem: key(refOf(item)), jobID: status.jobID });
  return writeStatus(deps, item, status);
}

async function readTarget(
  deps: RuntimeDeps,
  item: DeployItem,
  deleting: boolean,
): Promise<Target | undefined> {
  const name = item.spec.target?.name;
  if (!name) return undefined;
  const namespace = item.spec.target?.namespace ?? item.metadata?.namespace;
  try {
    return await deps.host.get<Target>(GVK.Target, namespace, name);
  } catch (err) {
    if (isNotFound(err)) throw missingTargetError(deleting);
    throw err;
  }
}

async function targetClientOf(
  deps: RuntimeDeps,
  target: Target | undefined,
  deleting: boolean,
): Promise<KubeClient | undefined> {
  if (!target || target.spec.type !== KUBERNETES_CLUSTER_TARGET_TYPE) return undefined;
  try {
    return await deps.targetClient(target);
  } catch (err) {
    if (err instanceof TargetKubeconfigError) throw invalidTargetError(err.message, deleting);
    throw err;
  }
}

async function checkContext(deps: RuntimeDeps, item: DeployItem, deleting: boolean): Promise<void> {
  const name = item.spec.context || DEFAULT_CONTEXT_NAME;
  try {
    await deps.host.getMetadata(GVK.Context, item.metadata?.namespace, name);
  } catch (err) {
    throw contextError(name, isNotFound(err) ? 'not found' : String(err), deleting);
  }
}

function withoutUninstall(item: DeployItem): boolean {
  return item.metadata?.annotations?.[LandscaperAnnotations.deleteWithoutUninstall] === 'true';
}

function stepContext(
  deps: RuntimeDeps,
  item: DeployItem,
  target?: Target,
  targetClient?: KubeClient,
): StepContext {
  return {
    item,
    target,
    targetClient,
    hostClient: deps.host,
    now: deps.now,
    log: deps.log.child({ deployItem: key(refOf(item)) }),
    checkpoint(name: string): void {
      const error = timeoutError(item, deps.now(), name);
      if (error) throw error;
    },
  };
}

/** The plugin's step with everything the contract checks first. */
async function pluginStep(deps: RuntimeDeps, item: DeployItem, deleting: boolean): Promise<StepResult> {
  const ctx0 = stepContext(deps, item);
  ctx0.checkpoint(deleting ? 'delete' : 'reconcile');
  if (deleting && withoutUninstall(item)) {
    await gate(deps, 'BeforeAnyReconcile', item);
    await gate(deps, 'BeforeDelete', item);
    return { kind: 'done' };
  }
  const target = await readTarget(deps, item, deleting);
  const targetClient = await targetClientOf(deps, target, deleting);
  await checkContext(deps, item, deleting);
  if (!deleting && isProviderConfigurationEmpty(item.spec.config))
    throw providerConfigurationMissingError(deleting);
  await gate(deps, 'BeforeAnyReconcile', item, target);
  await gate(deps, deleting ? 'BeforeDelete' : 'BeforeReconcile', item, target);
  const ctx = stepContext(deps, item, target, targetClient);
  return deleting ? deps.plugin.delete(ctx) : deps.plugin.reconcile(ctx);
}

async function stepOutcome(deps: RuntimeDeps, item: DeployItem, deleting: boolean): Promise<StepOutcome> {
  try {
    return applyStepResult(item.status, await pluginStep(deps, item, deleting), deps.now(), deleting);
  } catch (err) {
    if (err instanceof HookAbort) throw err;
    return applyError(item.status, toDeployerError(err, deleting), deps.now(), deleting);
  }
}

function resultOf(outcome: StepOutcome): RunOutcome {
  if (outcome.finished) return 'finished';
  if (outcome.event) return 'retrying';
  return outcome.requeueAfterMs !== undefined ? 'waiting' : 'unfinished';
}

/** One status write (when changed), the Event, the finalizer, the requeue. */
async function finish(deps: RuntimeDeps, item: DeployItem, outcome: StepOutcome): Promise<RunOutcome> {
  const next = await writeStatus(deps, item, outcome.status);
  if (outcome.event) await recordEvent(deps, next, outcome.event);
  if (outcome.removeFinalizer) {
    await setFinalizer(deps, next, false);
    return 'deleted';
  }
  const after = outcome.requeueAfterMs ?? untilDeadline(deps, { ...next, status: outcome.status }, outcome);
  if (after !== undefined) await deps.requeue(refOf(item), after);
  return resultOf(outcome);
}

/**
 * An open job that no wait or retry brings back (a non-final phase set by the plugin, e.g. the
 * mock's initialPhase) is looked at again when its progressing timeout is due, so the timeout
 * fires without waiting for another event.
 */
function untilDeadline(deps: RuntimeDeps, item: DeployItem, outcome: StepOutcome): number | undefined {
  if (outcome.finished || !mustWork(item)) return undefined;
  try {
    const deadline = progressingDeadline(item);
    return deadline ? Math.max(0, deadline.getTime() - deps.now().getTime()) : undefined;
  } catch {
    return undefined;
  }
}

async function recordEvent(deps: RuntimeDeps, item: DeployItem, event: ItemEvent): Promise<void> {
  try {
    await recordItemEvent(deps.host, item, event, {
      component: deps.deployer.name,
      now: deps.now(),
      newId: deps.newId,
    });
  } catch (err) {
    deps.log.warn('cannot record the Event', {
      deployItem: key(refOf(item)),
      reason: event.reason,
      error: String(err),
    });
  }
}

/** The locked part: the item is re-read under the lock. */
async function lockedStep(deps: RuntimeDeps, ref: ItemRef): Promise<RunOutcome> {
  const start = deps.now();
  let outcome: RunOutcome | 'error' = 'error';
  try {
    outcome = await lockedWork(deps, ref);
    return outcome;
  } catch (err) {
    if (!(err instanceof HookAbort)) throw err;
    if (err.requeueAfterMs !== undefined) await deps.requeue(ref, err.requeueAfterMs);
    outcome = 'aborted-by-hook';
    return outcome;
  } finally {
    // one line per locked step, with the interval it held the lock (audits look for overlaps)
    deps.log.info('step', {
      deployItem: key(ref),
      outcome,
      lockedFrom: start.toISOString(),
      lockedTo: deps.now().toISOString(),
    });
  }
}

async function lockedWork(deps: RuntimeDeps, ref: ItemRef): Promise<RunOutcome> {
  let item = await readItem(deps.host, ref);
  if (!item) return 'gone';
  const op = await handleOperation(deps, item);
  if (op.stop) return 'interrupted';
  item = op.item;
  if (!mustWork(item)) {
    const started = await maybeContinuous(deps, item);
    if (!started) return 'nothing-to-do';
    item = started;
  }
  const deleting = isDeleting(item);
  const job = startJob(item, deps.now(), deps.deployer);
  if (!deleting) item = await setFinalizer(deps, item, true);
  const working: DeployItem = { ...item, status: job.status };
  const outcome = await stepOutcome(deps, working, deleting);
  const result = await finish(deps, item, outcome);
  deps.log.info('reconciled', {
    deployItem: key(ref),
    jobID: outcome.status.jobID,
    phase: outcome.status.phase,
    outcome: result,
    ...(outcome.status.lastError && outcome.event ? { reason: outcome.status.lastError.reason } : {}),
  });
  return result;
}

/**
 * Cheap checks before taking the lock, so that events for finished items cost one read and no
 * write: an unfinished job or an operation needs the lock; a finished item only when a
 * ShouldReconcile hook (continuous reconcile) says it is due — otherwise it is requeued for then.
 */
async function needsLock(deps: RuntimeDeps, item: DeployItem): Promise<boolean> {
  if (mustWork(item)) return true;
  if (item.metadata?.annotations?.[LandscaperAnnotations.operation]) return true;
  const result = await hook(deps, 'ShouldReconcile', item);
  if (shouldReconcileAfterHooks(false, result)) return true;
  if (result && (result.requeue || result.requeueAfterMs > 0))
    await deps.requeue(refOf(item), result.requeueAfterMs);
  return false;
}

/**
 * The deployer's own responsibility check (the type; the Target and selectors were checked by
 * the responsibility-check function): DuringResponsibilityCheck hooks may override it, then
 * AfterResponsibilityCheck hooks run (their abort ends the step).
 */
async function responsible(deps: RuntimeDeps, item: DeployItem): Promise<boolean> {
  const during = await hook(deps, 'DuringResponsibilityCheck', item);
  if (!responsibleAfterHooks(item.spec.type === deps.plugin.type, during)) return false;
  const after = await hook(deps, 'AfterResponsibilityCheck', item);
  return !after?.abortReconcile;
}

/** A hook result's requeue, when it asks for one. */
async function requeueFor(deps: RuntimeDeps, ref: ItemRef, result: HookResult | undefined): Promise<void> {
  if (result && (result.requeue || result.requeueAfterMs > 0)) await deps.requeue(ref, result.requeueAfterMs);
}

/** Start hooks: false when they abort the reconcile. */
async function started(deps: RuntimeDeps): Promise<boolean> {
  try {
    await gate(deps, 'Start');
    return true;
  } catch (err) {
    if (err instanceof HookAbort) return false;
    throw err;
  }
}

/** The lock, the locked step, the End hooks; a held lock is looked at again after lockRetryMs. */
async function underLock(deps: RuntimeDeps, ref: ItemRef, item: DeployItem): Promise<RunOutcome> {
  const target = {
    kind: 'DeployItem',
    namespace: ref.namespace,
    name: ref.name,
    uid: item.metadata?.uid ?? '',
  };
  const locked = await deps.locker.withLock(target, () => lockedStep(deps, ref));
  if (!locked.locked) {
    await deps.requeue(ref, deps.lockRetryMs);
    return 'locked-elsewhere';
  }
  await requeueFor(deps, ref, await hook(deps, 'End', item));
  return locked.value;
}

/** One step of the contract for the item `ref`. */
export async function reconcileItem(deps: RuntimeDeps, ref: ItemRef): Promise<RunOutcome> {
  if (!(await started(deps))) return 'aborted-by-hook';
  const item = await readItem(deps.host, ref);
  if (!item) return 'gone';
  if (!(await responsible(deps, item))) return 'not-responsible';
  if (!(await needsLock(deps, item))) return 'nothing-to-do';
  const done = deps.inFlight ? await deps.inFlight() : undefined;
  try {
    return await underLock(deps, ref, item);
  } finally {
    await done?.();
  }
}
