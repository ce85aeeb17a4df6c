/**
 * The Seeds a decision reads, from a cache in Redis, so that a decision does not list every Seed
 * (at 10,000 Seeds one list is ~23 MiB of JSON). gardener-scheduler decides from an informer
 * cache; this is such a cache for replicas that come and go: in Redis (shared by every replica,
 * ./seed-cache-scripts.ts) and, per instance, a copy brought up to date from Redis with one round
 * trip per decision (the seeds changed since the copy's `gen`).
 *
 * Staleness rule: the same bound as the per-instance Seed list it replaces (seedCacheTtl, 2 s by
 * default), without listing every Seed each time:
 *
 * 1. A decision uses the cache only while its last list began less than `ttlMs` ago. Else the
 *    deciding instance lists first, under a lock in Redis: the Seeds' metadata only (name and
 *    resourceVersion, a fraction of the Seeds' size), one round trip to Redis for which
 *    resourceVersions the cache lacks, then a read of each such Seed (more than MAX_READS: a full
 *    list instead). The list drops what it did not show unless written after it began. A read
 *    older than the cache's copy (resourceVersion) never overwrites it. The other replicas decide
 *    from the cache while one lists: their view is then at most `ttlMs` plus that list's duration
 *    old. Idle, nothing lists.
 * 2. No cache in Redis (never built, Redis flushed or restarted: no epoch) means a full list of
 *    the Seeds before the decision; when another replica holds the lock meanwhile, this decision
 *    lists the Seeds itself, without the cache.
 *
 * No Seed events: Knative's ApiServerSource would deliver them (the seedmanagement source watches
 * Seeds), but it sends nothing for the Seeds that exist when it starts or that a re-list finds and
 * loses what happens while it reconnects (knative/eventing pkg/adapter/apiserver/delegate.go), so
 * the list above would still be due every seedCacheTtl; and every Seed status write would wake
 * schedule-shoot, keeping a replica warm for nothing.
 *
 * Capacity stays exact whatever the cache shows: the reservation checks the counts in Redis. The
 * list a decision gets is in the API server's order (by name) and is the same array while nothing
 * changed (./scheduler-fast.ts indexes it once).
 */
import { randomUUID } from 'node:crypto';
import type { Seed } from '../../shared/api/core.js';
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
import { forEachPage, getOptional, listAll } from '../../shared/kube/io.js';
import type { Logger } from '../../shared/log/index.js';
import { FUNCTION_NAME } from './config.js';
import { DROP, INIT, PRUNE, PUT, SINCE, STALE } from './seed-cache-scripts.js';

const KEYS = keyspace(FUNCTION_NAME);
export const SEED_CACHE_KEYS = [
  KEYS.key('{seeds}', 'meta'),
  KEYS.key('{seeds}', 'objects'),
  KEYS.key('{seeds}', 'versions'),
  KEYS.key('{seeds}', 'changes'),
] as const;
export const SEED_LIST_LOCK_KEY = KEYS.key('{seeds}', 'list');
/** A metadata list that finds more changed Seeds than this reads them with a full list instead of one by one. */
export const MAX_READS = 50;

export interface SeedCacheDeps {
  client: KubeClient;
  redis: () => Promise<Redis>;
  now: () => number;
  /** Unique per instance: the list lock's value. */
  owner: string;
  log: Logger;
}

export interface SeedCacheOptions {
  /** How old the last full list may be for a decision to use the cache (seedCacheTtl). */
  ttlMs: number;
  /** How long one full list may hold the lock. */
  listTimeoutMs: number;
}

export interface SeedCache {
  /** Every Seed by name, as a decision sees them (see the staleness rule). */
  seeds(): Promise<Seed[]>;
}

const nameOf = (seed: Seed): string => seed.metadata?.name ?? '';
const byName = (a: Seed, b: Seed): number => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0);

/** The Seed as the cache keeps it (managedFields are large and no decision reads them). */
export function cachedForm(seed: Seed): Seed {
  if (!seed.metadata?.managedFields) return seed;
  const { managedFields: _dropped, ...metadata } = seed.metadata;
  return { ...seed, metadata };
}

/** An instance's copy: the seeds by name and, built when asked, the list in name order. */
interface Copy {
  epoch: string;
  gen: number;
  listedAt: number | undefined;
  seeds: Map<string, Seed>;
  list: Seed[] | undefined;
}

type SinceReply = string[];

/** What a list saw: every name, how many Seeds it wrote, whether it read the whole Seeds. */
interface Listed {
  names: string[];
  written: number;
  full: boolean;
}

function listedAtOf(text: string | undefined): number | undefined {
  return text === undefined || text === '' ? undefined : Number(text);
}

/** Applies pairs of (name, JSON or '') from `at` on to the copy. */
function applyPairs(copy: Copy, reply: SinceReply, at: number): void {
  for (let i = at; i + 1 < reply.length; i += 2) {
    const [name, json] = [reply[i], reply[i + 1]];
    if (json === '') copy.seeds.delete(name);
    else copy.seeds.set(name, JSON.parse(json) as Seed);
    copy.list = undefined;
  }
}

class RedisSeedCache implements SeedCache {
  private copy: Copy = { epoch: '', gen: 0, listedAt: undefined, seeds: new Map(), list: undefined };
  /** One catch-up at a time per instance: concurrent decisions share it. */
  private inflight: Promise<Seed[]> | undefined;

  constructor(
    private readonly deps: SeedCacheDeps,
    private readonly opts: SeedCacheOptions,
  ) {}

  seeds(): Promise<Seed[]> {
    this.inflight ??= this.current().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /** Reads the seed into the cache (drops it when gone). */
  private async readSeed(name: string): Promise<void> {
    const seed = await getOptional<Seed>(this.deps.client, GVK.Seed, undefined, name);
    const reply = seed
      ? await this.run(PUT, [name, seed.metadata?.resourceVersion ?? '', JSON.stringify(cachedForm(seed))])
      : await this.run(DROP, [name]);
    if (reply[0] === 'miss') this.deps.log.debug('the seed cache is gone; the next decision lists', { name });
  }

  private async run(script: string, args: readonly (string | number)[]): Promise<string[]> {
    const redis = await this.deps.redis();
    const reply = await guardRedis(redis, () => evalScript(redis, script, SEED_CACHE_KEYS, args));
    return (reply as (string | number | null)[]).map((r) => (r === null ? '' : String(r)));
  }

  /** Brings the copy up to date; lists first when the cache is missing or its list too old. */
  private async current(): Promise<Seed[]> {
    if (!(await this.catchUp())) {
      if (!(await this.relist())) return this.listDirect();
      await this.catchUp();
    } else if (this.tooOld()) {
      // another replica listing meanwhile: decide from the cache (its last list) until it is done
      if (await this.relist()) await this.catchUp();
      else if (this.copy.listedAt === undefined) return this.listDirect();
    }
    return this.list();
  }

  private tooOld(): boolean {
    const at = this.copy.listedAt;
    return at === undefined || this.deps.now() - at >= this.opts.ttlMs;
  }

  /** false when Redis has no cache. */
  private async catchUp(): Promise<boolean> {
    const reply = await this.run(SINCE, [this.copy.epoch, this.copy.gen]);
    if (reply[0] === 'miss') return false;
    if (reply[0] === 'reload') {
      this.copy = {
        epoch: reply[1],
        gen: Number(reply[2]),
        listedAt: listedAtOf(reply[3]),
        seeds: new Map(),
        list: undefined,
      };
      applyPairs(this.copy, reply, 4);
      return true;
    }
    this.copy.gen = Number(reply[1]);
    this.copy.listedAt = listedAtOf(reply[2]);
    applyPairs(this.copy, reply, 3);
    return true;
  }

  private list(): Seed[] {
    this.copy.list ??= [...this.copy.seeds.values()].sort(byName);
    return this.copy.list;
  }

  /** Every Seed from the API, without the cache (another replica is building it). */
  private async listDirect(): Promise<Seed[]> {
    return (await listAll<Seed>(this.deps.client, GVK.Seed)).sort(byName);
  }

  /** A list into the cache under the lock; false when another replica holds it. */
  private async relist(): Promise<boolean> {
    const { owner, log } = this.deps;
    const redis = await this.deps.redis();
    const got = await guardRedis(redis, () =>
      acquireLease(redis, SEED_LIST_LOCK_KEY, owner, this.opts.listTimeoutMs),
    );
    if (!got) return false;
    try {
      const startedAt = this.deps.now();
      const [, gen, listedAt] = await this.run(INIT, [randomUUID()]);
      const listed = (listedAt !== '' && (await this.listChanged())) || (await this.listFull());
      await this.prune(gen, startedAt, listed);
      log.debug('listed the Seeds into the seed cache', {
        seeds: listed.names.length,
        written: listed.written,
        full: listed.full,
        durationMs: this.deps.now() - startedAt,
      });
      return true;
    } finally {
      await releaseLease(redis, SEED_LIST_LOCK_KEY, owner);
    }
  }

  /** The end of a list: the seeds it did not show dropped (their names sent only when some may be). */
  private async prune(gen: string, startedAt: number, listed: Listed): Promise<void> {
    const head = [gen, startedAt, listed.names.length];
    if (listed.written === 0 && (await this.run(PRUNE, head))[0] === 'ok') return;
    await this.run(PRUNE, [...head, ...listed.names]);
  }

  /** Every Seed, written where newer than the cache's copy. */
  private async listFull(): Promise<Listed> {
    const names: string[] = [];
    let written = 0;
    await forEachPage(
      (page) => this.deps.client.list<Seed>(GVK.Seed, undefined, page),
      async (items) => {
        names.push(...items.map(nameOf));
        written += await this.putNewer(items);
      },
    );
    return { names, written, full: true };
  }

  /**
   * The Seeds' metadata, then a read of each Seed whose resourceVersion the cache lacks;
   * undefined (a full list is due) when more than MAX_READS are. Only the seeds whose version
   * differs from the instance's copy are asked about: the copy is the cache as of the catch-up
   * before the list, and under the list lock nobody else writes the cache (a copy that lags only
   * asks about more); when the cache holds another number of seeds than listed (a key lost) every
   * listed seed is asked about.
   */
  private async listChanged(): Promise<Listed | undefined> {
    const names: string[] = [];
    const all: string[] = [];
    const differing: string[] = [];
    const known = this.copy.seeds;
    await forEachPage(
      (page) => this.deps.client.listMetadata(GVK.Seed, undefined, page),
      (items) => {
        for (const m of items) {
          const name = m.metadata.name ?? '';
          const version = m.metadata.resourceVersion ?? '';
          names.push(name);
          all.push(name, version);
          if (known.get(name)?.metadata?.resourceVersion !== version) differing.push(name, version);
        }
      },
    );
    // one round trip for the seeds the copy does not have at the listed version; every seed when
    // the cache does not hold as many seeds as listed (keys lost: the copy is no evidence then)
    let reply = await this.run(STALE, [names.length, ...differing]);
    if (reply[0] === 'short') reply = await this.run(STALE, ['', ...all]);
    const changed = reply.slice(1);
    if (changed.length > MAX_READS) return undefined;
    for (const name of changed) await this.readSeed(name);
    return { names, written: changed.length, full: false };
  }

  /** Writes the seeds of a page whose resourceVersion the cache does not have; how many. */
  private async putNewer(items: readonly Seed[]): Promise<number> {
    const versions = items.flatMap((s) => [nameOf(s), s.metadata?.resourceVersion ?? '']);
    const [, ...stale] = await this.run(STALE, ['', ...versions]);
    if (stale.length === 0) return 0;
    const wanted = new Set(stale);
    const args = items
      .filter((s) => wanted.has(nameOf(s)))
      .flatMap((s) => [nameOf(s), s.metadata?.resourceVersion ?? '', JSON.stringify(cachedForm(s))]);
    await this.run(PUT, args);
    return stale.length;
  }
}

export function createSeedCache(deps: SeedCacheDeps, opts: SeedCacheOptions): SeedCache {
  return new RedisSeedCache(deps, opts);
}
