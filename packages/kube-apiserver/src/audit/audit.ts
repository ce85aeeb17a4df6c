/**
 * An off-by-default audit log of one cluster's writes (`ApiServerOptions.audit`): every change its
 * store makes — creates, updates, patches, deletes, status writes, and what the in-process
 * controllers (GC, namespace deletion, workload simulation) change — with the user of the HTTP
 * request that caused it.
 *
 * The user is carried with AsyncLocalStorage: the server runs each authenticated request inside
 * `runAsUser`, so a store change made synchronously or after an await inside it carries the
 * user. The controllers' store subscriptions run outside any request (`outsideRequests`), so what
 * they do later (setImmediate, timers) carries no user even when a request set it off.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store, StoreEvent, StoreListener } from '../storage/store.js';
import type { KubeObject } from '../api/types.js';

export interface AuditRecord {
  /** 1, 2, ... per log. */
  seq: number;
  /** ms since epoch (Date.now). */
  time: number;
  cluster: string;
  /** The authenticated user of the HTTP request that caused it (admin token user name or system:serviceaccount:<ns>:<name>); undefined for in-process controllers. */
  user?: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** `<plural>` for the core group, `<plural>.<group>` otherwise (e.g. `pods`, `deployitems.landscaper.gardener.cloud`). */
  resource: string;
  namespace?: string;
  name: string;
  uid: string;
  /** The object before the change (MODIFIED, DELETED) and after it (ADDED, MODIFIED), as stored. */
  old?: KubeObject;
  object?: KubeObject;
}

export interface AuditOptions {
  /** Keep only these resources (same naming as `AuditRecord.resource`); default all. */
  resources?: readonly string[];
}

const requestContext = new AsyncLocalStorage<{ user?: string }>();

/** Runs `fn` (and what it awaits or schedules) as a request of `user`. */
export function runAsUser<T>(user: string, fn: () => T): T {
  return requestContext.run({ user }, fn);
}

/** The user of the request being served, if any. */
export function currentUser(): string | undefined {
  return requestContext.getStore()?.user;
}

/** Runs `fn` (and what it schedules) outside any request. */
export function outsideRequest<T>(fn: () => T): T {
  return requestContext.run({}, fn);
}

/**
 * The store as the in-process controllers see it: the same store, but every listener they
 * subscribe runs outside any request, so the work it does or schedules is not the request's.
 */
export function outsideRequests(store: Store): Store {
  const wrap =
    (listener: StoreListener): StoreListener =>
    (event) =>
      outsideRequest(() => listener(event));
  return new Proxy(store, {
    get(target, prop): unknown {
      if (prop === 'subscribeAll') return (l: StoreListener) => target.subscribeAll(wrap(l));
      if (prop === 'subscribe')
        return (resource: string, l: StoreListener, fromRV?: number) =>
          target.subscribe(resource, wrap(l), fromRV);
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `<plural>` or `<plural>.<group>` of a store key (`<group>/<plural>`). */
export function auditResource(storeKey: string): string {
  const slash = storeKey.indexOf('/');
  const group = storeKey.slice(0, slash);
  const plural = storeKey.slice(slash + 1);
  return group ? `${plural}.${group}` : plural;
}

export class AuditLog {
  private readonly kept: AuditRecord[] = [];
  private seq = 0;
  private readonly only?: ReadonlySet<string>;

  constructor(opts: AuditOptions = {}) {
    this.only = opts.resources ? new Set(opts.resources) : undefined;
  }

  records(): readonly AuditRecord[] {
    return this.kept;
  }

  /** Forgets the records so far (seq goes on counting). */
  clear(): void {
    this.kept.length = 0;
  }

  /** Records every change of `store` as changes of cluster `cluster`; returns the function that stops it. */
  attach(store: Store, cluster: string): () => void {
    return store.subscribeAll((event) => this.record(cluster, event));
  }

  private record(cluster: string, event: StoreEvent): void {
    const resource = auditResource(event.resource);
    if (this.only && !this.only.has(resource)) return;
    const { namespace, name, uid } = event.object.metadata;
    const rec: AuditRecord = {
      seq: ++this.seq,
      time: Date.now(),
      cluster,
      type: event.type,
      resource,
      name: name ?? '',
      uid: uid ?? '',
    };
    const user = currentUser();
    if (user !== undefined) rec.user = user;
    if (namespace !== undefined) rec.namespace = namespace;
    if (event.type !== 'ADDED') rec.old = structuredClone(event.previous ?? event.object);
    if (event.type !== 'DELETED') rec.object = structuredClone(event.object);
    this.kept.push(rec);
  }
}
