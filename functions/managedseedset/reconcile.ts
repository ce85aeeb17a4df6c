/**
 * One pass over one ManagedSeedSet (DESIGN "Requeue, never wait"): under a short per-set lease in
 * Redis (a pass that finds it held asks to be requeued after `lockRetryDelay` and returns), read
 * the set and its replicas (./io.ts), run decideManagedSeedSet, carry out its actions in order,
 * write its status (status subresource, optimistic on the resourceVersion read; `status.replicas`
 * is what the set's scale subresource reports), record its Events and requeue the set: after
 * `syncPeriod`, or `errorRequeueDelay` after an error ("no deletable replicas found", a failed
 * write). A Conflict means someone else changed the set: look again after `lockRetryDelay`.
 */
import { isDeepStrictEqual } from 'node:util';
import { GVK } from '../../shared/api/gvk.js';
import { acquireLease, keyspace, releaseLease, type Redis } from '../../shared/redis/index.js';
import { isConflict, isNotFound } from '../../shared/kube/index.js';
import { cancel, requeue } from '../../shared/requeue/index.js';
import { GARDENER_FINALIZER } from '../../shared/seedmanagement/managedseed.js';
import {
  decideManagedSeedSet,
  type ManagedSeedSetDecision,
  type ObservedManagedSeedSet,
  type ReplicaStep,
  type SetOutcome,
} from './managedseedset.js';
import { FUNCTION_NAME, type ManagedSeedSetConfig } from './config.js';
import { observeSet, recordEvents, runAction, type IoDeps } from './io.js';

export const LOCKS = keyspace(FUNCTION_NAME);
/** How long a pass may hold its set; a crashed pass frees the set after this. */
export const LEASE_MS = 60_000;

export interface SetDeps extends IoDeps {
  redis: () => Promise<Redis>;
  /** This instance's id (the lease holder is `<owner>/<random>` per pass). */
  owner: string;
}

export interface SetRef {
  namespace: string;
  name: string;
}

export interface PassOptions {
  /** Skip a set whose generation was handled already (its own status writes, metadata changes). */
  onlyOnChange?: boolean;
}

export type PassOutcome = SetOutcome | 'not-found' | 'unchanged' | 'locked' | 'conflict' | 'failed';

export interface PassResult {
  set: SetRef;
  outcome: PassOutcome;
  replica?: { name: string; step: ReplicaStep };
  actions: string[];
  requeueAfterMs?: number;
  error?: string;
}

export async function requeueSet(deps: SetDeps, ref: SetRef, afterMs: number): Promise<void> {
  const at = new Date(deps.now().getTime() + Math.max(0, afterMs));
  await requeue(await deps.redis(), { target: FUNCTION_NAME, kind: 'ManagedSeedSet', ...ref, at });
}

/** Its current generation handled, finalizer in place, not being deleted. */
function unchanged(set: ObservedManagedSeedSet): boolean {
  const meta = set.metadata ?? {};
  return (
    !meta.deletionTimestamp &&
    (meta.finalizers ?? []).includes(GARDENER_FINALIZER) &&
    set.status?.observedGeneration === meta.generation
  );
}

async function readSet(deps: SetDeps, ref: SetRef): Promise<ObservedManagedSeedSet | undefined> {
  try {
    return await deps.client.get<ObservedManagedSeedSet>(GVK.ManagedSeedSet, ref.namespace, ref.name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The actions in order, then the status when it changed. */
async function carryOut(
  deps: SetDeps,
  set: ObservedManagedSeedSet,
  d: ManagedSeedSetDecision,
): Promise<void> {
  let current = set;
  for (const action of d.actions) current = (await runAction(deps, current, action)) ?? current;
  if (!d.status || isDeepStrictEqual(d.status, set.status)) return;
  await deps.client.replaceStatus(GVK.ManagedSeedSet, { ...current, status: d.status });
}

function summary(ref: SetRef, d: ManagedSeedSetDecision, requeueAfterMs?: number): PassResult {
  return {
    set: ref,
    outcome: d.outcome,
    ...(d.replica ? { replica: d.replica } : {}),
    actions: d.actions.map((a) => a.op),
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
    ...(d.error ? { error: d.error } : {}),
  };
}

async function failed(
  deps: SetDeps,
  ref: SetRef,
  outcome: 'conflict' | 'failed',
  afterMs: number,
  err: unknown,
): Promise<PassResult> {
  const level = outcome === 'conflict' ? 'info' : 'error';
  deps.log[level](outcome === 'conflict' ? 'set changed meanwhile; looking again' : 'pass failed', {
    managedSeedSet: `${ref.namespace}/${ref.name}`,
    error: String(err),
  });
  await requeueSet(deps, ref, afterMs);
  return { set: ref, outcome, actions: [], requeueAfterMs: afterMs, error: String(err) };
}

async function pass(
  deps: SetDeps,
  config: ManagedSeedSetConfig,
  ref: SetRef,
  opts: PassOptions,
): Promise<PassResult> {
  const set = await readSet(deps, ref);
  if (!set) {
    await cancel(await deps.redis(), FUNCTION_NAME, { kind: 'ManagedSeedSet', ...ref });
    return { set: ref, outcome: 'not-found', actions: [] };
  }
  if (opts.onlyOnChange && unchanged(set)) return { set: ref, outcome: 'unchanged', actions: [] };
  let d: ManagedSeedSetDecision;
  try {
    const observed = await observeSet(deps.client, set);
    d = decideManagedSeedSet(
      { set, ...observed, now: deps.now() },
      { maxShootRetries: config.maxShootRetries, syncPeriodMs: config.syncPeriod },
    );
    await carryOut(deps, set, d);
  } catch (err) {
    if (isConflict(err)) return failed(deps, ref, 'conflict', config.lockRetryDelay, err);
    return failed(deps, ref, 'failed', config.errorRequeueDelay, err);
  }
  await recordEvents(deps, set, d.events, FUNCTION_NAME);
  const after = d.requeueAfterMs ?? (d.error ? config.errorRequeueDelay : undefined);
  if (after !== undefined) await requeueSet(deps, ref, after);
  const result = summary(ref, d, after);
  deps.log.info('ManagedSeedSet reconciled', { managedSeedSet: `${ref.namespace}/${ref.name}`, ...result });
  return result;
}

/** One pass over the set, unless another pass holds it (then it is requeued). */
export async function reconcileSet(
  deps: SetDeps,
  config: ManagedSeedSetConfig,
  ref: SetRef,
  opts: PassOptions = {},
): Promise<PassResult> {
  const redis = await deps.redis();
  const key = LOCKS.key('lease', ref.namespace, ref.name);
  const holder = `${deps.owner}/${deps.newId()}`;
  if (!(await acquireLease(redis, key, holder, LEASE_MS))) {
    await requeueSet(deps, ref, config.lockRetryDelay);
    return { set: ref, outcome: 'locked', actions: [], requeueAfterMs: config.lockRetryDelay };
  }
  try {
    return await pass(deps, config, ref, opts);
  } finally {
    await releaseLease(redis, key, holder);
  }
}
