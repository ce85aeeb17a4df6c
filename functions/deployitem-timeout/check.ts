/**
 * The pickup timeout (specs/landscaper.md "Timeouts"), the central check that no deployer took an
 * item's job in time: for every DeployItem, `decidePickupTimeout`; a timed-out item gets the
 * decision's status in one optimistic write (the resourceVersion read), so an item a deployer
 * picks up meanwhile is left to it (Conflict: skipped). The message names a missing Target.
 *
 * A sweep lists every DeployItem in full (the decision needs the status; a metadata-only list does
 * not carry it). A warm instance skips the ticks on which no list can find a timed-out job: after a
 * sweep at T, a job open then and not picked up is due at its own time, and a job handed out after
 * T (stamped with the time it is handed out, as the job hand-out and the Landscaper do) is due no
 * earlier than T + pickupTimeout; so the next sweep is at the earliest of those (less a slack of a
 * tenth of the timeout, at most 30 s), or at once after a Conflict; the handler queues the next
 * sweep for that time (./schedule.ts). A cold instance sweeps at once.
 */
import pLimit from 'p-limit';
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem } from '../../shared/api/landscaper.js';
import { decidePickupTimeout, parseTimeout } from '../../shared/deployer/index.js';
import { isConflict, isNotFound, type KubeClient } from '../../shared/kube/index.js';
import { forEachPage } from '../../shared/kube/io.js';
import type { Logger } from '../../shared/log/index.js';
import type { TimeoutConfig } from './config.js';

export interface TimeoutDeps {
  client: KubeClient;
  now: () => Date;
  log: Logger;
  /** When this instance sweeps next (ms since the epoch); undefined: at once. */
  sweep?: { nextAt?: number };
}

export interface TimeoutSummary {
  checked: number;
  timedOut: number;
  conflicts: number;
  /** True when the tick listed nothing: no job can be due before `nextAt`. */
  skipped?: boolean;
}

const SLACK_MAX_MS = 30_000;

/**
 * When the next sweep is due, after one that started at `startMs` (pure): the earliest of the
 * pending jobs' due times and `startMs + timeout - slack`; at once after a conflict; never when the
 * timeout is off.
 */
export function nextSweepAt(
  startMs: number,
  pickupTimeout: string,
  earliestDueMs: number | undefined,
  conflicts: number,
): number {
  const timeout = parseTimeout(pickupTimeout, 'none');
  if (timeout === 'none' || timeout.ms <= 0) return Number.POSITIVE_INFINITY;
  if (conflicts > 0) return startMs;
  const slack = Math.min(SLACK_MAX_MS, timeout.ms / 10);
  return Math.min(earliestDueMs ?? Number.POSITIVE_INFINITY, startMs + timeout.ms - slack);
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

/**
 * Checks one item; true when it was failed with PickupTimeout, 'conflict' when it changed
 * meanwhile; `due` hears when a pending job will be due (ms since the epoch).
 */
export async function checkPickup(
  deps: TimeoutDeps,
  config: TimeoutConfig,
  item: DeployItem,
  due: (atMs: number) => void,
): Promise<boolean | 'conflict'> {
  const now = deps.now();
  const first = decidePickupTimeout({ item, now, pickupTimeout: config.pickupTimeout });
  if (first.kind === 'Wait') due(now.getTime() + first.afterMs);
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

/** Every DeployItem, page by page; nothing when this instance knows no job can be due yet. */
export async function checkAll(deps: TimeoutDeps, config: TimeoutConfig): Promise<TimeoutSummary> {
  const summary: TimeoutSummary = { checked: 0, timedOut: 0, conflicts: 0 };
  const start = deps.now().getTime();
  if (deps.sweep?.nextAt !== undefined && start < deps.sweep.nextAt) return { ...summary, skipped: true };
  let earliest: number | undefined;
  const due = (at: number): void => void (earliest = Math.min(earliest ?? at, at));
  await sweep(deps, config, summary, due);
  if (deps.sweep) deps.sweep.nextAt = nextSweepAt(start, config.pickupTimeout, earliest, summary.conflicts);
  return summary;
}

async function sweep(
  deps: TimeoutDeps,
  config: TimeoutConfig,
  summary: TimeoutSummary,
  due: (atMs: number) => void,
): Promise<void> {
  const limit = pLimit(8);
  await forEachPage(
    (page) => deps.client.list<DeployItem>(GVK.DeployItem, undefined, page),
    async (items) => {
      const results = await Promise.all(
        items.map((item) => limit(() => checkPickup(deps, config, item, due))),
      );
      summary.checked += results.length;
      summary.timedOut += results.filter((r) => r === true).length;
      summary.conflicts += results.filter((r) => r === 'conflict').length;
    },
  );
}
