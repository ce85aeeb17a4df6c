/**
 * The responsibility check of one DeployItem for every configured deployer: a metadata-only read
 * (the cost does not grow with the item), a full read only when the `deployer-type` /
 * `deployer-target-name` annotations are missing, the type check, then the Target (read at most
 * once) and the target selectors. For each responsible deployer one
 * `dev.landscape.deployitem.reconcile` event (`deployertype`, `namespace`, `name`, `uid`). Nothing
 * is ever written to the item.
 */
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem, Target } from '../../shared/api/landscaper.js';
import type { ObjectMeta } from '@landscape/apimachinery';
import {
  decideResponsibility,
  responsibilityKeysFromMetadata,
  responsibilityKeysFromSpec,
  type ResponsibilityKeys,
} from '../../shared/deployer/index.js';
import { buildEvent, EventTypes, type Event } from '../../shared/events/index.js';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { forEachDeployItem } from '../../shared/deployer/items.js';
import type { CheckConfig, DeployerEntry } from './config.js';

export interface CheckDeps {
  client: KubeClient;
  send(event: Event): Promise<void>;
  newId: () => string;
  now: () => Date;
  log: Logger;
}

interface Item {
  namespace: string;
  name: string;
  uid: string;
  keys: ResponsibilityKeys;
}

/** Metadata first; the full item only when the annotations are missing. Undefined: gone. */
async function readItem(
  client: KubeClient,
  ref: { namespace: string; name: string },
): Promise<Item | undefined> {
  let meta: ObjectMeta;
  try {
    meta = (await client.getMetadata(GVK.DeployItem, ref.namespace, ref.name)).metadata;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  return itemFromMetadata(client, ref, meta);
}

/** The item from metadata already read (a get, or a resync's list); the full item only when the annotations are missing. */
async function itemFromMetadata(
  client: KubeClient,
  ref: { namespace: string; name: string },
  meta: ObjectMeta,
): Promise<Item | undefined> {
  let keys = responsibilityKeysFromMetadata(meta);
  if (!keys) {
    try {
      keys = responsibilityKeysFromSpec(
        await client.get<DeployItem>(GVK.DeployItem, ref.namespace, ref.name),
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
  return { ...ref, uid: meta.uid ?? '', keys };
}

async function readTarget(client: KubeClient, namespace: string, name: string): Promise<Target | 'NotFound'> {
  try {
    return await client.get<Target>(GVK.Target, namespace, name);
  } catch (err) {
    if (isNotFound(err)) return 'NotFound';
    throw err;
  }
}

async function responsible(
  deps: CheckDeps,
  item: Item,
  deployer: DeployerEntry,
  targets: TargetCache,
): Promise<boolean> {
  let decision = decideResponsibility({
    keys: item.keys,
    deployerType: deployer.type,
    selectors: deployer.targetSelectors,
  });
  if (decision.kind === 'FetchTarget') {
    const name = decision.name;
    const key = `${item.namespace}/${name}`;
    if (!targets.has(key)) targets.set(key, readTarget(deps.client, item.namespace, name));
    const target = await targets.get(key)!;
    decision = decideResponsibility({
      keys: item.keys,
      deployerType: deployer.type,
      selectors: deployer.targetSelectors,
      target,
    });
  }
  return decision.kind === 'Responsible';
}

function reconcileEvent(deps: CheckDeps, config: CheckConfig, item: Item, deployer: DeployerEntry): Event {
  return buildEvent({
    id: deps.newId(),
    type: EventTypes.deployItemReconcile,
    source: config.source,
    time: deps.now().toISOString(),
    subject: `${item.namespace}/${item.name}`,
    deployertype: deployer.name,
    namespace: item.namespace,
    name: item.name,
    uid: item.uid,
  });
}

/** Checks one item; returns the names of the deployers it was sent to. */
export async function checkItem(
  deps: CheckDeps,
  config: CheckConfig,
  ref: { namespace: string; name: string },
): Promise<string[]> {
  return decideAndSend(deps, config, await readItem(deps.client, ref), new Map());
}

/** Targets read during one resync pass, by `namespace/name` (each read once per pass). */
export type TargetCache = Map<string, Promise<Target | 'NotFound'>>;

/**
 * Checks one item of a resync's metadata-only list from the listed metadata (no read of its own
 * unless the annotations are missing); `targets` is shared by the whole pass.
 */
export async function checkListedItem(
  deps: CheckDeps,
  config: CheckConfig,
  listed: { namespace: string; name: string; metadata: ObjectMeta },
  targets: TargetCache,
): Promise<string[]> {
  const item = await itemFromMetadata(deps.client, listed, listed.metadata);
  return decideAndSend(deps, config, item, targets);
}

async function decideAndSend(
  deps: CheckDeps,
  config: CheckConfig,
  item: Item | undefined,
  targets: TargetCache,
): Promise<string[]> {
  if (!item) return [];
  const sent: string[] = [];
  for (const deployer of config.deployers) {
    if (!(await responsible(deps, item, deployer, targets))) continue;
    await deps.send(reconcileEvent(deps, config, item, deployer));
    sent.push(deployer.name);
  }
  return sent;
}

/**
 * One resync pass (the ping of the deployers' resync PingSource): every DeployItem from
 * metadata-only pages (shared/deployer/items.ts), decided from the listed annotations,
 * each Target read once; resolves with how many items were looked at.
 */
export function resyncAll(deps: CheckDeps, config: CheckConfig, concurrency = 8): Promise<number> {
  const targets: TargetCache = new Map();
  return forEachDeployItem(
    deps.client,
    (_ref, listed) => checkListedItem(deps, config, listed, targets),
    concurrency,
  );
}
