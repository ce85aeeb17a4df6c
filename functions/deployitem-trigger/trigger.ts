/**
 * The job trigger, the Landscaper's side of the deployer contract: for one DeployItem, write what
 * `decideJob` says — a new `status.jobID` (+ `jobIDGenerationTime`) when the item was created, its
 * spec changed or it is being deleted and the previous job is finished, and the
 * `deployer-type` / `deployer-target-name` annotations. The status write is optimistic (the
 * resourceVersion read), so a job is never handed out twice; a conflict is thrown (the event is
 * retried and decided again on fresh data).
 */
import { GVK } from '../../shared/api/gvk.js';
import { DEFAULT_CONTEXT_NAME, type DeployItem } from '../../shared/api/landscaper.js';
import { decideJob, type JobTrigger } from '../../shared/deployer/index.js';
import { isAlreadyExists, isConflict, isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import type { TriggerConfig } from './config.js';

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

function refOf(item: DeployItem): { namespace: string; name: string } {
  return { namespace: item.metadata?.namespace ?? '', name: item.metadata?.name ?? '' };
}

async function triggerFor(
  deps: TriggerDeps,
  config: TriggerConfig,
  item: DeployItem,
): Promise<TriggerOutcome> {
  const ref = refOf(item);
  const decision = decideJob(item, deps.now(), deps.newId);
  if (!decision) return 'unchanged';
  if (decision.status) {
    if (decision.trigger === 'Created' && config.ensureDefaultContext)
      await ensureContext(deps, ref.namespace);
    await deps.client.replaceStatus(GVK.DeployItem, { ...item, status: decision.status });
    deps.log.info('new job', {
      deployItem: `${ref.namespace}/${ref.name}`,
      trigger: decision.trigger,
      jobID: decision.status.jobID,
    });
  }
  if (decision.annotations) {
    await deps.client.mergePatch(GVK.DeployItem, ref, { metadata: { annotations: decision.annotations } });
  }
  return decision.trigger ?? 'annotated';
}
