/**
 * Kubernetes Events (core/v1) on Gardener objects, aggregated as client-go's event correlator
 * does: one Event per (object, type, reason, message) — named `<object>.<hash>` — whose `count`
 * and `lastTimestamp` grow when the same thing is reported again, so a function that reports a
 * blocked deletion on every look does not flood the namespace. Events of cluster-scoped objects
 * (Seeds) go to `default`, as the recorder puts them. Best effort: a failure is logged, never
 * thrown (the pass it reports on must not fail because of it).
 *
 * Used by the managedseed, deletion-protection and seed-status functions. Besides, newEventObject:
 * an Event that is not aggregated, named `<object>.<random hex>` (the DeployItem, ManagedSeedSet,
 * SeedAutoscaler and Shoot scheduler Events).
 */
import { createHash } from 'node:crypto';
import { GVK } from '../api/gvk.js';
import { formatTime, type ObjectMeta } from '@landscape/apimachinery';
import type { KubeClient } from './client.js';
import { isAlreadyExists } from './errors.js';
import type { Logger } from '../log/index.js';

/** Kubernetes caps an Event message at 1 KiB when it aggregates; keep ours within it. */
const MAX_MESSAGE = 1024;

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  name: string;
  /** Absent or '' for cluster-scoped objects. */
  namespace?: string;
  uid?: string;
}

export interface ObjectEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface RecordOptions {
  component: string;
  now: Date;
  log: Logger;
}

interface EventObject {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  count?: number;
  [field: string]: unknown;
}

function clip(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
}

/** The aggregation key's Event name: `<object>.<16 hex>` (same object, type, reason, message → same name). */
export function eventName(involved: InvolvedObject, event: ObjectEvent): string {
  const key = [involved.kind, involved.namespace ?? '', involved.name, involved.uid ?? ''];
  const hash = createHash('sha256')
    .update([...key, event.type, event.reason, event.message].join('\u0000'))
    .digest('hex')
    .slice(0, 16);
  return `${involved.name}.${hash}`;
}

/** What every Event says besides its name and object: what happened, who saw it, when, once. */
function eventFields(event: ObjectEvent, component: string, now: Date): Record<string, unknown> {
  const t = formatTime(now);
  return {
    type: event.type,
    reason: event.reason,
    message: clip(event.message),
    source: { component },
    reportingComponent: component,
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
  };
}

/** The Event object as the recorder writes it the first time. */
export function eventObject(
  involved: InvolvedObject,
  event: ObjectEvent,
  opts: Pick<RecordOptions, 'component' | 'now'>,
): EventObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: eventName(involved, event), namespace: involved.namespace || 'default' },
    involvedObject: {
      apiVersion: involved.apiVersion,
      kind: involved.kind,
      name: involved.name,
      ...(involved.namespace ? { namespace: involved.namespace } : {}),
      ...(involved.uid ? { uid: involved.uid } : {}),
    },
    ...eventFields(event, opts.component, opts.now),
  };
}

/**
 * A new Event on an object, not aggregated: named `<object>.<16 hex of newId()>` in the object's
 * namespace, the object's uid and resourceVersion in `involvedObject`.
 */
export function newEventObject(
  kind: { apiVersion: string; kind: string },
  metadata: ObjectMeta | undefined,
  event: ObjectEvent,
  opts: { component: string; now: Date; newId: () => string },
): Record<string, unknown> {
  const meta = metadata ?? {};
  const suffix = opts.newId().replace(/-/g, '').slice(0, 16);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${meta.name ?? kind.kind.toLowerCase()}.${suffix}`, namespace: meta.namespace },
    involvedObject: {
      apiVersion: kind.apiVersion,
      kind: kind.kind,
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
    },
    ...eventFields(event, opts.component, opts.now),
  };
}

async function bump(client: KubeClient, fresh: EventObject, now: Date): Promise<void> {
  const { namespace, name } = fresh.metadata;
  const old = await client.get<EventObject>(GVK.Event, namespace, name);
  await client.mergePatch(
    GVK.Event,
    { namespace, name },
    { count: (old.count ?? 1) + 1, lastTimestamp: formatTime(now) },
  );
}

/** Records the Event (or counts it again); never throws. */
export async function recordEvent(
  client: KubeClient,
  involved: InvolvedObject,
  event: ObjectEvent,
  opts: RecordOptions,
): Promise<void> {
  const fresh = eventObject(involved, event, opts);
  try {
    try {
      await client.create(GVK.Event, fresh);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      await bump(client, fresh, opts.now);
    }
  } catch (err) {
    opts.log.warn('cannot record the Event', {
      kind: involved.kind,
      namespace: involved.namespace,
      name: involved.name,
      reason: event.reason,
      error: String(err),
    });
  }
}
