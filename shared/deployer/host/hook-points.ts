/**
 * The extension hook points of the deployer host (seed 002): running a hook type, aborting the
 * step when the aggregated result says so, requeueing as asked, and the deployer's own
 * responsibility check with its DuringResponsibilityCheck / AfterResponsibilityCheck hooks.
 */
import type { DeployItem, Target } from '../../api/landscaper.js';
import { responsibleAfterHooks, runHooks, type HookResult, type HookType } from '../index.js';
import type { ItemRef, RuntimeDeps } from './deps.js';

export async function hook(
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
export async function gate(
  deps: RuntimeDeps,
  type: HookType,
  item?: DeployItem,
  target?: Target,
): Promise<void> {
  const result = await hook(deps, type, item, target);
  if (!result?.abortReconcile) return;
  const after = result.requeue || result.requeueAfterMs > 0 ? result.requeueAfterMs : undefined;
  throw new HookAbort(type, after);
}

/**
 * The deployer's own responsibility check (the type; the Target and selectors were checked by
 * the responsibility-check function): DuringResponsibilityCheck hooks may override it, then
 * AfterResponsibilityCheck hooks run (their abort ends the step).
 */
export async function responsible(deps: RuntimeDeps, item: DeployItem): Promise<boolean> {
  const during = await hook(deps, 'DuringResponsibilityCheck', item);
  if (!responsibleAfterHooks(item.spec.type === deps.plugin.type, during)) return false;
  const after = await hook(deps, 'AfterResponsibilityCheck', item);
  return !after?.abortReconcile;
}

/** A hook result's requeue, when it asks for one. */
export async function requeueFor(
  deps: RuntimeDeps,
  ref: ItemRef,
  result: HookResult | undefined,
): Promise<void> {
  if (result && (result.requeue || result.requeueAfterMs > 0)) await deps.requeue(ref, result.requeueAfterMs);
}

/** Start hooks: false when they abort the reconcile. */
export async function started(deps: RuntimeDeps): Promise<boolean> {
  try {
    await gate(deps, 'Start');
    return true;
  } catch (err) {
    if (err instanceof HookAbort) return false;
    throw err;
  }
}
