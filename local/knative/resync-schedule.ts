/**
 * The schedules of the embedded landscape's PingSources (`pingSpecs`): each one's `spec.schedule`
 * (one-minute granularity, as Knative's mtping adapter runs it: knative/eventing
 * pkg/adapter/mtping/runner.go), or with `npm start -- --embedded-schedules` its
 * `landscape.dev/embedded-schedule` (six-field cron, seconds first, croner: sub-minute ticks that
 * are MORE generous than Knative, an opt-in for tests and the drill); and `npm start --
 * --resync-interval <duration>` for the resync PingSources (label `landscape.dev/resync: "true"`,
 * knative/<family>/resync.yaml). Pure.
 *
 * An interval maps to the cron that fires at that period from the top of its enclosing unit:
 * under a minute `*\/S * * * * *` (S seconds; an S that does not divide 60 also fires at :00 of
 * each minute, as cron does), whole minutes `0 *\/M * * * *`, whole hours `0 0 *\/H * * *`, whole
 * days `0 0 0 *\/D * *`. Anything else is rounded to the nearest whole unit below it.
 */

import type { DestinationRef } from '../../triggers/broker/index.js';
import { toSpec, type PingSourceSpec, type SinkRef } from '../../triggers/ping-source/index.js';
import { withEmbeddedSchedule, type KnativeSet } from './manifests.js';

/** The label that marks a PingSource as a family's resync. */
export const RESYNC_LABEL = 'landscape.dev/resync';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The six-field cron for an interval (≥ 1 s). */
export function resyncSchedule(intervalMs: number): string {
  if (!Number.isFinite(intervalMs) || intervalMs < SECOND)
    throw new RangeError(`resync interval ${intervalMs} ms: at least 1s`);
  if (intervalMs < MINUTE) return `*/${Math.round(intervalMs / SECOND)} * * * * *`;
  if (intervalMs < HOUR) return `0 */${Math.floor(intervalMs / MINUTE)} * * * *`;
  if (intervalMs < DAY) return `0 0 */${Math.floor(intervalMs / HOUR)} * * *`;
  return `0 0 0 */${Math.min(31, Math.floor(intervalMs / DAY))} * *`;
}

function isResyncPingSource(doc: Record<string, unknown>): boolean {
  const meta = doc.metadata as { labels?: Record<string, unknown> } | undefined;
  return meta?.labels?.[RESYNC_LABEL] === 'true';
}

/** A resync PingSource with the schedule of the interval (other documents, or no interval: as they are). */
export function withResyncInterval(
  doc: Record<string, unknown>,
  intervalMs: number | undefined,
): Record<string, unknown> {
  if (intervalMs === undefined || !isResyncPingSource(doc)) return doc;
  return { ...doc, spec: { ...(doc.spec as object), schedule: resyncSchedule(intervalMs) } };
}

/**
 * Every PingSource of the manifests with its schedule: the embedded one when `embedded` (the
 * default of this function; the runtime passes `npm start`'s choice, whose default is false),
 * else `spec.schedule`; the resync interval over either. Every problem.
 */
export function pingSpecs(
  set: Pick<KnativeSet, 'pingSources'>,
  resolve: (ref: DestinationRef) => string | undefined,
  resyncIntervalMs: number | undefined,
  { embedded = true }: { embedded?: boolean } = {},
): { specs: PingSourceSpec[]; problems: string[] } {
  const specs: PingSourceSpec[] = [];
  const problems: string[] = [];
  for (const doc of set.pingSources) {
    const scheduled = embedded ? withEmbeddedSchedule(doc) : doc;
    const r = toSpec(withResyncInterval(scheduled, resyncIntervalMs), {
      allowSeconds: true,
      resolveRef: (ref: SinkRef, namespace: string) => resolve({ ...ref, namespace }),
    });
    problems.push(...r.problems.map((p) => `PingSource ${p}`));
    if (r.spec) specs.push(r.spec);
  }
  return { specs, problems };
}
