/**
 * One pass over a ManagedSeed (the I/O around shared/seedmanagement/managedseed.ts): read the
 * ManagedSeed, its Shoot, its Seed and — when the Seed is to be deleted — the Shoots that may
 * still use it; decide; carry out the actions in order (finalizer by an optimistic patch retried
 * on conflict, the Seed created or JSON-patched, the Seed deleted); write `status` through the
 * status subresource when it changed; record the Events; and requeue when the decision (or the
 * error backoff of ./pass.ts) says so. Never waits: the Seed's deletion is looked at again on its
 * events and on the requeue, and the finalizer goes only on a pass that finds the Seed gone.
 */
import pLimit from 'p-limit';
import type { Seed, Shoot } from '../../shared/api/core.js';
import { GVK } from '../../shared/api/gvk.js';
import { SEEDMANAGEMENT_API_VERSION, type ManagedSeed } from '../../shared/api/seedmanagement.js';
import { isAlreadyExists, isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import {
  decideManagedSeed,
  type ManagedSeedAction,
  type ManagedSeedDecision,
  type ManagedSeedInput,
  type ManagedSeedOutcome,
} from '../../shared/seedmanagement/managedseed.js';
import type { ManagedSeedConfig } from './config.js';
import { recordEvent } from '../../shared/kube/events.js';
import { getOptional, listAll, setFinalizer } from '../../shared/kube/io.js';
import { errorRequeueMs, seedPatch, statusChanged } from './pass.js';

/** The component of the Events (upstream's recorder name). */
export const EVENT_COMPONENT = 'managedseed-controller';

export interface ManagedSeedRef {
  namespace: string;
  name: string;
}

export interface ManagedSeedDeps {
  client: KubeClient;
  /** Look at the ManagedSeed again after `afterMs` (the requeue primitive). */
  requeue(ref: ManagedSeedRef, afterMs: number): Promise<void>;
  now: () => Date;
  log: Logger;
}

/** What a pass did: the decision's outcome, `gone` (no such ManagedSeed) or `ignored` (not ours). */
export type PassOutcome = ManagedSeedOutcome | 'gone' | 'ignored';

function needsSeedUsers(ms: ManagedSeed, seed: Seed | undefined): boolean {
  return Boolean(ms.metadata?.deletionTimestamp) && seed !== undefined && !seed.metadata?.deletionTimestamp;
}

async function observe(
  deps: ManagedSeedDeps,
  ms: ManagedSeed,
): Promise<Omit<ManagedSeedInput, 'managedSeed' | 'now'>> {
  const shootName = ms.spec?.shoot?.name;
  const namespace = ms.metadata?.namespace ?? '';
  const [shoot, seed] = await Promise.all([
    shootName ? getOptional<Shoot>(deps.client, GVK.Shoot, namespace, shootName) : undefined,
    getOptional<Seed>(deps.client, GVK.Seed, undefined, ms.metadata?.name ?? ''),
  ]);
  const shootsUsingSeed = needsSeedUsers(ms, seed) ? await listAll<Shoot>(deps.client, GVK.Shoot) : undefined;
  return { shoot, seed, shootsUsingSeed };
}

/** Creates the Seed, or patches the observed one into the desired one. */
async function applySeed(deps: ManagedSeedDeps, observed: Seed | undefined, desired: Seed): Promise<void> {
  const name = desired.metadata?.name ?? '';
  if (observed) {
    await deps.client.jsonPatch(GVK.Seed, { name }, seedPatch(observed, desired));
    return;
  }
  try {
    await deps.client.create(GVK.Seed, desired);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    // created meanwhile (another replica): patch what is there now
    const now = await deps.client.get<Seed>(GVK.Seed, undefined, name);
    await deps.client.jsonPatch(GVK.Seed, { name }, seedPatch(now, desired));
  }
}

async function deleteSeed(deps: ManagedSeedDeps, name: string): Promise<void> {
  try {
    await deps.client.delete(GVK.Seed, { name });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

async function runAction(
  deps: ManagedSeedDeps,
  ref: ManagedSeedRef,
  observedSeed: Seed | undefined,
  action: ManagedSeedAction,
): Promise<void> {
  switch (action.op) {
    case 'add-finalizer':
    case 'remove-finalizer':
      await setFinalizer(deps.client, GVK.ManagedSeed, ref, action.finalizer, action.op === 'add-finalizer');
      return;
    case 'apply-seed':
      return applySeed(deps, observedSeed, action.seed);
    case 'delete-seed':
      return deleteSeed(deps, action.name);
  }
}

async function writeStatus(
  deps: ManagedSeedDeps,
  ms: ManagedSeed,
  decision: ManagedSeedDecision,
): Promise<void> {
  if (!decision.status || !statusChanged(ms.status, decision.status)) return;
  const ref = { namespace: ms.metadata?.namespace ?? '', name: ms.metadata?.name ?? '' };
  await deps.client.patchStatus(GVK.ManagedSeed, ref, { status: decision.status });
}

async function recordEvents(
  deps: ManagedSeedDeps,
  ms: ManagedSeed,
  decision: ManagedSeedDecision,
  now: Date,
): Promise<void> {
  const involved = {
    apiVersion: SEEDMANAGEMENT_API_VERSION,
    kind: 'ManagedSeed',
    namespace: ms.metadata?.namespace ?? '',
    name: ms.metadata?.name ?? '',
    uid: ms.metadata?.uid,
  };
  for (const event of decision.events) {
    await recordEvent(deps.client, involved, event, { component: EVENT_COMPONENT, now, log: deps.log });
  }
}

function requeueAfter(
  ms: ManagedSeed,
  decision: ManagedSeedDecision,
  now: Date,
  config: ManagedSeedConfig,
): number | undefined {
  if (decision.requeueAfterMs !== undefined) return decision.requeueAfterMs;
  return decision.error !== undefined
    ? errorRequeueMs(ms.status, decision, now, config.errorBackoff)
    : undefined;
}

/** One pass over the ManagedSeed `ref`. */
export async function reconcileManagedSeed(
  deps: ManagedSeedDeps,
  config: ManagedSeedConfig,
  ref: ManagedSeedRef,
): Promise<PassOutcome> {
  if (ref.namespace !== config.namespace) return 'ignored';
  const ms = await getOptional<ManagedSeed>(deps.client, GVK.ManagedSeed, ref.namespace, ref.name);
  if (!ms) return 'gone';
  const observed = await observe(deps, ms);
  const now = deps.now();
  const decision = decideManagedSeed(
    { managedSeed: ms, ...observed, now },
    { waitSyncPeriodMs: config.waitSyncPeriod, syncPeriodMs: config.syncPeriod },
  );
  for (const action of decision.actions) await runAction(deps, ref, observed.seed, action);
  await writeStatus(deps, ms, decision);
  await recordEvents(deps, ms, decision, now);
  const after = requeueAfter(ms, decision, now, config);
  if (after !== undefined) await deps.requeue(ref, after);
  const level = decision.error !== undefined ? 'warn' : 'debug';
  deps.log[level]('managed seed reconciled', {
    namespace: ref.namespace,
    name: ref.name,
    outcome: decision.outcome,
    ...(decision.error !== undefined ? { error: decision.error } : {}),
    ...(after !== undefined ? { requeueAfterMs: after } : {}),
  });
  return decision.outcome;
}

/** Passes over several ManagedSeeds of the configured namespace, `config.concurrency` at a time. */
export async function reconcileMany(
  deps: ManagedSeedDeps,
  config: ManagedSeedConfig,
  names: readonly string[],
): Promise<PassOutcome[]> {
  const limit = pLimit(config.concurrency);
  return Promise.all(
    names.map((name) =>
      limit(() => reconcileManagedSeed(deps, config, { namespace: config.namespace, name })),
    ),
  );
}
