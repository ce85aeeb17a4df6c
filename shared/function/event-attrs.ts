/**
 * The attributes of an incoming CloudEvent that shared/function does not read: `kind` (API-server,
 * requeue and resync events) and `target` (requeue events). Used by the managedseed,
 * deletion-protection and seed-status functions.
 */

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
