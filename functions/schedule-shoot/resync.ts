/**
 * schedule-shoot's resync: on the ping of the seed-management resync PingSource
 * (knative/seedmanagement/resync.yaml), every Shoot this scheduler should bind and has not is
 * scheduled as an event for it would be. gardener-scheduler's shoot controller gets such shoots
 * from its informer's initial list (gardener/gardener pkg/scheduler/controller/shoot/add.go,
 * predicate: unassigned shoots of this scheduler); Knative's ApiServerSource sends nothing for
 * what exists or for what it missed, so without this a shoot created before the landscape, or
 * whose event was lost, would never be scheduled.
 *
 * Full pages of Shoots (the decision needs `spec.seedName` and `spec.schedulerName`, which
 * metadata lacks), one page in memory at a time; one shoot at a time (each binding reserves
 * capacity in Redis, and a resync is not in a hurry).
 */
import { GVK } from '../../shared/api/gvk.js';
import type { Shoot } from '../../shared/api/core.js';
import type { EventObjectRef } from '../../shared/function/index.js';
import { forEachPage } from '../../shared/kube/io.js';
import { shouldSchedule } from './scheduler.js';
import type { ScheduleShootConfig } from './config.js';
import { reconcileShoot, type ScheduleDeps, type ScheduleOutcome } from './schedule.js';

/** The shoots of a page this scheduler should bind (pure). */
export function unscheduledShoots(shoots: readonly Shoot[], schedulerName: string): EventObjectRef[] {
  return shoots
    .filter((s) => shouldSchedule(s, schedulerName))
    .map((s) => ({ namespace: s.metadata?.namespace ?? '', name: s.metadata?.name ?? '' }))
    .filter((ref) => ref.namespace !== '' && ref.name !== '');
}

/** One resync pass: the outcome per unscheduled shoot found (each re-read by reconcileShoot). */
export async function resyncShoots(
  deps: ScheduleDeps,
  config: ScheduleShootConfig,
): Promise<{ listed: number; outcomes: ScheduleOutcome[] }> {
  const outcomes: ScheduleOutcome[] = [];
  const listed = await forEachPage(
    (page) => deps.client.list<Shoot>(GVK.Shoot, undefined, page),
    async (items) => {
      for (const ref of unscheduledShoots(items, config.schedulerName))
        outcomes.push(await reconcileShoot(deps, config, ref, false));
    },
  );
  return { listed, outcomes };
}
