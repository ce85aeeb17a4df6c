/**
 * Kubernetes Events on a DeployItem (core/v1 Event, as upstream's event recorder writes them): a
 * Warning for every error of a step, named `<item>.<random hex>` in the item's namespace.
 */
import { GVK } from '../../api/gvk.js';
import type { DeployItem } from '../../api/landscaper.js';
import type { KubeClient } from '../../kube/index.js';
import type { ItemEvent } from '../index.js';

/** Kubernetes caps an Event message at 1 KiB when it aggregates; keep ours within it. */
const MAX_MESSAGE = 1024;

export function itemEventObject(
  item: DeployItem,
  event: ItemEvent,
  opts: { component: string; now: Date; newId: () => string },
): Record<string, unknown> {
  const meta = item.metadata ?? {};
  const time = opts.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const suffix = opts.newId().replace(/-/g, '').slice(0, 16);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${meta.name ?? 'deployitem'}.${suffix}`, namespace: meta.namespace },
    involvedObject: {
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'DeployItem',
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
    },
    type: event.type,
    reason: event.reason,
    message:
      event.message.length > MAX_MESSAGE ? `${event.message.slice(0, MAX_MESSAGE - 3)}...` : event.message,
    source: { component: opts.component },
    reportingComponent: opts.component,
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
}

export async function recordItemEvent(
  client: KubeClient,
  item: DeployItem,
  event: ItemEvent,
  opts: { component: string; now: Date; newId: () => string },
): Promise<void> {
  await client.create(GVK.Event, itemEventObject(item, event, opts));
}
