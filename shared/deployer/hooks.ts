/**
 * Extension hooks (seed 002): functions that run at fixed points of a deployer's reconcile and
 * may abort it or ask for a requeue. Registry, execution and the aggregation of their results.
 *
 * Aggregation, exactly as seed 002: all results nil → nil; exactly one non-nil → a copy of it;
 * otherwise AbortReconcile is ORed (ANDed for DuringResponsibilityCheck and ShouldReconcile, where
 * `false` enforces continuation), Requeue is ORed, RequeueAfter is the smallest value greater than
 * zero, and Requeue true sets RequeueAfter to zero (immediate requeue). (Upstream code drops
 * Requeue in later versions; the seed wins.)
 */
import { isOneOf } from '@landscape/apimachinery';
import type { DeployItem, Target } from '../api/landscaper.js';
import type { Logger } from '../log/index.js';

export const HOOK_TYPES = [
  'Start',
  'DuringResponsibilityCheck',
  'AfterResponsibilityCheck',
  'ShouldReconcile',
  'BeforeAbort',
  'BeforeForceReconcile',
  'BeforeDelete',
  'BeforeReconcile',
  'BeforeAnyReconcile',
  'End',
] as const;
export type HookType = (typeof HOOK_TYPES)[number];
export const isHookType: (value: unknown) => value is HookType = isOneOf(HOOK_TYPES);

/** Hook types whose AbortReconcile values are ANDed: `false` enforces continuation. */
export const INVERTED_ABORT_HOOK_TYPES: readonly HookType[] = [
  'DuringResponsibilityCheck',
  'ShouldReconcile',
];

export interface HookResult {
  /** Abort the reconcile after this hook point (see the hook type for what that means). */
  abortReconcile: boolean;
  /** Requeue the item immediately. */
  requeue: boolean;
  /** Requeue the item after this many ms (0: not). */
  requeueAfterMs: number;
}

export interface HookInput {
  /** Undefined for Start hooks (they run before the item is read). */
  item?: DeployItem;
  /** The item's Target, when it names one that exists; undefined for Start hooks. */
  target?: Target;
  now: Date;
  log?: Logger;
}

/** A hook: undefined means "no opinion" (nil). May be async; a thrown error aborts the reconcile. */
export type ReconcileHook = (
  input: HookInput,
  type: HookType,
) => HookResult | undefined | Promise<HookResult | undefined>;

/** Hooks per type, in registration order. */
export type ReconcileHooks = Readonly<Partial<Record<HookType, readonly ReconcileHook[]>>>;

/** A hook with the hook types it was written for. */
export interface HookSetup {
  hook: ReconcileHook;
  types: readonly HookType[];
}

/** A hook threw: which one, at which hook point; `cause` is the hook's error. */
export class HookError extends Error {
  override readonly name = 'HookError';
  constructor(
    readonly type: HookType,
    readonly index: number,
    cause: unknown,
  ) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`error executing reconciliation extension hook ${index} of type "${type}": ${message}`, { cause });
  }
}

/** New hooks with `hook` appended for every given type (none given: unchanged). Input not mutated. */
export function registerHook(
  hooks: ReconcileHooks,
  hook: ReconcileHook,
  ...types: HookType[]
): ReconcileHooks {
  const next: Partial<Record<HookType, readonly ReconcileHook[]>> = { ...hooks };
  for (const type of types) next[type] = [...(next[type] ?? []), hook];
  return next;
}

/** registerHook with a HookSetup. */
export function registerHookSetup(hooks: ReconcileHooks, setup: HookSetup): ReconcileHooks {
  return registerHook(hooks, setup.hook, ...setup.types);
}

function combine(results: readonly HookResult[], andAbort: boolean): HookResult {
  const abortReconcile = andAbort
    ? results.every((r) => r.abortReconcile)
    : results.some((r) => r.abortReconcile);
  const requeue = results.some((r) => r.requeue);
  const positive = results.map((r) => r.requeueAfterMs).filter((ms) => ms > 0);
  const requeueAfterMs = requeue || positive.length === 0 ? 0 : Math.min(...positive);
  return { abortReconcile, requeue, requeueAfterMs };
}

function aggregate(results: readonly (HookResult | undefined)[], andAbort: boolean): HookResult | undefined {
  const present = results.filter((r): r is HookResult => r !== undefined && r !== null);
  if (present.length === 0) return undefined;
  if (present.length === 1) return { ...present[0] };
  return combine(present, andAbort);
}

/** Aggregate the results of the hooks of one type (seed 002 rules; AND of abort for the two special types). */
export function aggregateHookResults(
  type: HookType,
  results: readonly (HookResult | undefined)[],
): HookResult | undefined {
  return aggregate(results, INVERTED_ABORT_HOOK_TYPES.includes(type));
}

/**
 * Fold the result of one hook point into the reconcile's running result (upstream aggregates the
 * running result with ORed abort at every hook point).
 */
export function mergeHookResults(
  current: HookResult | undefined,
  next: HookResult | undefined,
): HookResult | undefined {
  return aggregate([current, next], false);
}

/**
 * Run the hooks of one type in registration order (each awaited before the next) and aggregate
 * their results; undefined when there are none or all are nil. The first error stops the run and
 * propagates as a HookError.
 */
export async function runHooks(
  hooks: ReconcileHooks,
  type: HookType,
  input: HookInput,
): Promise<HookResult | undefined> {
  if (!isHookType(type)) throw new TypeError(`unknown hook type ${JSON.stringify(type)}`);
  const results: (HookResult | undefined)[] = [];
  const list = hooks[type] ?? [];
  for (const [index, hook] of list.entries()) {
    try {
      results.push(await hook(input, type));
    } catch (err) {
      throw new HookError(type, index, err);
    }
  }
  return aggregateHookResults(type, results);
}

/**
 * DuringResponsibilityCheck: a non-nil result overrides the check (abort false → responsible,
 * true → not responsible).
 */
export function responsibleAfterHooks(responsible: boolean, result: HookResult | undefined): boolean {
  return result ? !result.abortReconcile : responsible;
}

/**
 * ShouldReconcile: when the default logic wants a reconcile it cannot be stopped; otherwise a
 * non-nil result with abort false enforces one.
 */
export function shouldReconcileAfterHooks(byDefault: boolean, result: HookResult | undefined): boolean {
  return byDefault || (result !== undefined && !result.abortReconcile);
}
