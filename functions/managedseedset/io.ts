/**
 * The ManagedSeedSet controller's reads and writes around ./managedseedset.ts:
 *
 * - observe: the Shoots and ManagedSeeds of the set's namespace matching its selector, the Seed of
 *   each ManagedSeed (by name: a Seed is named after its ManagedSeed), and — only when the set
 *   scales in, the one case the decision reads them — the shoots scheduled per seed of the set
 *   (every Shoot listed, `spec.seedName` counted; no Redis count of scheduled shoots exists yet);
 * - the decision's actions (creates tolerate AlreadyExists, deletes and patches NotFound, so a pass
 *   that runs twice does no harm; finalizer patches carry the resourceVersion read);
 * - core/v1 Events on the set, as upstream's event recorder writes them.
 */
import { GVK } from '../../shared/api/gvk.js';
import type { Seed, Shoot } from '../../shared/api/core.js';
import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import { newEventObject } from '../../shared/kube/events.js';
import { isAlreadyExists, isNotFound, type KubeClient } from '../../shared/kube/index.js';
import { getOptional, listAll } from '../../shared/kube/io.js';
import type { Logger } from '../../shared/log/index.js';
import { labelSelectorAsSelector } from '@landscape/apimachinery';
import type { ManagedSeedSetAction, ManagedSeedSetEvent, ObservedManagedSeedSet } from './managedseedset.js';

export interface IoDeps {
  client: KubeClient;
  now: () => Date;
  newId: () => string;
  log: Logger;
}

export interface ObservedReplicas {
  shoots: Shoot[];
  managedSeeds: ManagedSeed[];
  seeds: Seed[];
  scheduledShoots: Record<string, number>;
}

/** Shoots scheduled (`spec.seedName`) on each of `seeds`; seeds without shoots are absent. */
export async function scheduledShootsOn(
  client: KubeClient,
  seeds: ReadonlySet<string>,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  if (seeds.size === 0) return counts;
  for (const shoot of await listAll<Shoot>(client, GVK.Shoot)) {
    const seed = shoot.spec?.seedName;
    if (seed && seeds.has(seed)) counts[seed] = (counts[seed] ?? 0) + 1;
  }
  return counts;
}

function targetReplicas(set: ObservedManagedSeedSet): number {
  return set.metadata?.deletionTimestamp ? 0 : (set.spec.replicas ?? 1);
}

/** What the decision needs of the set's replicas. */
export async function observeSet(client: KubeClient, set: ObservedManagedSeedSet): Promise<ObservedReplicas> {
  const namespace = set.metadata?.namespace ?? '';
  const selector = labelSelectorAsSelector(set.spec.selector);
  if (!selector.ok) throw new Error(`invalid selector: ${selector.message}`);
  const [shoots, managedSeeds] = await Promise.all([
    listAll<Shoot>(client, GVK.Shoot, namespace, selector.text),
    listAll<ManagedSeed>(client, GVK.ManagedSeed, namespace, selector.text),
  ]);
  const names = managedSeeds.map((m) => m.metadata?.name ?? '').filter((n) => n !== '');
  const found = await Promise.all(names.map((n) => getOptional<Seed>(client, GVK.Seed, undefined, n)));
  const seeds = found.filter((s): s is Seed => s !== undefined);
  const scheduledShoots =
    shoots.length > targetReplicas(set)
      ? await scheduledShootsOn(client, new Set(seeds.map((s) => s.metadata?.name ?? '')))
      : {};
  return { shoots, managedSeeds, seeds, scheduledShoots };
}

function setRef(set: ObservedManagedSeedSet): { namespace: string; name: string } {
  return { namespace: set.metadata?.namespace ?? '', name: set.metadata?.name ?? '' };
}

async function tolerate(what: Promise<unknown>, ok: (err: unknown) => boolean): Promise<boolean> {
  try {
    await what;
    return true;
  } catch (err) {
    if (ok(err)) return false;
    throw err;
  }
}

async function patchFinalizers(
  client: KubeClient,
  set: ObservedManagedSeedSet,
  finalizers: string[],
): Promise<ObservedManagedSeedSet> {
  const patch = { metadata: { finalizers, resourceVersion: set.metadata?.resourceVersion } };
  return client.mergePatch<ObservedManagedSeedSet>(GVK.ManagedSeedSet, setRef(set), patch);
}

type Handlers = {
  [Op in ManagedSeedSetAction['op']]: (
    deps: IoDeps,
    set: ObservedManagedSeedSet,
    action: Extract<ManagedSeedSetAction, { op: Op }>,
  ) => Promise<ObservedManagedSeedSet | undefined>;
};

const HANDLERS: Handlers = {
  'add-finalizer': (deps, set, a) => {
    const finalizers = set.metadata?.finalizers ?? [];
    return patchFinalizers(deps.client, set, [...finalizers, a.finalizer]);
  },
  'remove-finalizer': async (deps, set, a) => {
    const finalizers = (set.metadata?.finalizers ?? []).filter((f) => f !== a.finalizer);
    await tolerate(patchFinalizers(deps.client, set, finalizers), isNotFound);
    return undefined;
  },
  'create-shoot': async (deps, _set, a) => {
    if (!(await tolerate(deps.client.create(GVK.Shoot, a.shoot), isAlreadyExists)))
      deps.log.info('Shoot exists already', { shoot: a.shoot.metadata?.name });
    return undefined;
  },
  'create-managed-seed': async (deps, _set, a) => {
    if (!(await tolerate(deps.client.create(GVK.ManagedSeed, a.managedSeed), isAlreadyExists)))
      deps.log.info('ManagedSeed exists already', { managedSeed: a.managedSeed.metadata?.name });
    return undefined;
  },
  'annotate-shoot': async (deps, _set, a) => {
    const patch = { metadata: { annotations: a.annotations } };
    await tolerate(
      deps.client.mergePatch(GVK.Shoot, { namespace: a.namespace, name: a.name }, patch),
      isNotFound,
    );
    return undefined;
  },
  'delete-shoot': async (deps, _set, a) => {
    const ref = { namespace: a.namespace, name: a.name };
    const patch = { metadata: { annotations: a.annotations } };
    if (await tolerate(deps.client.mergePatch(GVK.Shoot, ref, patch), isNotFound))
      await tolerate(deps.client.delete(GVK.Shoot, ref), isNotFound);
    return undefined;
  },
  'delete-managed-seed': async (deps, _set, a) => {
    await tolerate(deps.client.delete(GVK.ManagedSeed, { namespace: a.namespace, name: a.name }), isNotFound);
    return undefined;
  },
};

/** Carries out one action; the set as written when the action patched it. */
export function runAction(
  deps: IoDeps,
  set: ObservedManagedSeedSet,
  action: ManagedSeedSetAction,
): Promise<ObservedManagedSeedSet | undefined> {
  const handler = HANDLERS[action.op] as (
    deps: IoDeps,
    set: ObservedManagedSeedSet,
    action: ManagedSeedSetAction,
  ) => Promise<ObservedManagedSeedSet | undefined>;
  return handler(deps, set, action);
}

/** Records the decision's Events; a failure is logged, never fails the pass. */
export async function recordEvents(
  deps: IoDeps,
  set: ObservedManagedSeedSet,
  events: readonly ManagedSeedSetEvent[],
  component: string,
): Promise<void> {
  for (const event of events) {
    try {
      const opts = { component, now: deps.now(), newId: deps.newId };
      await deps.client.create(GVK.Event, newEventObject(GVK.ManagedSeedSet, set.metadata, event, opts));
    } catch (err) {
      deps.log.warn('cannot record Event', { reason: event.reason, error: String(err) });
    }
  }
}
