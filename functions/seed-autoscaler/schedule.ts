/**
 * The seed-autoscaler's own passes over every SeedAutoscaler, queued in Redis (shared/requeue)
 * instead of a PingSource tick: one queue entry for the function; requeue-tick hands it over as a
 * `dev.landscape.requeue` event when due (pure helpers; ./handler.ts queues).
 */
import type { ObjectRef } from '../../shared/requeue/index.js';

/** The queue entry of the next pass over every autoscaler (no object of that kind exists). */
export const PASS_REF: ObjectRef = { kind: 'SeedAutoscalerPass', namespace: '', name: 'all' };

/**
 * When the next pass over all is due (pure): one sync period after the queued pass this one
 * answers was due (`dueAt`), so the period does not grow by requeue-tick's granularity and the
 * way to the function (a pass due at :00 and run at :03 queues :60, which the tick at :60 hands
 * over); one period from now when the pass was no queued one, or is late by a period or more.
 */
export function nextPassAt(nowMs: number, syncPeriodMs: number, dueAtMs: number | undefined): number {
  if (dueAtMs === undefined || !Number.isFinite(dueAtMs)) return nowMs + syncPeriodMs;
  const next = dueAtMs + syncPeriodMs;
  return next > nowMs ? next : nowMs + syncPeriodMs;
}
