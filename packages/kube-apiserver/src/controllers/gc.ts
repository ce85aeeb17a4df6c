/**
 * The garbage collector, as kube-controller-manager runs it: dependents (objects whose
 * ownerReferences name an owner by uid) go when all their owners are gone (background), before
 * their owner when it is deleted in the foreground (the owner waits on its `foregroundDeletion`
 * finalizer for dependents with blockOwnerDeletion), or lose their reference when the owner is
 * deleted with the Orphan policy (`orphan` finalizer).
 */
import {
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
  type Operations,
  type PropagationPolicy,
} from '../registry/operations.js';
import type { Store, StoreEvent } from '../storage/store.js';
import type { KubeObject, OwnerReference, ResourceDef } from '../api/types.js';

interface Location {
  resource: string;
  namespace?: string;
  name: string;
}

export interface GcDeps {
  store: Store;
  ops: Operations;
  defOf: (resource: string) => ResourceDef | undefined;
}

const WRITE = { fieldValidation: 'Ignore' as const, dryRun: false };

/** uid → where the object is, and owner uid → its dependents' uids, kept from the store's events. */
class OwnerIndex {
  readonly where = new Map<string, Location>();
  readonly dependents = new Map<string, Set<string>>();
  private readonly owners = new Map<string, string[]>();

  observe(e: StoreEvent): void {
    const uid = e.object.metadata.uid!;
    const before = this.owners.get(uid);
    if (before) {
      for (const owner of before) this.dependents.get(owner)?.delete(uid);
      this.owners.delete(uid);
    }
    if (e.type === 'DELETED') {
      this.where.delete(uid);
      return;
    }
    const m = e.object.metadata;
    // a uid keeps its resource, namespace and name: only an object seen first is placed
    if (!this.where.has(uid))
      this.where.set(uid, { resource: e.resource, namespace: m.namespace, name: m.name! });
    if (!m.ownerReferences?.length) return; // no owners: nothing to index (owners.get → none)
    const owners = m.ownerReferences.map((r) => r.uid);
    this.owners.set(uid, owners);
    for (const owner of owners) {
      const set = this.dependents.get(owner) ?? new Set<string>();
      set.add(uid);
      this.dependents.set(owner, set);
    }
  }
}

export class GarbageCollector {
  private readonly index = new OwnerIndex();
  private readonly queue = new Set<string>();
  private scheduled = false;

  constructor(private readonly deps: GcDeps) {}

  /** Subscribes to the store; returns the function that stops it. */
  start(): () => void {
    for (const resource of this.deps.store.resources()) {
      for (const object of this.deps.store.list(resource)) {
        this.index.observe({ rv: 0, type: 'ADDED', resource, object });
        // restored state: pending foreground/orphan deletions and dangling dependents go on
        if (object.metadata.deletionTimestamp || object.metadata.ownerReferences?.length)
          this.enqueue(object.metadata.uid!);
      }
    }
    return this.deps.store.subscribeAll((e) => this.onEvent(e));
  }

  private onEvent(e: StoreEvent): void {
    this.index.observe(e);
    const uid = e.object.metadata.uid!;
    if (e.type === 'DELETED')
      for (const dependent of this.index.dependents.get(uid) ?? []) this.enqueue(dependent);
    else this.enqueue(uid);
    // a dependent that went away may unblock its foreground-deleting owners
    for (const ref of e.object.metadata.ownerReferences ?? []) this.enqueue(ref.uid);
  }

  private enqueue(uid: string): void {
    this.queue.add(uid);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    const uids = [...this.queue];
    this.queue.clear();
    for (const uid of uids) {
      try {
        this.process(uid);
      } catch {
        // a concurrent write won: the next event of the object brings it back
      }
    }
  }

  private lookup(uid: string): { def: ResourceDef; object: KubeObject } | undefined {
    const at = this.index.where.get(uid);
    const def = at && this.deps.defOf(at.resource);
    const object = at && this.deps.store.get(at.resource, at.namespace, at.name);
    return def && object ? { def, object } : undefined;
  }

  private process(uid: string): void {
    const found = this.lookup(uid);
    if (!found) return;
    const finalizers = found.object.metadata.finalizers ?? [];
    if (found.object.metadata.deletionTimestamp && finalizers.includes(ORPHAN_FINALIZER))
      this.orphan(found.def, found.object);
    else if (found.object.metadata.deletionTimestamp && finalizers.includes(FOREGROUND_FINALIZER))
      this.foreground(found.def, found.object);
    if ((found.object.metadata.ownerReferences ?? []).length) this.checkOwners(found.def, found.object);
  }

  private update(def: ResourceDef, object: KubeObject): void {
    this.deps.ops.update(
      { def, namespace: object.metadata.namespace, name: object.metadata.name },
      object,
      WRITE,
    );
  }

  private dependentsOf(uid: string): { def: ResourceDef; object: KubeObject }[] {
    return [...(this.index.dependents.get(uid) ?? [])].flatMap((d) => this.lookup(d) ?? []);
  }

  /** Orphan policy: drop the owner's reference from every dependent, then let the owner go. */
  private orphan(def: ResourceDef, owner: KubeObject): void {
    const uid = owner.metadata.uid!;
    for (const d of this.dependentsOf(uid)) {
      const ownerReferences = (d.object.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      this.update(d.def, { ...d.object, metadata: { ...d.object.metadata, ownerReferences } });
    }
    this.removeFinalizer(def, owner, ORPHAN_FINALIZER);
  }

  /** Foreground policy: delete the dependents; the owner goes when none blocks it any more. */
  private foreground(def: ResourceDef, owner: KubeObject): void {
    const uid = owner.metadata.uid!;
    let blocking = 0;
    for (const d of this.dependentsOf(uid)) {
      if (!d.object.metadata.deletionTimestamp) this.deleteObject(d.def, d.object, 'Foreground');
      const ref = (d.object.metadata.ownerReferences ?? []).find((r) => r.uid === uid);
      if (ref?.blockOwnerDeletion && this.lookup(d.object.metadata.uid!)) blocking++;
    }
    if (blocking === 0) this.removeFinalizer(def, owner, FOREGROUND_FINALIZER);
  }

  /** A dependent whose owners are all gone is deleted; references to owners that are gone are dropped. */
  private checkOwners(def: ResourceDef, dependent: KubeObject): void {
    const refs = dependent.metadata.ownerReferences ?? [];
    const live = refs.filter((r) => this.ownerExists(r));
    if (live.length === refs.length) return;
    if (live.length === 0) {
      if (!dependent.metadata.deletionTimestamp) this.deleteObject(def, dependent, 'Background');
      return;
    }
    this.update(def, { ...dependent, metadata: { ...dependent.metadata, ownerReferences: live } });
  }

  private ownerExists(ref: OwnerReference): boolean {
    return this.lookup(ref.uid) !== undefined;
  }

  private deleteObject(def: ResourceDef, object: KubeObject, propagationPolicy: PropagationPolicy): void {
    const { namespace, name, uid } = object.metadata;
    this.deps.ops.delete(
      { def, namespace, name },
      { dryRun: false, propagationPolicy, preconditions: { uid } },
    );
  }

  private removeFinalizer(def: ResourceDef, object: KubeObject, finalizer: string): void {
    const finalizers = (object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.update(def, { ...object, metadata: { ...object.metadata, finalizers } });
  }
}
