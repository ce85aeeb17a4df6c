/**
 * The ticker's pure decisions: which targets to tick, and the `dev.landscape.requeue` event for a
 * due item (DESIGN "Events": extensions `target`, `namespace`, `name`, `kind`).
 */
import { EventTypes, type EventInit } from '../../shared/events/index.js';
import type { DueItem } from '../../shared/requeue/index.js';

/** Configured targets plus (when discovery is on) those found in Redis; sorted, no duplicates. */
export function targetsToTick(
  configured: readonly string[],
  discovered: readonly string[],
  discover: boolean,
): string[] {
  return [...new Set([...configured, ...(discover ? discovered : [])])].sort();
}

export interface RequeueEventOptions {
  source: string;
  now: Date;
  id: string;
}

/**
 * The requeue event of one due item. `subject` is `<kind>/<namespace>/<name>`; the data repeats
 * the object and carries the time it was due. A cluster-scoped object has no `namespace`
 * attribute (CloudEvents attributes cannot be empty).
 */
export function requeueEvent(item: DueItem, opts: RequeueEventOptions): EventInit {
  const namespace = item.namespace === '' ? {} : { namespace: item.namespace };
  return {
    id: opts.id,
    type: EventTypes.requeue,
    source: opts.source,
    subject: `${item.kind}/${item.namespace}/${item.name}`,
    time: opts.now.toISOString(),
    datacontenttype: 'application/json',
    target: item.target,
    kind: item.kind,
    name: item.name,
    ...namespace,
    data: {
      target: item.target,
      kind: item.kind,
      namespace: item.namespace,
      name: item.name,
      dueAt: item.at.toISOString(),
    },
  };
}
