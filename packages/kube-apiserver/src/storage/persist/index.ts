/**
 * Persistence of one embedded cluster in `<dir>/<cluster>/`: a write-ahead log of every store
 * event, flushed (one write + fdatasync) at most `flushIntervalMs` after the event and on
 * close, compacted into `snapshot.json` when it grows past `compactBytes`.
 *
 * Durability: a clean close() loses nothing; kill -9 loses at most the events of the last
 * `flushIntervalMs` (plus the time one write + fdatasync takes).
 *
 * Resumption: the restored store continues at `state.resourceVersion`, and its history holds
 * every event after `state.compactedRV` (all events since the last compaction, plus the
 * `historyTail` events before it that the snapshot keeps), so a watch from any resourceVersion
 * ≥ compactedRV resumes without 410 — capped by the store's own historySize (Store.restore).
 *
 * Wiring (see README.md): open before the Cluster is built, restore the store from `state`,
 * start the controllers, attach(store), bootstrap only what is missing; close() on shutdown.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PersistedState, Store, StoreEvent } from '../store.js';
import { encodeEvent, encodeHeader, encodeSnapshot, LOG_FILE, SNAPSHOT_FILE } from './format.js';
import { acquireLock, fsyncDir, LogFile, writeFileAtomic } from './files.js';
import { loadClusterDir, type Loaded } from './load.js';
import { HistoryTail, type MirrorState } from './state.js';

export type { PersistedState } from '../store.js';

/** The timer the flushes are scheduled with (injectable for tests). */
export interface FlushTimer {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface PersistenceOptions {
  /** The data directory; this cluster's files go to `<dir>/<cluster>/`. */
  dir: string;
  cluster: string;
  /** Longest time an event waits in memory before it is written and fdatasync'ed. Default 1000. */
  flushIntervalMs?: number;
  /** Log size that triggers a compaction into the snapshot. Default 32 MiB. */
  compactBytes?: number;
  /** Events before the snapshot's resourceVersion kept in it for watch resumption. Default 1000. */
  historyTail?: number;
  /** Clock for the snapshot's savedAt. */
  now?: () => Date;
  timer?: FlushTimer;
  /** Failures of background flushes (default: console.error); flush() and close() reject with them too. */
  onError?: (e: Error) => void;
}

export interface Persistence {
  /** `<dir>/<cluster>`. */
  readonly clusterDir: string;
  /** The persisted state, or undefined when the directory held none (first start: bootstrap). */
  readonly state: PersistedState | undefined;
  /** What loading noticed and survived (a torn last line, an unfinished snapshot). */
  readonly warnings: string[];
  /** Subscribes to every event of the store (already restored from `state`, or empty). */
  attach(store: Store): void;
  /** Records one event (attach() calls it for each store event). */
  append(event: StoreEvent): void;
  /** Writes and fdatasyncs everything recorded so far (then compacts if the log is large). */
  flush(): Promise<void>;
  /** Writes a snapshot and empties the log now. */
  compact(): Promise<void>;
  /** Detaches, flushes, closes the log and releases the directory's lock. */
  close(): Promise<void>;
}

const DEFAULTS = { flushIntervalMs: 1000, compactBytes: 32 * 1024 * 1024, historyTail: 1000 };

const realTimer: FlushTimer = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export async function openPersistence(opts: PersistenceOptions): Promise<Persistence> {
  const clusterDir = join(opts.dir, opts.cluster);
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  const release = await acquireLock(join(clusterDir, 'lock'), `data directory ${clusterDir}`);
  try {
    const loaded = await loadClusterDir(clusterDir);
    const log = await LogFile.open(join(clusterDir, LOG_FILE), loaded.logLength);
    if (loaded.logEmpty) {
      await log.reset(encodeHeader(loaded.snapshot?.resourceVersion ?? 0));
      await fsyncDir(clusterDir);
    }
    const state: PersistedState | undefined = loaded.found
      ? {
          objects: loaded.mirror.objects(),
          resourceVersion: loaded.resourceVersion,
          history: loaded.history,
          compactedRV: loaded.compactedRV,
        }
      : undefined;
    return new ClusterPersistence(opts, clusterDir, log, release, loaded, state);
  } catch (e) {
    await release();
    throw e;
  }
}

class ClusterPersistence implements Persistence {
  private buffer: string[] = [];
  private timerHandle: unknown;
  private chain: Promise<void> = Promise.resolve();
  private unsubscribe?: () => void;
  private closing?: Promise<void>;
  private lastRV: number;
  /** resourceVersion of the newest snapshot (0: none). */
  private snapshotRV: number;
  private readonly tail: HistoryTail;
  private readonly mirror: MirrorState;
  readonly warnings: string[];
  private readonly timer: FlushTimer;
  private readonly settings: typeof DEFAULTS;

  constructor(
    private readonly opts: PersistenceOptions,
    readonly clusterDir: string,
    private readonly log: LogFile,
    private readonly release: () => Promise<void>,
    loaded: Loaded,
    readonly state: PersistedState | undefined,
  ) {
    this.mirror = loaded.mirror;
    this.warnings = loaded.warnings;
    this.settings = {
      flushIntervalMs: opts.flushIntervalMs ?? DEFAULTS.flushIntervalMs,
      compactBytes: opts.compactBytes ?? DEFAULTS.compactBytes,
      historyTail: opts.historyTail ?? DEFAULTS.historyTail,
    };
    this.timer = opts.timer ?? realTimer;
    this.lastRV = 0;
    this.snapshotRV = loaded.snapshot?.resourceVersion ?? 0;
    this.tail = new HistoryTail(this.settings.historyTail);
    if (state) {
      this.lastRV = state.resourceVersion;
      this.tail = new HistoryTail(this.settings.historyTail, state.compactedRV);
      for (const e of state.history) this.tail.push(e);
    }
  }

  attach(store: Store): void {
    if (this.closing) throw new Error(`persistence of ${this.clusterDir} is closed`);
    if (this.unsubscribe) throw new Error(`persistence of ${this.clusterDir} is attached already`);
    if (store.currentRV !== this.lastRV)
      throw new Error(
        `cannot attach persistence of ${this.clusterDir} at resourceVersion ${this.lastRV} to a store at ` +
          `resourceVersion ${store.currentRV}: restore the store from state first (and attach before any write)`,
      );
    this.unsubscribe = store.subscribeAll((e) => this.append(e));
  }

  append(e: StoreEvent): void {
    if (this.closing)
      throw new Error(`persistence of ${this.clusterDir} is closed: event rv ${e.rv} not kept`);
    if (e.rv <= this.lastRV)
      throw new Error(`event rv ${e.rv} is not after rv ${this.lastRV} (persistence of ${this.clusterDir})`);
    const replaced = this.mirror.apply(e);
    this.tail.push(e.type === 'ADDED' || e.previous ? e : { ...e, previous: replaced });
    this.buffer.push(encodeEvent(e));
    this.lastRV = e.rv;
    this.schedule();
  }

  flush(): Promise<void> {
    return this.enqueue(() => this.flushNow());
  }

  compact(): Promise<void> {
    return this.enqueue(async () => {
      await this.flushNow(false);
      await this.compactNow();
    });
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.unsubscribe?.();
    if (this.timerHandle !== undefined) this.timer.clear(this.timerHandle);
    this.timerHandle = undefined;
    try {
      await this.enqueue(() => this.flushNow());
    } finally {
      await this.log.close();
      await this.release();
    }
  }

  private schedule(): void {
    if (this.timerHandle !== undefined || this.closing) return;
    this.timerHandle = this.timer.set(() => {
      this.timerHandle = undefined;
      this.flush().catch((e: unknown) => {
        this.report(e as Error);
        this.schedule(); // what was not written is kept: try again
      });
    }, this.settings.flushIntervalMs);
  }

  private report(e: Error): void {
    if (this.opts.onError) this.opts.onError(e);
    else console.error(`persistence of ${this.clusterDir}: background flush failed:`, e);
  }

  /** File operations run one at a time, in call order; a failed one does not stop the next. */
  private enqueue(op: () => Promise<void>): Promise<void> {
    const run = this.chain.then(op);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async flushNow(mayCompact = true): Promise<void> {
    if (this.buffer.length) {
      const data = Buffer.from(this.buffer.join(''));
      this.buffer = [];
      await this.log.write(data);
    }
    await this.log.datasync();
    const large = this.log.size >= this.settings.compactBytes;
    if (mayCompact && large && this.lastRV > this.snapshotRV) await this.compactNow();
  }

  /**
   * Writes the snapshot at the newest recorded event, then empties the log. Events still in the
   * buffer that the snapshot holds are written to the new log anyway; loading skips them.
   */
  private async compactNow(): Promise<void> {
    const resourceVersion = this.lastRV;
    const text = encodeSnapshot(
      {
        cluster: this.opts.cluster,
        resourceVersion,
        compactedRV: this.tail.compactedRV,
        objects: this.mirror.objects(),
        history: this.tail.events(),
      },
      (this.opts.now ?? (() => new Date()))(),
    );
    await writeFileAtomic(join(this.clusterDir, SNAPSHOT_FILE), text);
    this.snapshotRV = resourceVersion;
    await this.log.reset(encodeHeader(resourceVersion));
  }
}
