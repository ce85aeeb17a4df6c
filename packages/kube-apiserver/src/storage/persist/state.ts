/**
 * What the persistence layer keeps in memory besides the write buffer: a mirror of the store's
 * objects (built only from store events, so that a snapshot of it is exactly what a replay of
 * the same events gives) and the tail of the event history that goes into the next snapshot.
 *
 * Both hold the store's own (immutable) objects, so they cost map entries, not copies.
 */
import { objectKey, type StoreEvent } from '../store.js';
import type { KubeObject } from '../../api/types.js';

const CRD_RESOURCE = 'apiextensions.k8s.io/customresourcedefinitions';

/** The storage key of the resource a CRD serves (`<group>/<plural>`, as registry.resourceKey). */
export function crdResourceKey(crd: KubeObject): string | undefined {
  const spec = crd.spec as { group?: unknown; names?: { plural?: unknown } } | undefined;
  if (typeof spec?.group !== 'string' || typeof spec.names?.plural !== 'string') return undefined;
  return `${spec.group}/${spec.names.plural}`;
}

export function eventKey(e: Pick<StoreEvent, 'object'>): string {
  return objectKey(e.object.metadata.namespace, e.object.metadata.name!);
}

/** The objects per resource, as the store's events left them. */
export class MirrorState {
  private readonly tables = new Map<string, Map<string, KubeObject>>();

  get(resource: string, key: string): KubeObject | undefined {
    return this.tables.get(resource)?.get(key);
  }

  set(resource: string, object: KubeObject): void {
    let table = this.tables.get(resource);
    if (!table) {
      table = new Map();
      this.tables.set(resource, table);
    }
    table.set(objectKey(object.metadata.namespace, object.metadata.name!), object);
  }

  /**
   * Applies an event; returns the object it replaced (the `previous` of a MODIFIED or DELETED).
   * A deleted CRD also drops its resource's table, as the store does (controllers.ts
   * syncCrdDefs → Store.dropResource) without an event per object.
   */
  apply(e: Pick<StoreEvent, 'type' | 'resource' | 'object'>): KubeObject | undefined {
    const key = eventKey(e);
    const before = this.get(e.resource, key);
    if (e.type === 'DELETED') {
      this.tables.get(e.resource)?.delete(key);
      if (e.resource === CRD_RESOURCE) {
        const served = crdResourceKey(e.object);
        if (served) this.tables.delete(served);
      }
    } else {
      this.set(e.resource, e.object);
    }
    return before;
  }

  /** The objects of every resource that has any. */
  objects(): Map<string, KubeObject[]> {
    const out = new Map<string, KubeObject[]>();
    for (const [resource, table] of this.tables) if (table.size) out.set(resource, [...table.values()]);
    return out;
  }

  count(): number {
    let n = 0;
    for (const table of this.tables.values()) n += table.size;
    return n;
  }
}

/**
 * The newest `limit` events, oldest first, and `compactedRV`: every event with a larger
 * resourceVersion is in `events()` (the same contract as Store.oldestResumableRV).
 */
export class HistoryTail {
  private readonly buffer: StoreEvent[] = [];
  private start = 0;
  private dropped: number;

  constructor(
    private readonly limit: number,
    compactedRV = 0,
  ) {
    this.dropped = compactedRV;
  }

  get compactedRV(): number {
    return this.dropped;
  }

  push(e: StoreEvent): void {
    this.buffer.push(e);
    if (this.buffer.length - this.start <= this.limit) return;
    this.dropped = this.buffer[this.start].rv;
    this.start++;
    if (this.start > 4096) {
      this.buffer.splice(0, this.start);
      this.start = 0;
    }
  }

  events(): StoreEvent[] {
    return this.buffer.slice(this.start);
  }
}
