/**
 * The responsibility check of one DeployItem for every configured deployer: a metadata-only read
 * (the cost does not grow with the item), a full read only when the `deployer-type` /
 * `deployer-target-name` annotations are missing, the type check, then the Target (read at most
 * once) and the target selectors. For each responsible deployer one
 * `dev.landscape.deployitem.reconcile` event (`deployertype`, `namespace`, `name`, `uid`). Nothing
 * is ever written to the item.
 *
 * An event that carries the item (the source in Resource mode) is checked from that object without
 * a read (`checkEvent`), and its reconcile events carry the object on as their data, so that the
 * deployer decides whether it has work without a read either. Level-based on the carried object, it
 * sends nothing when the object shows nothing any deployer would do (no job and no operation
 * annotation: what the deployer itself would answer with "nothing to do"; a finished job, unless
 * the item wants a continuous reconcile or the deployer is configured `finishedJobs: always`), and
 * an open job already sent to a deployer is not sent again for the next events of that job with
 * the same spec generation (the deployer's finalizer, a label: the deployer that took the job
 * carries it on with its own requeues; a spec edit or a deletion is sent; ./sent.ts remembers,
 * shared by the instances through Redis where configured). Without an object (Reference mode), and
 * on a resync, every responsible deployer gets the event as before.
 */
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem, Target } from '../../shared/api/landscaper.js';
import type { ObjectMeta } from '@landscape/apimachinery';
import {
  decideResponsibility,
  continuousReconcileWanted,
  deployerWorkShown,
  responsibilityKeysFromMetadata,
  responsibilityKeysFromSpec,
  type ResponsibilityKeys,
} from '../../shared/deployer/index.js';
import { buildEvent, EventTypes, type Event } from '../../shared/events/index.js';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { forEachDeployItem } from '../../shared/deployer/items.js';
import type { CheckConfig, DeployerEntry } from './config.js';
import type { SentJobs } from './sent.js';

export interface CheckDeps {
  client: KubeClient;
  send(event: Event): Promise<void>;
  newId: () => string;
  now: () => Date;
  log: Logger;
  /** Open jobs already sent, `uid/jobID/version/deployer` (events path only; ./sent.ts). */
  sentJobs?: SentJobs;
}

interface Item {
  namespace: string;
  name: string;
  uid: string;
  keys: ResponsibilityKeys;
  /** The whole item, when the event carried it: the reconcile events carry it on. */
  object?: DeployItem;
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
    ...(item.object ? { datacontenttype: 'application/json', data: item.object } : {}),
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

/**
 * An API-server event's item: from the object it carries (Resource mode), without a read, or read
 * (Reference mode). See the header for what is not sent.
 */
export async function checkEvent(
  deps: CheckDeps,
  config: CheckConfig,
  ref: { namespace: string; name: string },
  object: DeployItem | undefined,
  /** The event's id (./sent.ts: a redelivery of the event that sent a job may send it again). */
  eventId = '',
): Promise<string[]> {
  if (!object) return checkItem(deps, config, ref);
  const shown = deployerWorkShown(object);
  if (shown === 'none') return [];
  const item = carriedItem(ref, object);
  const deployers = shown === 'finished-job' ? finishedJobDeployers(config, object) : config.deployers;
  if (shown !== 'open-job' || !deps.sentJobs) return decideAndSend(deps, config, item, new Map(), deployers);
  const by = eventId || deps.newId();
  return decideAndSend(deps, config, item, new Map(), deployers, jobMemo(deps.sentJobs, item, object, by));
}

/** The item as an event carried it: its keys from the annotations, else from the spec. */
function carriedItem(ref: { namespace: string; name: string }, object: DeployItem): Item {
  const meta = object.metadata ?? {};
  const keys = responsibilityKeysFromMetadata(meta) ?? responsibilityKeysFromSpec(object);
  return { ...ref, uid: meta.uid ?? '', keys, object };
}

/**
 * The deployers an item whose job is finished is sent to: those configured `finishedJobs: always`
 * (ShouldReconcile hooks of their own), and the others only when the item wants a continuous
 * reconcile (the product's one such hook); for anyone else the step would end "nothing to do".
 */
function finishedJobDeployers(config: CheckConfig, object: DeployItem): DeployerEntry[] {
  const continuous = continuousReconcileWanted(object);
  return config.deployers.filter((d) => continuous || d.finishedJobs === 'always');
}

/**
 * Sends an open job to each deployer once (./sent.ts: per instance, or shared through Redis;
 * forgotten again when the send fails), per spec generation and deletion: an edit of the spec, or a
 * deletion, during the job is sent again.
 */
function jobMemo(sentJobs: SentJobs, item: Item, object: DeployItem, by: string): SendGate {
  const meta = object.metadata;
  const version = `${meta?.generation ?? 0}${meta?.deletionTimestamp ? '-deleting' : ''}`;
  const jobKey = (d: DeployerEntry): string =>
    `${item.uid}/${object.status?.jobID ?? ''}/${version}/${d.name}`;
  return {
    claim: (d) => sentJobs.claim(jobKey(d), by),
    unclaim: (d) => sentJobs.unclaim(jobKey(d), by),
  };
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

/** Which sends to leave out (an open job already sent), claimed before the send. */
interface SendGate {
  /** True: not sent yet, and now claimed. */
  claim(deployer: DeployerEntry): Promise<boolean>;
  unclaim(deployer: DeployerEntry): Promise<void>;
}

/**
 * Sends to `d` when responsible; true when sent. With a gate, the send is claimed once the deployer
 * is found responsible (two events of one job in flight at once send it once), and unclaimed when
 * the send fails.
 */
async function sendIfResponsible(
  deps: CheckDeps,
  config: CheckConfig,
  item: Item,
  d: DeployerEntry,
  targets: TargetCache,
  gate?: SendGate,
): Promise<boolean> {
  if (!(await responsible(deps, item, d, targets))) return false;
  if (gate && !(await gate.claim(d))) return false;
  try {
    await deps.send(reconcileEvent(deps, config, item, d));
    return true;
  } catch (err) {
    // a failed unclaim leaves the key to expire: the send's own error is the one to report
    await gate?.unclaim(d).catch(() => undefined);
    throw err;
  }
}

async function decideAndSend(
  deps: CheckDeps,
  config: CheckConfig,
  item: Item | undefined,
  targets: TargetCache,
  deployers: readonly DeployerEntry[] = config.deployers,
  gate?: SendGate,
): Promise<string[]> {
  if (!item) return [];
  const sent: string[] = [];
  for (const deployer of deployers) {
    if (await sendIfResponsible(deps, config, item, deployer, targets, gate)) sent.push(deployer.name);
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
