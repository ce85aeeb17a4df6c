/**
 * The I/O around ./decide.ts: read an object's metadata (and, only when it matters, the shoots
 * or ManagedSeeds that decide), add or remove the finalizer, and — while a deletion is blocked —
 * record the Warning Event (aggregated) and requeue a look after `recheckInterval`. Besides the
 * object's own events, what frees it triggers a look: a Shoot event re-checks every deleting Seed,
 * a ManagedSeed event every protected Shoot of its namespace.
 */
import pLimit from 'p-limit';
import type { Shoot } from '../../shared/api/core.js';
import { GARDENER_CORE_API_VERSION } from '../../shared/api/core.js';
import { GVK } from '../../shared/api/gvk.js';
import type { PartialObjectMetadata } from '@landscape/apimachinery';
import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import type { KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { recordEvent } from '../../shared/kube/events.js';
import { getMetadataOptional, listAll, listAllMetadata, setFinalizer } from '../../shared/kube/io.js';
import type { ProtectionConfig } from './config.js';
import {
  decideSeedProtection,
  decideShootProtection,
  DELETION_BLOCKED_REASON,
  PROTECTION_FINALIZER,
  seedNeedsShoots,
  type ProtectionDecision,
} from './decide.js';

export const EVENT_COMPONENT = 'deletion-protection';

export type ProtectedKind = 'Seed' | 'Shoot';

export interface ProtectedRef {
  kind: ProtectedKind;
  /** '' for Seeds. */
  namespace: string;
  name: string;
}

export interface ProtectionDeps {
  client: KubeClient;
  /** Look at the object again after `afterMs` (the requeue primitive). */
  requeue(ref: ProtectedRef, afterMs: number): Promise<void>;
  now: () => Date;
  log: Logger;
}

export interface ProtectionResult extends ProtectedRef {
  op: ProtectionDecision['op'] | 'gone';
}

/** A value read at most once (the shoots for several Seeds, the ManagedSeeds for several Shoots). */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= read());
}

async function carryOut(
  deps: ProtectionDeps,
  config: ProtectionConfig,
  ref: ProtectedRef,
  meta: PartialObjectMetadata,
  decision: ProtectionDecision,
): Promise<ProtectionResult> {
  const gvk = ref.kind === 'Seed' ? GVK.Seed : GVK.Shoot;
  if (decision.op === 'add-finalizer' || decision.op === 'remove-finalizer') {
    await setFinalizer(deps.client, gvk, ref, PROTECTION_FINALIZER, decision.op === 'add-finalizer');
    deps.log.info(decision.op === 'add-finalizer' ? 'protected' : 'released', { ...ref });
  }
  if (decision.op === 'keep') {
    const involved = {
      apiVersion: GARDENER_CORE_API_VERSION,
      kind: ref.kind,
      name: ref.name,
      namespace: ref.namespace,
      uid: meta.metadata.uid,
    };
    const event = { type: 'Warning' as const, reason: DELETION_BLOCKED_REASON, message: decision.message };
    await recordEvent(deps.client, involved, event, {
      component: EVENT_COMPONENT,
      now: deps.now(),
      log: deps.log,
    });
    await deps.requeue(ref, config.recheckInterval);
    deps.log.info('deletion blocked', { ...ref, message: decision.message });
  }
  return { ...ref, op: decision.op };
}

/** Every Shoot of every namespace (what a Seed check reads). */
export function allShoots(deps: ProtectionDeps): () => Promise<Shoot[]> {
  return once(() => listAll<Shoot>(deps.client, GVK.Shoot));
}

/** The ManagedSeeds of one namespace, read once per namespace. */
export function managedSeedsByNamespace(deps: ProtectionDeps): (namespace: string) => Promise<ManagedSeed[]> {
  const cache = new Map<string, Promise<ManagedSeed[]>>();
  return (namespace) => {
    let list = cache.get(namespace);
    if (!list) {
      list = listAll<ManagedSeed>(deps.client, GVK.ManagedSeed, namespace);
      cache.set(namespace, list);
    }
    return list;
  };
}

/** One Seed: the finalizer while it lives, kept while deleting and used by a shoot. */
export async function protectSeed(
  deps: ProtectionDeps,
  config: ProtectionConfig,
  name: string,
  shoots: () => Promise<Shoot[]> = allShoots(deps),
  known?: PartialObjectMetadata,
): Promise<ProtectionResult> {
  const ref: ProtectedRef = { kind: 'Seed', namespace: '', name };
  const meta = known ?? (await getMetadataOptional(deps.client, GVK.Seed, undefined, name));
  if (!meta) return { ...ref, op: 'gone' };
  const users = seedNeedsShoots(meta) ? await shoots() : [];
  return carryOut(deps, config, ref, meta, decideSeedProtection(meta, users));
}

/** One Shoot: the finalizer while a ManagedSeed references it. */
export async function protectShoot(
  deps: ProtectionDeps,
  config: ProtectionConfig,
  ref: { namespace: string; name: string },
  managedSeeds: (namespace: string) => Promise<ManagedSeed[]> = managedSeedsByNamespace(deps),
  known?: PartialObjectMetadata,
): Promise<ProtectionResult> {
  const full: ProtectedRef = { kind: 'Shoot', namespace: ref.namespace, name: ref.name };
  const meta = known ?? (await getMetadataOptional(deps.client, GVK.Shoot, ref.namespace, ref.name));
  if (!meta) return { ...full, op: 'gone' };
  return carryOut(deps, config, full, meta, decideShootProtection(meta, await managedSeeds(ref.namespace)));
}

function protectSeeds(
  deps: ProtectionDeps,
  config: ProtectionConfig,
  seeds: readonly PartialObjectMetadata[],
): Promise<ProtectionResult[]> {
  const shoots = allShoots(deps);
  const limit = pLimit(config.concurrency);
  return Promise.all(
    seeds.map((m) => limit(() => protectSeed(deps, config, m.metadata.name ?? '', shoots, m))),
  );
}

/** Every deleting Seed that still has the finalizer, checked again (after a Shoot event). */
export async function recheckDeletingSeeds(
  deps: ProtectionDeps,
  config: ProtectionConfig,
): Promise<ProtectionResult[]> {
  return protectSeeds(deps, config, (await listAllMetadata(deps.client, GVK.Seed)).filter(seedNeedsShoots));
}

/**
 * The Shoots of a namespace that have the finalizer, plus `extra` (the Shoot a ManagedSeed names),
 * checked again (after a ManagedSeed event).
 */
export async function recheckShoots(
  deps: ProtectionDeps,
  config: ProtectionConfig,
  namespace: string,
  extra: readonly string[],
): Promise<ProtectionResult[]> {
  const holders = (await listAllMetadata(deps.client, GVK.Shoot, namespace))
    .filter((m) => (m.metadata.finalizers ?? []).includes(PROTECTION_FINALIZER))
    .map((m) => m.metadata.name ?? '');
  const names = [...new Set([...holders, ...extra])].filter((n) => n !== '').sort();
  const managedSeeds = managedSeedsByNamespace(deps);
  const limit = pLimit(config.concurrency);
  return Promise.all(
    names.map((name) => limit(() => protectShoot(deps, config, { namespace, name }, managedSeeds))),
  );
}

/** Every Seed (a resync). */
export async function sweepSeeds(
  deps: ProtectionDeps,
  config: ProtectionConfig,
): Promise<ProtectionResult[]> {
  return protectSeeds(deps, config, await listAllMetadata(deps.client, GVK.Seed));
}

/** Every Shoot of every namespace (a resync). */
export async function sweepShoots(
  deps: ProtectionDeps,
  config: ProtectionConfig,
): Promise<ProtectionResult[]> {
  const shoots = await listAllMetadata(deps.client, GVK.Shoot);
  const managedSeeds = managedSeedsByNamespace(deps);
  const limit = pLimit(config.concurrency);
  return Promise.all(
    shoots.map((m) =>
      limit(() =>
        protectShoot(
          deps,
          config,
          { namespace: m.metadata.namespace ?? '', name: m.metadata.name ?? '' },
          managedSeeds,
          m,
        ),
      ),
    ),
  );
}
