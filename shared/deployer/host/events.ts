/**
 * Kubernetes Events on a DeployItem (core/v1 Event, as upstream's event recorder writes them): a
 * Warning for every error of a step, named `<item>.<random hex>` in the item's namespace.
 */
import { GVK } from '../../api/gvk.js';
import type { DeployItem } from '../../api/landscaper.js';
import { newEventObject } from '../../kube/events.js';
import type { KubeClient } from '../../kube/index.js';
import type { ItemEvent } from '../index.js';

export function itemEventObject(
  item: DeployItem,
  event: ItemEvent,
  opts: { component: string; now: Date; newId: () => string },
): Record<string, unknown> {
  return newEventObject(GVK.DeployItem, item.metadata, event, opts);
}

export async function recordItemEvent(
  client: KubeClient,
  item: DeployItem,
  event: ItemEvent,
  opts: { component: string; now: Date; newId: () => string },
): Promise<void> {
  await client.create(GVK.Event, itemEventObject(item, event, opts));
}
