/**
 * The attributes of an incoming CloudEvent that shared/function does not read: `kind` (API-server
 * and requeue events) and `target` (requeue events), and whether an event is a resync (the ping of
 * a family's resync PingSource). Used by the seed-management and DeployItem functions.
 */
import { EventTypes } from '../events/index.js';

function record(ce: unknown): Record<string, unknown> {
  return (typeof ce === 'object' && ce !== null ? ce : {}) as Record<string, unknown>;
}

/** The `kind` extension attribute, else `data.kind`; '' when neither is a string. */
export function eventKind(ce: unknown): string {
  const e = record(ce);
  if (typeof e.kind === 'string' && e.kind !== '') return e.kind;
  const kind = record(e.data).kind;
  return typeof kind === 'string' ? kind : '';
}

/** The `target` attribute of a `dev.landscape.requeue` event; '' when absent. */
export function eventTarget(ce: unknown): string {
  const target = record(ce).target;
  return typeof target === 'string' ? target : '';
}

/**
 * A resync: a `dev.knative.sources.ping` event. The family's Trigger routes only its resync
 * PingSource's pings (shared/events RESYNC_PING_SOURCES) to these functions, which then list and
 * reconcile everything they own.
 */
export function isResyncEvent(ce: unknown): boolean {
  return record(ce).type === EventTypes.ping;
}
