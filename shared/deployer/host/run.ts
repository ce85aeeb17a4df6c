/**
 * The deployer host: one step of the contract for one DeployItem, as a function runs it on a
 * `dev.landscape.deployitem.reconcile` or `dev.landscape.requeue` event. It owns the I/O around
 * the pure decisions of shared/deployer: read the item, type check, lock (SyncObject), the
 * operation annotation (with BeforeAbort / BeforeForceReconcile hooks), the ShouldReconcile hooks
 * (continuous reconcile), the job start, Target / Context / config checks, the plugin's step,
 * then ONE status write when the status changed (final phase and jobIDFinished together), a
 * Warning Event for an error, the finalizer, and a requeue instead of any wait. The lock is
 * released whatever happens. Its parts: deps.ts (what it is given), item-io.ts (reads and writes
 * of the item, Target, Context, Events), hook-points.ts (hooks, aborts, the type check).
 */
import { GVK } from '../../api/gvk.js';
import {
  LANDSCAPER_FINALIZER,
  LandscaperAnnotations,
  type DeployItem,
  type Target,
} from '../../api/landscaper.js';
import { isConflict, isNotFound, type KubeClient } from '../../kube/index.js';
import {
  applyError,
  applyStepResult,
  decideOperation,
  isDeleting,
  isProviderConfigurationEmpty,
  mustWork,
  progressingDeadline,
  providerConfigurationMissingError,
  shouldReconcileAfterHooks,
  startContinuousJob,
  startJob,
  timeoutError,
  toDeployerError,
  type StepOutcome,
} from '../index.js';
import type { StepContext, StepResult } from '../types.js';
import { key, refOf, type ItemRef, type RunOutcome, type RuntimeDeps } from './deps.js';
import { gate, hook, HookAbort, requeueFor, responsible, started } from './hook-points.js';
import {
  checkContext,
  readItem,
  readTarget,
  recordEvent,
  setFinalizer,
  targetClientOf,
  withoutUninstall,
  writeStatus,
} from './item-io.js';

export { RUN_OUTCOMES } from './deps.js';
export type { ItemRef, RunOutcome, RuntimeDeps } from './deps.js';
export { HookAbort } from './hook-points.js';

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

/** The Context read (upstream's: uncached), sent beside the finalizer; its error waits for its turn. */
type ContextCheck = Promise<{ error?: Error }>;

function startContextCheck(deps: RuntimeDeps, item: DeployItem, deleting: boolean): ContextCheck {
  return checkContext(deps, item, deleting).then(
    () => ({}),
    (error: unknown) => ({ error: error instanceof Error ? error : new Error(String(error)) }),
  );
}

/** The plugin's step with everything the contract checks first. */
async function pluginStep(
  deps: RuntimeDeps,
  item: DeployItem,
  deleting: boolean,
  context?: ContextCheck,
): Promise<StepResult> {
  const ctx0 = stepContext(deps, item);
  ctx0.checkpoint(deleting ? 'delete' : 'reconcile');
  if (deleting && withoutUninstall(item)) {
    await gate(deps, 'BeforeAnyReconcile', item);
    await gate(deps, 'BeforeDelete', item);
    return { kind: 'done' };
  }
  const target = await readTarget(deps, item, deleting);
  const targetClient = await targetClientOf(deps, target, deleting);
  const { error } = await (context ?? startContextCheck(deps, item, deleting));
  if (error) throw error;
  if (!deleting && isProviderConfigurationEmpty(item.spec.config))
    throw providerConfigurationMissingError(deleting);
  await gate(deps, 'BeforeAnyReconcile', item, target);
  await gate(deps, deleting ? 'BeforeDelete' : 'BeforeReconcile', item, target);
  const ctx = stepContext(deps, item, target, targetClient);
  return deleting ? deps.plugin.delete(ctx) : deps.plugin.reconcile(ctx);
}

async function stepOutcome(
  deps: RuntimeDeps,
  item: DeployItem,
  deleting: boolean,
  context?: ContextCheck,
): Promise<StepOutcome> {
  try {
    return applyStepResult(
      item.status,
      await pluginStep(deps, item, deleting, context),
      deps.now(),
      deleting,
    );
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

/**
 * Whether the locked step may start from `known` (the item as the event carried it, or as read
 * before the lock) instead of reading it again: an open job, not deleting, no operation, no
 * finalizer yet. Its first write is then the finalizer, optimistic on `known`'s resourceVersion,
 * so a write that succeeds proves `known` was the item's current version (what the read would have
 * returned); a 409 or 404 reads it and starts over. Any other step reads first, as upstream's
 * deployers do under the lock (pure).
 */
export function startsFromKnown(item: DeployItem): boolean {
  return (
    mustWork(item) &&
    !isDeleting(item) &&
    !item.metadata?.annotations?.[LandscaperAnnotations.operation] &&
    !(item.metadata?.finalizers ?? []).includes(LANDSCAPER_FINALIZER) &&
    Boolean(item.metadata?.resourceVersion)
  );
}

/** The locked part: the item as known before the lock when startsFromKnown says so, else read. */
async function lockedStep(
  deps: RuntimeDeps,
  ref: ItemRef,
  after: Promise<unknown>[],
  known?: DeployItem,
): Promise<RunOutcome> {
  const start = deps.now();
  let outcome: RunOutcome | 'error' = 'error';
  try {
    outcome = await lockedWork(deps, ref, after, known && startsFromKnown(known) ? known : undefined);
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

/** The finalizer, optimistic; `undefined` when `fromKnown` and the item moved on (read it again). */
async function withFinalizer(
  deps: RuntimeDeps,
  item: DeployItem,
  fromKnown: boolean,
): Promise<DeployItem | undefined> {
  try {
    return await setFinalizer(deps, item, true);
  } catch (err) {
    if (fromKnown && (isConflict(err) || isNotFound(err))) return undefined;
    throw err;
  }
}

/** The item with an open job to work on (after its operation), or why there is none. */
async function itemToWork(
  deps: RuntimeDeps,
  ref: ItemRef,
  known?: DeployItem,
): Promise<DeployItem | RunOutcome> {
  const read = known ?? (await readItem(deps.host, ref));
  if (!read) return 'gone';
  const op = await handleOperation(deps, read);
  if (op.stop) return 'interrupted';
  if (mustWork(op.item)) return op.item;
  return (await maybeContinuous(deps, op.item)) ?? 'nothing-to-do';
}

/**
 * The step under the lock. `after` gets what need not hold it (the finished job's note for the
 * sibling replicas; this instance's own is at once), awaited by reconcileItem after the unlock.
 */
async function lockedWork(
  deps: RuntimeDeps,
  ref: ItemRef,
  after: Promise<unknown>[],
  known?: DeployItem,
): Promise<RunOutcome> {
  let item = await itemToWork(deps, ref, known);
  if (typeof item === 'string') return item;
  const deleting = isDeleting(item);
  const job = startJob(item, deps.now(), deps.deployer);
  let context: ContextCheck | undefined;
  if (!deleting) {
    context = startContextCheck(deps, item, deleting);
    const finalized = await withFinalizer(deps, item, known !== undefined);
    if (!finalized) return lockedWork(deps, ref, after);
    item = finalized;
  }
  const working: DeployItem = { ...item, status: job.status };
  const outcome = await stepOutcome(deps, working, deleting, context);
  const result = await finish(deps, item, outcome);
  if (result === 'finished' && deps.jobs) after.push(deps.jobs.finish(item, outcome.status.jobID));
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

/** The lock, the locked step, the End hooks; a held lock is looked at again after lockRetryMs. */
async function underLock(
  deps: RuntimeDeps,
  ref: ItemRef,
  item: DeployItem,
  after: Promise<unknown>[],
): Promise<RunOutcome> {
  const target = {
    kind: 'DeployItem',
    namespace: ref.namespace,
    name: ref.name,
    uid: item.metadata?.uid ?? '',
  };
  // an item no deployer has finished a job of was, as a rule, never locked: create first
  const hint = { absent: !item.status?.jobIDFinished };
  const locked = await deps.locker.withLock(target, () => lockedStep(deps, ref, after, item), hint);
  if (!locked.locked) {
    await deps.requeue(ref, deps.lockRetryMs);
    return 'locked-elsewhere';
  }
  await requeueFor(deps, ref, await hook(deps, 'End', item));
  return locked.value;
}

/** The item as the event carried it (of the same uid), else as read; undefined when gone. */
async function itemOf(
  deps: RuntimeDeps,
  ref: ItemRef,
  carried?: DeployItem,
): Promise<DeployItem | undefined> {
  if (!carried) return readItem(deps.host, ref);
  return ref.uid && carried.metadata?.uid !== ref.uid ? undefined : carried;
}

/** underLock, with the item's job noted as taken by this instance while the step runs. */
async function takeJob(
  deps: RuntimeDeps,
  ref: ItemRef,
  item: DeployItem,
  after: Promise<unknown>[],
): Promise<RunOutcome> {
  const uid = item.metadata?.uid ?? '';
  const noted = deps.jobs?.start(item) ?? false;
  let result: RunOutcome | undefined;
  try {
    result = await underLock(deps, ref, item, after);
    return result;
  } finally {
    const met = noted && deps.jobs!.end(uid);
    if (met && result !== undefined && !['finished', 'deleted', 'gone'].includes(result))
      await deps.requeue(ref, deps.lockRetryMs);
  }
}

/**
 * One step of the contract for the item `ref`; `carried` is the item as the event carried it
 * (decided from without a read until the lock is held; under the lock it is read again unless the
 * step's first write, the finalizer, checks it: startsFromKnown).
 */
export async function reconcileItem(
  deps: RuntimeDeps,
  ref: ItemRef,
  carried?: DeployItem,
): Promise<RunOutcome> {
  if (!(await started(deps))) return 'aborted-by-hook';
  const item = await itemOf(deps, ref, carried);
  if (!item) return 'gone';
  if (carried && (await deps.jobs?.coversShared(carried))) return 'nothing-to-do';
  if (!(await responsible(deps, item))) return 'not-responsible';
  if (!(await needsLock(deps, item))) return 'nothing-to-do';
  // the in-flight count (monitoring only) is entered while the lock is taken, not before it
  const entered = deps.inFlight?.();
  const after: Promise<unknown>[] = [];
  try {
    return await takeJob(deps, ref, item, after);
  } finally {
    await Promise.all([...after, entered?.then((done) => done())]);
  }
}
