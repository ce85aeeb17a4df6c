/**
 * Shoots per seed, kept incrementally in Redis so a scheduling decision never lists every Shoot
 * (specs/seed-management.md "Beyond upstream"). Two hashes under one hash tag (one slot on a Redis
 * Cluster, so the Lua scripts of ./usage-scripts.ts may touch both):
 *
 * - `landscape:schedule-shoot:{usage}:counts`: seed name → shoots counted there;
 * - `landscape:schedule-shoot:{usage}:shoots`: `<namespace>/<name>` → the shoot's record (the seeds
 *   it counts on, a pending reservation, the resourceVersion last applied).
 *
 * Both carry the marker field `.built`. When one is missing (Redis flushed or restarted, a key
 * deleted) the first caller takes the lock `landscape:schedule-shoot:{usage}:rebuild` and rebuilds
 * both from one paged list of every Shoot; the others wait for the marker. Every other operation
 * is one script run: O(1) per Shoot event; a decision reads the counts of the seeds it may pick
 * (countsOf), not every count: each instance keeps a copy of the counts it has read, brought up to
 * date in one script run from the change log's tail (the seeds changed since), so that a decision
 * sends only the seeds it has never read and gets back only what changed — the same counts an
 * HMGET of all of them would have read at that moment.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Shoot } from '../../shared/api/core.js';
import { GVK } from '../../shared/api/gvk.js';
import {
  acquireLease,
  evalScript,
  guardRedis,
  keyspace,
  releaseLease,
  type Redis,
} from '../../shared/redis/index.js';
import type { KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { usageSeeds } from './scheduler.js';
import { FUNCTION_NAME } from './config.js';
import { COUNTS_SINCE, FORGET, REBUILD, RELEASE, RESERVE, SYNC } from './usage-scripts.js';

export const KEYS = keyspace(FUNCTION_NAME);
export const COUNTS_KEY = KEYS.key('{usage}', 'counts');
export const RECORDS_KEY = KEYS.key('{usage}', 'shoots');
export const CHANGES_KEY = KEYS.key('{usage}', 'changes');
const USAGE_KEYS = [COUNTS_KEY, RECORDS_KEY, CHANGES_KEY] as const;
export const REBUILD_LOCK_KEY = KEYS.key('{usage}', 'rebuild');
/** The field both hashes carry once built (no seed or shoot key starts with a dot). */
export const BUILT_MARK = '.built';
/** The records hash's field with the epoch of the last rebuild (./usage-scripts.ts). */
export const EPOCH_FIELD = '.epoch';

const LIST_PAGE = 500;
const WAIT_STEP_MS = 100;

/** `<namespace>/<name>`: a shoot's field in the records hash. */
export function shootKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function keyOfShoot(shoot: Shoot): string {
  return shootKey(shoot.metadata?.namespace ?? '', shoot.metadata?.name ?? '');
}

export type ReserveResult =
  { result: 'ok'; count: number } | { result: 'full'; count: number } | { result: 'busy'; seed: string };

export interface UsageStore {
  /** Applies the shoot as read (its usage seeds, the end of its reservation when bound). */
  sync(shoot: Shoot): Promise<'ok' | 'stale'>;
  /** The shoot is gone: it counts nowhere. */
  forget(key: string): Promise<void>;
  /** Counts the shoot on `seed` if the seed has room (`allocatable` < 0: no limit). */
  reserve(key: string, seed: string, allocatable: number): Promise<ReserveResult>;
  /** Drops the shoot's reservation of `seed`; whether it had one. */
  release(key: string, seed: string): Promise<boolean>;
  /** Shoots per seed (seeds without shoots are absent). */
  counts(): Promise<Record<string, number>>;
  /** Shoots on the named seeds only (one script run against the instance's copy; a seed without shoots counts 0). */
  countsOf(seeds: readonly string[]): Promise<Record<string, number>>;
  /** Rebuilds from the API when the counts are missing (under the lock); true when this call rebuilt. */
  ensure(): Promise<boolean>;
}

export interface UsageStoreDeps {
  client: KubeClient;
  redis: () => Promise<Redis>;
  now: () => number;
  /** Unique per instance: the rebuild lock's value. */
  owner: string;
  log: Logger;
  sleep?: (ms: number) => Promise<void>;
}

export interface UsageStoreOptions {
  reservationTtlMs: number;
  rebuildTimeoutMs: number;
}

interface ListedShoot {
  s: string[];
  v: string;
  b: 0 | 1;
}

function replyStrings(reply: unknown): string[] {
  return Array.isArray(reply) ? reply.map((r) => String(r)) : [String(reply)];
}

async function isBuilt(redis: Redis): Promise<boolean> {
  const [counts, records, epoch] = await guardRedis(redis, () =>
    Promise.all([
      redis.hexists(COUNTS_KEY, BUILT_MARK),
      redis.hexists(RECORDS_KEY, BUILT_MARK),
      redis.hexists(RECORDS_KEY, EPOCH_FIELD),
    ]),
  );
  // a store without an epoch was built by an earlier version (no change log): rebuilt once
  return counts === 1 && records === 1 && epoch === 1;
}

/** Every Shoot, page by page, as the rebuild script takes them. */
async function listShoots(client: KubeClient): Promise<Record<string, ListedShoot>> {
  const out: Record<string, ListedShoot> = {};
  let token: string | undefined;
  do {
    const page = await client.list<Shoot>(GVK.Shoot, undefined, { limit: LIST_PAGE, continue: token });
    for (const shoot of page.items) {
      out[keyOfShoot(shoot)] = {
        s: usageSeeds(shoot),
        v: shoot.metadata?.resourceVersion ?? '',
        b: shoot.spec.seedName ? 1 : 0,
      };
    }
    token = page.metadata?.continue || undefined;
  } while (token);
  return out;
}

/** An instance's copy of the counts it has read, as of the change log's `gen` (entry `token`) in `epoch`. */
interface CountsCopy {
  epoch: string;
  gen: number;
  token: string;
  counts: Map<string, number>;
  /** When its counts were last all read (ms). */
  at: number;
}

/** How long a copy's counts are trusted before every seed is read again. */
export const COPY_TTL_MS = 30_000;

class RedisUsageStore implements UsageStore {
  private readonly sleep: (ms: number) => Promise<void>;
  private copy: CountsCopy = { epoch: '', gen: 0, token: '', counts: new Map(), at: 0 };
  private countsQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: UsageStoreDeps,
    private readonly opts: UsageStoreOptions,
  ) {
    this.sleep = deps.sleep ?? ((ms): Promise<void> => delay(ms));
  }

  /** Runs a script over both hashes; rebuilds once when they are missing. */
  private async run(script: string, args: readonly (string | number)[]): Promise<string[]> {
    const redis = await this.deps.redis();
    for (let i = 0; i < 2; i++) {
      const reply = replyStrings(await guardRedis(redis, () => evalScript(redis, script, USAGE_KEYS, args)));
      if (reply[0] !== 'miss') return reply;
      await this.ensure();
    }
    throw new Error('the shoot usage counts are still missing after a rebuild');
  }

  async sync(shoot: Shoot): Promise<'ok' | 'stale'> {
    const args = [
      keyOfShoot(shoot),
      shoot.metadata?.resourceVersion ?? '',
      this.deps.now(),
      this.opts.reservationTtlMs,
      shoot.spec.seedName ? '1' : '0',
      ...usageSeeds(shoot),
    ];
    const [result] = await this.run(SYNC, args);
    return result === 'stale' ? 'stale' : 'ok';
  }

  async forget(key: string): Promise<void> {
    await this.run(FORGET, [key]);
  }

  async reserve(key: string, seed: string, allocatable: number): Promise<ReserveResult> {
    const args = [key, seed, allocatable, this.deps.now(), this.opts.reservationTtlMs];
    const [result, detail = ''] = await this.run(RESERVE, args);
    if (result === 'busy') return { result, seed: detail };
    return { result: result === 'full' ? 'full' : 'ok', count: Number(detail) };
  }

  async release(key: string, seed: string): Promise<boolean> {
    const [result] = await this.run(RELEASE, [key, seed]);
    return result === 'ok';
  }

  async counts(): Promise<Record<string, number>> {
    const redis = await this.deps.redis();
    for (let i = 0; i < 2; i++) {
      const all = await guardRedis(redis, () => redis.hgetall(COUNTS_KEY));
      if (BUILT_MARK in all) {
        delete all[BUILT_MARK];
        return Object.fromEntries(Object.entries(all).map(([seed, n]) => [seed, Number(n)]));
      }
      await this.ensure();
    }
    throw new Error('the shoot usage counts are still missing after a rebuild');
  }

  countsOf(seeds: readonly string[]): Promise<Record<string, number>> {
    // one at a time per instance: a reply applied after a newer one would set counts back
    const next = this.countsQueue.then(() => this.readCounts(seeds));
    this.countsQueue = next.catch(() => undefined);
    return next;
  }

  private async readCounts(seeds: readonly string[]): Promise<Record<string, number>> {
    const now = this.deps.now();
    // an old copy reads every seed again: whatever it may have missed, it holds for COPY_TTL_MS at most
    if (now - this.copy.at >= COPY_TTL_MS) this.copy = { ...this.copy, counts: new Map(), at: now };
    for (let i = 0; i < 3; i++) {
      const copy = this.copy;
      const unknown = seeds.filter((seed) => !copy.counts.has(seed));
      const reply = await this.run(COUNTS_SINCE, [copy.epoch, copy.gen, copy.token, ...unknown]);
      if (reply[0] === 'reset') {
        this.copy = { epoch: reply[1], gen: Number(reply[2]), token: reply[3], counts: new Map(), at: now };
        continue;
      }
      copy.gen = Number(reply[2]);
      copy.token = reply[3];
      const changed = Number(reply[4]);
      let at = 5;
      for (const end = at + 2 * changed; at < end; at += 2) copy.counts.set(reply[at], Number(reply[at + 1]));
      for (const seed of unknown) copy.counts.set(seed, Number(reply[at++]));
      const out: Record<string, number> = {};
      for (const seed of seeds) out[seed] = copy.counts.get(seed) ?? 0;
      return out;
    }
    throw new Error('the shoot usage counts changed epoch on every read');
  }

  async ensure(): Promise<boolean> {
    const redis = await this.deps.redis();
    const deadline = this.deps.now() + this.opts.rebuildTimeoutMs;
    while (!(await isBuilt(redis))) {
      if (await this.tryRebuild(redis)) return true;
      if (this.deps.now() >= deadline)
        throw new Error('timed out waiting for another replica to rebuild the shoot usage counts');
      await this.sleep(WAIT_STEP_MS);
    }
    return false;
  }

  /** Rebuilds under the lock; false when another replica holds it. */
  private async tryRebuild(redis: Redis): Promise<boolean> {
    const { owner, log } = this.deps;
    const got = await guardRedis(redis, () =>
      acquireLease(redis, REBUILD_LOCK_KEY, owner, this.opts.rebuildTimeoutMs),
    );
    if (!got) return false;
    try {
      if (await isBuilt(redis)) return true;
      const started = this.deps.now();
      const shoots = await listShoots(this.deps.client);
      const now = this.deps.now();
      await guardRedis(redis, () =>
        evalScript(redis, REBUILD, USAGE_KEYS, [
          JSON.stringify(shoots),
          now,
          this.opts.reservationTtlMs,
          randomUUID(),
        ]),
      );
      log.info('rebuilt the shoot usage counts from the API', {
        shoots: Object.keys(shoots).length,
        durationMs: now - started,
      });
      return true;
    } finally {
      await releaseLease(redis, REBUILD_LOCK_KEY, owner);
    }
  }
}

export function createUsageStore(deps: UsageStoreDeps, opts: UsageStoreOptions): UsageStore {
  return new RedisUsageStore(deps, opts);
}
