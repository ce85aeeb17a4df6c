/**
 * Which ManagedSeedSets an event is about (upstream's watches with their owner mappings):
 *
 * - `dev.landscape.requeue` for this function: the set it names;
 * - a resync (the ping of the seed-management resync PingSource): every set (each is requeued,
 *   so each gets its own invocation);
 * - API-server events (Reference mode) of a ManagedSeedSet: the set itself; an update only counts
 *   when its generation is not handled yet (its own status writes come back as updates);
 * - of a Shoot or ManagedSeed: the set of its controller owner reference; when the object is gone
 *   (a delete event) the set its `<set>-<ordinal>` name names;
 * - of a Seed: the set owning the ManagedSeed of the same name in the garden namespace.
 */
import { GVK, type GroupVersionKind } from '../../shared/api/gvk.js';
import { MANAGED_SEED_NAMESPACE, SEEDMANAGEMENT_GROUP } from '../../shared/api/seedmanagement.js';
import { EventTypes } from '../../shared/events/index.js';
import { isResyncEvent } from '../../shared/function/event-attrs.js';
import { eventObjectRef, eventType } from '../../shared/function/index.js';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import { replicaOrdinal } from './managedseedset-replica.js';
import { FUNCTION_NAME } from './config.js';
import type { PassOptions, SetRef } from './reconcile.js';

export type Route =
  { kind: 'sets'; sets: (SetRef & PassOptions)[] } | { kind: 'resync' } | { kind: 'ignore'; why: string };

interface Parsed {
  type: string;
  kind: string;
  namespace: string;
  name: string;
  target: string;
}

function stringAttr(...sources: Record<string, unknown>[]): (key: string) => string {
  return (key) => {
    const found = sources.map((s) => s[key]).find((v): v is string => typeof v === 'string');
    return found ?? '';
  };
}

function parse(ce: unknown): Parsed {
  const e = (typeof ce === 'object' && ce !== null ? ce : {}) as Record<string, unknown>;
  const data = (typeof e.data === 'object' && e.data !== null ? e.data : {}) as Record<string, unknown>;
  const kind = stringAttr(e, data)('kind');
  const ref = eventObjectRef(ce, { kind });
  return {
    type: eventType(ce),
    kind,
    namespace: ref?.namespace ?? '',
    name: ref?.name ?? '',
    target: stringAttr(e)('target'),
  };
}

const ignore = (why: string): Route => ({ kind: 'ignore', why });
const sets = (...refs: (SetRef & PassOptions)[]): Route => ({ kind: 'sets', sets: refs });

/** The set named by a replica's name (`<set>-<ordinal>`), if the name is one. */
export function setOfReplicaName(namespace: string, name: string): SetRef | undefined {
  if (replicaOrdinal(name) < 0) return undefined;
  const set = name.slice(0, name.lastIndexOf('-'));
  return set === '' ? undefined : { namespace, name: set };
}

/** The ManagedSeedSet controlling an object, from its metadata; undefined when it is gone. */
async function controller(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace: string,
  name: string,
): Promise<SetRef | null | undefined> {
  try {
    const meta = await client.getMetadata(gvk, namespace, name);
    const owner = (meta.metadata.ownerReferences ?? []).find(
      (o) =>
        o.controller === true &&
        o.kind === 'ManagedSeedSet' &&
        o.apiVersion.startsWith(`${SEEDMANAGEMENT_GROUP}/`),
    );
    return owner ? { namespace, name: owner.name } : null;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function replicaRoute(client: KubeClient, gvk: GroupVersionKind, p: Parsed): Promise<Route> {
  const owner = p.type.endsWith('.delete') ? undefined : await controller(client, gvk, p.namespace, p.name);
  if (owner === null) return ignore(`${p.kind} not controlled by a ManagedSeedSet`);
  const set = owner ?? setOfReplicaName(p.namespace, p.name);
  return set ? sets(set) : ignore(`${p.kind} not named as a replica`);
}

async function seedRoute(client: KubeClient, p: Parsed): Promise<Route> {
  const owner = await controller(client, GVK.ManagedSeed, MANAGED_SEED_NAMESPACE, p.name);
  return owner ? sets(owner) : ignore('Seed of no ManagedSeedSet replica');
}

function setRoute(p: Parsed): Route {
  if (p.type.endsWith('.delete')) return ignore('ManagedSeedSet deleted');
  const ref = { namespace: p.namespace, name: p.name };
  return sets(p.type.endsWith('.update') ? { ...ref, onlyOnChange: true } : ref);
}

async function apiServerRoute(client: KubeClient, p: Parsed): Promise<Route> {
  switch (p.kind) {
    case 'ManagedSeedSet':
      return setRoute(p);
    case 'Shoot':
      return replicaRoute(client, GVK.Shoot, p);
    case 'ManagedSeed':
      return replicaRoute(client, GVK.ManagedSeed, p);
    case 'Seed':
      return seedRoute(client, p);
    default:
      return ignore(`kind ${JSON.stringify(p.kind)} is not watched`);
  }
}

/** Where an event leads. */
export async function routeEvent(client: KubeClient, ce: unknown): Promise<Route> {
  if (isResyncEvent(ce)) return { kind: 'resync' };
  const p = parse(ce);
  if (p.type === EventTypes.requeue) {
    if (p.target !== FUNCTION_NAME || p.kind !== 'ManagedSeedSet' || !p.name)
      return ignore('requeue for another function or kind');
    return sets({ namespace: p.namespace, name: p.name });
  }
  if (!p.type.startsWith('dev.knative.apiserver.')) return ignore(`type ${JSON.stringify(p.type)}`);
  if (!p.name) return ignore('event names no object');
  return apiServerRoute(client, p);
}
