/**
 * The job hand-out, the Landscaper's side of the deployer contract (on unless `handOutJobs: false`,
 * where a real Landscaper hands out the jobs): for one DeployItem, write what
 * `decideJob` says — the `deployer-type` / `deployer-target-name` annotations, and a new
 * `status.jobID` (+ `jobIDGenerationTime`) when the item was created, its spec changed or it is
 * being deleted and the previous job is finished. Both writes are optimistic (the resourceVersion
 * decided from; the status on the one the annotation write returned), so a job is
 * never handed out twice and a stale object never overwrites newer state; a conflict is thrown (the
 * event is retried and decided again on fresh data).
 *
 * An event that carries the item (Resource mode) is decided from that object without a read,
 * one write per event (`triggerEvent`); a Conflict then means the object was stale: read, decide
 * again. The instance remembers the versions its own writes superseded: their events (a
 * redelivery, or the one between the two writes of a decision made on a read) are skipped, since
 * the newer version's own event follows.
 */
import { GVK } from '../../shared/api/gvk.js';
import { DEFAULT_CONTEXT_NAME, type DeployItem } from '../../shared/api/landscaper.js';
import { decideJob, type JobDecision, type JobTrigger } from '../../shared/deployer/index.js';
import { versionKey, type BoundedSet } from '../../shared/deployer/items.js';
import { isAlreadyExists, isConflict, isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import type { CheckConfig } from './config.js';

/** What the job hand-out reads of the function's configuration. */
export type TriggerConfig = Pick<CheckConfig, 'ensureDefaultContext'>;

export interface TriggerDeps {
  client: KubeClient;
  now: () => Date;
  newId: () => string;
  log: Logger;
  /**
   * Namespaces this instance already saw with a default Context (saves a create → 409 per item).
   * A Context deleted later is not recreated until the instance is replaced (scale to zero).
   */
  contexts?: Set<string>;
  /** Item versions (`versionKey`) this instance's own writes superseded: their events are skipped. */
  superseded?: BoundedSet;
}

export type TriggerOutcome = 'gone' | 'unchanged' | JobTrigger | 'annotated';

async function ensureContext(deps: TriggerDeps, namespace: string): Promise<void> {
  if (deps.contexts?.has(namespace)) return;
  const { client, log } = deps;
  try {
    await client.create(GVK.Context, {
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'Context',
      metadata: { name: DEFAULT_CONTEXT_NAME, namespace },
    });
    log.info('created the default Context', { namespace });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  deps.contexts?.add(namespace);
}

/** Decides and writes for the item `namespace/name`. */
export async function triggerJob(
  deps: TriggerDeps,
  config: TriggerConfig,
  ref: { namespace: string; name: string },
): Promise<TriggerOutcome> {
  let item: DeployItem;
  try {
    item = await deps.client.get<DeployItem>(GVK.DeployItem, ref.namespace, ref.name);
  } catch (err) {
    if (isNotFound(err)) return 'gone';
    throw err;
  }
  return triggerFor(deps, config, item);
}

/**
 * A resync's item, as its (full, paged) list had it: decided and written without a read of its
 * own. The write is optimistic on the listed resourceVersion; when the item changed since (409)
 * or went away (404), it is decided again from a fresh read, as an event would.
 */
export async function triggerListed(
  deps: TriggerDeps,
  config: TriggerConfig,
  item: DeployItem,
): Promise<TriggerOutcome> {
  const ref = refOf(item);
  try {
    return await triggerFor(deps, config, item);
  } catch (err) {
    if (!isConflict(err) && !isNotFound(err)) throw err;
    return triggerJob(deps, config, ref);
  }
}

/**
 * An API-server event's item, decided from the object it carries (Resource mode) without a read,
 * one write per event: the annotations when they are off, else the new job; the write's own event
 * brings the next version, decided the same way (on whichever replica it reaches: no version is
 * decided twice, so the replicas do not race). A stale object (409) or a gone item (404) is read
 * and decided again in full. Without an object (Reference mode), read.
 */
export async function triggerEvent(
  deps: TriggerDeps,
  config: TriggerConfig,
  ref: { namespace: string; name: string },
  item: DeployItem | undefined,
): Promise<TriggerOutcome> {
  if (!item) return triggerJob(deps, config, ref);
  if (deps.superseded?.has(versionKey(item))) return 'unchanged';
  try {
    return await triggerFor(deps, config, item, true);
  } catch (err) {
    if (!isConflict(err) && !isNotFound(err)) throw err;
    return triggerJob(deps, config, ref);
  }
}

function refOf(item: DeployItem): { namespace: string; name: string } {
  return { namespace: item.metadata?.namespace ?? '', name: item.metadata?.name ?? '' };
}

/** The annotation write, optimistic on `item`'s version; the version written. */
async function annotate(
  deps: TriggerDeps,
  item: DeployItem,
  annotations: Record<string, string | null>,
): Promise<DeployItem> {
  const resourceVersion = item.metadata?.resourceVersion;
  return deps.client.mergePatch<DeployItem>(GVK.DeployItem, refOf(item), {
    metadata: { annotations, ...(resourceVersion ? { resourceVersion } : {}) },
  });
}

/** The new job's status write, optimistic on `current`'s version (the Context first for a new item). */
async function writeJob(
  deps: TriggerDeps,
  config: TriggerConfig,
  current: DeployItem,
  decision: JobDecision,
): Promise<void> {
  const ref = refOf(current);
  if (decision.trigger === 'Created' && config.ensureDefaultContext) await ensureContext(deps, ref.namespace);
  await deps.client.replaceStatus<DeployItem>(GVK.DeployItem, { ...current, status: decision.status });
  deps.superseded?.add(versionKey(current));
  deps.log.info('new job', {
    deployItem: `${ref.namespace}/${ref.name}`,
    trigger: decision.trigger,
    jobID: decision.status?.jobID,
  });
}

/**
 * The annotations first, then the new job on the version that wrote (both optimistic): the job
 * shows only on the trigger's last write, so the deployer that takes it does not race the trigger.
 * Every version written over is marked superseded. `oneWrite`: the first write only.
 */
async function triggerFor(
  deps: TriggerDeps,
  config: TriggerConfig,
  item: DeployItem,
  oneWrite = false,
): Promise<TriggerOutcome> {
  const decision = decideJob(item, deps.now(), deps.newId);
  if (!decision) return 'unchanged';
  let current = item;
  if (decision.annotations) {
    current = await annotate(deps, current, decision.annotations);
    deps.superseded?.add(versionKey(item));
    if (oneWrite) return 'annotated';
  }
  if (decision.status) await writeJob(deps, config, current, decision);
  return decision.trigger ?? 'annotated';
}
