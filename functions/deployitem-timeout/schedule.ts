/**
 * The next sweep, queued for this function in Redis (shared/requeue) instead of a PingSource tick:
 * requeue-tick hands it over as a `dev.landscape.requeue` event when it is due, so an idle
 * landscape starts no deployitem-timeout replica every minute (issue 16). A sweep queues the next
 * one at the time check.ts's `nextSweepAt` gives (the earliest pending job's due time, at the
 * latest one pickup timeout less its slack after the sweep; at once after a conflict); one queue
 * entry for the function (queued at the earlier time when two sweeps queue at once). A lost entry
 * (Redis flushed, the event dropped) is queued again by the next sweep the deployers' resync
 * PingSource starts (every 5 minutes on Knative).
 */
import type { ObjectRef } from '../../shared/requeue/index.js';

/** The queue entry of the next sweep (one per function; no object of that kind exists). */
export const SWEEP_REF: ObjectRef = { kind: 'PickupSweep', namespace: '', name: 'deployitems' };

/** When to queue the next sweep (pure): undefined when none is due ever (timeout off). */
export function nextSweep(nextAt: number | undefined): Date | undefined {
  return nextAt !== undefined && Number.isFinite(nextAt) ? new Date(nextAt) : undefined;
}
