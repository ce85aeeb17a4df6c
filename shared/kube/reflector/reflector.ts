/**
 * One list-then-watch loop (client-go's Reflector, trimmed): list, watch from the list's
 * resourceVersion; when the watch drops, watch again from the last resourceVersion seen (backing
 * off while the server is away); when the server says 410 Expired, list again. What a list hands
 * over depends on the store (./store.ts):
 * - `adapter` (the ApiServerSource, as knative/eventing pkg/adapter/apiserver/adapter.go runs
 *   client-go's reflector over delegate.go's store): nothing. The list only gives the
 *   resourceVersion to watch from, so what exists at start, and what changed while the watch was
 *   away before a re-list, is never sent; each watch event is one change.
 * - `informer` (default; the embedded landscape's own controllers): the differences to what was
 *   known (adds, updates, and deletes with the last state known), so no change is lost.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { isGone } from '../index.js';
import { KeepAliveAgents } from '../http.js';
import type { Logger } from '../../log/index.js';
import type { Accept } from './store.js';
import {
  changeForWatchEvent,
  changesForRelist,
  changesForWatchEvent,
  isExpiredStatus,
  objectKey,
} from './store.js';

import { collectionPath, listAll, watchOnce } from './listwatch.js';
import type { WatchLine } from './listwatch.js';
import type { Change, ResolvedKind, Sleep, WatchedObject } from './types.js';

export interface ReflectorOptions {
  kubeConfig: KubeConfig;
  kind: ResolvedKind;
  /** Undefined: every namespace (and always for cluster-scoped kinds). */
  namespace?: string;
  labelSelector: string;
  accept: Accept;
  /** Called in order, synchronously, with each batch of changes. */
  onChanges: (changes: Change[]) => void;
  /** `informer` (default) or `adapter` (Knative's ApiServerSource store: lists hand over nothing). */
  store?: 'informer' | 'adapter';
  sleep: Sleep;
  logger: Logger;
  /** Server-side watch timeout; the watch is renewed from the last resourceVersion. Default 300. */
  watchTimeoutSeconds?: number;
  /** Socket idle limit of a watch; default 90 s (bookmarks come about every minute). */
  idleTimeoutMs?: number;
  /** Reconnect backoff: first delay and cap; default 100 ms and 5 s. */
  backoff?: { initialMs: number; maxMs: number };
}

export class Reflector {
  private readonly known = new Map<string, WatchedObject>();
  private resourceVersion = '';
  private needList = true;
  private readonly stopper = new AbortController();
  private current: AbortController | undefined;
  private failures = 0;
  private loop: Promise<void> | undefined;
  private markReady: (() => void) | undefined;
  /**
   * One keep-alive connection for the lists and watches in turn, as client-go's transport keeps
   * its connection across a reflector's re-watches: a watch the server ends (its timeoutSeconds)
   * leaves the connection open for the next one, instead of a TLS handshake (and a TLS context)
   * per watch. A watch this side aborts closes its connection.
   */
  private readonly agents = new KeepAliveAgents();
  /** Resolves after the first list has been handed over. */
  readonly ready: Promise<void>;

  constructor(private readonly o: ReflectorOptions) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
  }

  get path(): string {
    return collectionPath(this.o.kind, this.o.kind.namespaced ? this.o.namespace : undefined);
  }

  /** What the source has reported and not seen deleted (a copy; always empty for the adapter store). */
  snapshot(): WatchedObject[] {
    return [...this.known.values()];
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Re-list now (e.g. a namespace's labels changed, so `accept` answers differently). */
  relist(): void {
    this.needList = true;
    this.current?.abort();
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    this.current?.abort();
    await this.loop;
    this.agents.destroy();
  }

  private get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.needList) {
        try {
          await this.list();
          this.failures = 0;
        } catch (err) {
          await this.failed(err);
          continue;
        }
      }
      const current = new AbortController();
      this.current = current;
      try {
        await this.watch(current);
        this.failures = 0;
      } catch (err) {
        if (!current.signal.aborted) await this.failed(err); // aborted on purpose: re-list asked
      }
    }
  }

  private async failed(err: unknown): Promise<void> {
    if (this.stopped) return;
    if (isGone(err)) {
      this.o.logger.info('resourceVersion expired: re-listing', {
        path: this.path,
        resourceVersion: this.resourceVersion,
      });
      this.needList = true;
      return;
    }
    this.failures++;
    const { initialMs, maxMs } = this.o.backoff ?? { initialMs: 100, maxMs: 5000 };
    const delay = Math.min(maxMs, initialMs * 2 ** Math.min(this.failures - 1, 16));
    this.o.logger.warn('list/watch failed: retrying', {
      path: this.path,
      error: err instanceof Error ? err.message : String(err),
      retryInMs: delay,
    });
    await this.o.sleep(delay, this.stopper.signal);
  }

  private async list(): Promise<void> {
    const listed = await listAll(
      this.o.kubeConfig,
      this.o.kind,
      this.path,
      this.o.labelSelector,
      this.agents,
    );
    if (this.stopped) return;
    this.needList = false;
    this.resourceVersion = listed.resourceVersion;
    // the adapter's store.Replace is a no-op (delegate.go): nothing is sent for what a list finds
    if (!this.adapter) this.hand(changesForRelist(this.known, listed.items, this.o.accept));
    this.markReady?.();
  }

  private get adapter(): boolean {
    return this.o.store === 'adapter';
  }

  private changesFor(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: WatchedObject): Change[] {
    if (!this.adapter) return changesForWatchEvent(this.known, type, object, this.o.accept);
    const change = changeForWatchEvent(type, object, this.o.accept);
    return change ? [change] : [];
  }

  private hand(changes: Change[]): void {
    for (const c of this.adapter ? [] : changes) {
      if (c.action === 'delete') this.known.delete(objectKey(c.object));
      else this.known.set(objectKey(c.object), c.object);
    }
    if (changes.length > 0) this.o.onChanges(changes);
  }

  private async watch(current: AbortController): Promise<void> {
    const signal = AbortSignal.any([this.stopper.signal, current.signal]);
    await watchOnce(this.o.kubeConfig, {
      agents: this.agents,
      path: this.path,
      query: {
        resourceVersion: this.resourceVersion,
        labelSelector: this.o.labelSelector,
        allowWatchBookmarks: true,
        timeoutSeconds: this.o.watchTimeoutSeconds ?? 300,
      },
      signal,
      idleTimeoutMs: this.o.idleTimeoutMs ?? 90_000,
      onLine: (line) => this.onLine(line, current),
    });
  }

  private onLine(line: WatchLine, current: AbortController): void {
    if (current.signal.aborted) return;
    const object = line.object as WatchedObject;
    if (line.type === 'ERROR') {
      this.o.logger.info('watch error event: re-listing', {
        path: this.path,
        expired: isExpiredStatus(line.object),
        status: line.object,
      });
      this.relist();
      return;
    }
    const rv = object?.metadata?.resourceVersion;
    if (line.type === 'ADDED' || line.type === 'MODIFIED' || line.type === 'DELETED') {
      const full = { apiVersion: this.o.kind.apiVersion, kind: this.o.kind.kind, ...object };
      this.hand(this.changesFor(line.type, full));
    }
    if (rv) this.resourceVersion = rv;
  }
}
