/**
 * The HPA's in-memory history (recommendations and scale events,
 * ./autoscaler-behavior.ts) as the SeedAutoscaler's `status.history` keeps it (pure): epoch
 * milliseconds become RFC 3339 times with milliseconds and back; entries with a time that does not
 * parse are dropped.
 */
import type { RecordedScaleEvent, SeedAutoscalerHistory } from '../../shared/api/seedautoscaler.js';
import type { ScaleHistory, TimestampedRecommendation, TimestampedScaleEvent } from './autoscaler.js';

const iso = (at: number): string => new Date(at).toISOString();

function events(recorded: readonly RecordedScaleEvent[] | undefined): TimestampedScaleEvent[] {
  return (recorded ?? []).flatMap((e) => {
    const at = Date.parse(e.time);
    return Number.isFinite(at) ? [{ change: e.change, at }] : [];
  });
}

/** The status history as the decision reads it. */
export function historyFromStatus(history: SeedAutoscalerHistory | undefined): ScaleHistory {
  const recommendations: TimestampedRecommendation[] = (history?.recommendations ?? []).flatMap((r) => {
    const at = Date.parse(r.time);
    return Number.isFinite(at) ? [{ replicas: r.replicas, at }] : [];
  });
  return {
    recommendations,
    scaleUpEvents: events(history?.scaleUpEvents),
    scaleDownEvents: events(history?.scaleDownEvents),
  };
}

/** The decision's history as the status keeps it. */
export function historyToStatus(history: ScaleHistory): SeedAutoscalerHistory {
  return {
    recommendations: history.recommendations.map((r) => ({ replicas: r.replicas, time: iso(r.at) })),
    scaleUpEvents: history.scaleUpEvents.map((e) => ({ change: e.change, time: iso(e.at) })),
    scaleDownEvents: history.scaleDownEvents.map((e) => ({ change: e.change, time: iso(e.at) })),
  };
}
