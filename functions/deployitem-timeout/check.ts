/**
 * The pickup timeout (specs/landscaper.md "Timeouts"), the central check that no deployer took an
 * item's job in time: for every DeployItem, `decidePickupTimeout`; a timed-out item gets the
 * decision's status in one optimistic write (the resourceVersion read), so an item a deployer
 * picks up meanwhile is left to it (Conflict: skipped). The message names a missing Target.
 */
import pLimit from 'p-limit';
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem } from '../../shared/api/landscaper.js';
import { decidePickupTimeout } from '../../shared/deployer/index.js';
import { isConflict, isNotFound, type KubeClient } from '../../shared/kube/index.js';
import { forEachPage } from '../../shared/kube/io.js';
import type { Logger } from '../../shared/log/index.js';
import type { TimeoutConfig } from './config.js';

export interface TimeoutDeps {
  client: KubeClient;
  now: () => Date;
  log: Logger;
}

export interface TimeoutSummary {
  checked: number;
  timedOut: number;
  conflicts: number;
}

async function targetMissing(client: KubeClient, item: DeployItem): Promise<boolean> {
  const name = item.spec.target?.name;
  if (!name) return false;
  try {
    await client.getMetadata(GVK.Target, item.spec.target?.namespace ?? item.metadata?.namespace, name);
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

/** One optimistic status write; false when the item changed or went away meanwhile. */
async function writeStatus(
  client: KubeClient,
  item: DeployItem,
  status: DeployItem['status'],
): Promise<boolean> {
  try {
    await client.replaceStatus(GVK.DeployItem, { ...item, status });
    return true;
  } catch (err) {
    if (isConflict(err) || isNotFound(err)) return false;
    throw err;
  }
}

/** Checks one item; true when it was failed with PickupTimeout, 'conflict' when it changed meanwhile. */
export async function checkPickup(
  deps: TimeoutDeps,
  config: TimeoutConfig,
  item: DeployItem,
): Promise<boolean | 'conflict'> {
  const now = deps.now();
  const first = decidePickupTimeout({ item, now, pickupTimeout: config.pickupTimeout });
  if (first.kind !== 'TimedOut') return false;
  const missing = await targetMissing(deps.client, item);
  const decision = missing
    ? decidePickupTimeout({ item, now, pickupTimeout: config.pickupTimeout, targetMissing: true })
    : first;
  if (decision.kind !== 'TimedOut') return false;
  if (!(await writeStatus(deps.client, item, decision.status))) return 'conflict';
  deps.log.info('pickup timeout', {
    deployItem: `${item.metadata?.namespace}/${item.metadata?.name}`,
    type: item.spec.type,
    jobID: item.status?.jobID,
    message: decision.status.lastError?.message,
  });
  return true;
}

/** Every DeployItem, page by page. */
export async function checkAll(deps: TimeoutDeps, config: TimeoutConfig): Promise<TimeoutSummary> {
  const summary: TimeoutSummary = { checked: 0, timedOut: 0, conflicts: 0 };
  const limit = pLimit(8);
  await forEachPage(
    (page) => deps.client.list<DeployItem>(GVK.DeployItem, undefined, page),
    async (items) => {
      const results = await Promise.all(items.map((item) => limit(() => checkPickup(deps, config, item))));
      summary.checked += results.length;
      summary.timedOut += results.filter((r) => r === true).length;
      summary.conflicts += results.filter((r) => r === 'conflict').length;
    },
  );
  return summary;
}
