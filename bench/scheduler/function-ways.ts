/**
 * The schedule-shoot function's own path around the decision, on a real redis-server, with the
 * Seeds read as the function reads them: from an API client that answers every Seed list (and
 * metadata list) with pages of JSON text (500 Seeds a page, as shared/kube/io.ts pages), parsed per
 * list (the client's share of a list; the API server's encoding and the HTTP transfer are not
 * here; the bench's Seeds carry no managedFields, which a real metadata list includes).
 *
 * - function: the function today (functions/schedule-shoot/schedule.ts): sync the event's shoot;
 *   the Seeds from the Seed cache in Redis (seed-cache.ts: one round trip for what changed; when
 *   the cache's last list is older than seedCacheTtl, 2 s by default, the deciding instance lists
 *   the Seeds' metadata first and reads the changed Seeds; the first list is a full one);
 *   decideReadingCounts (scheduler-counts.ts: one pass over the strategy's pool and the counts of
 *   its fitting seeds, from usage.ts countsOf: the instance's copy, brought up to date from the
 *   change log in one script run; when none has room one pass over every seed for the failing
 *   stage);
 *   reserve; sync the bound shoot.
 * - function-before: the function as it was before (commit 298b53b): the Seeds listed per
 *   instance at most every seedCacheTtl (2 s) and reused meanwhile (cachedSeeds), every count read
 *   (HGETALL), decideSchedule over every Seed; the same scripts around it.
 *
 * Each way has a Redis database of its own (the keys are the function's). Neither reads the Shoot
 * or the CloudProfile from the API, writes the binding or the Event: the same for both, and what
 * upstream pays too.
 */
import { Redis } from 'ioredis';
import type { Seed, Shoot } from '../../shared/api/core.js';
import type { KubeClient, ListOptions } from '../../shared/kube/index.js';
import { createLogger } from '../../shared/log/index.js';
import { decideSchedule } from '../../functions/schedule-shoot/scheduler.js';
import { decideReadingCounts } from '../../functions/schedule-shoot/scheduler-counts.js';
import { allocatableShoots, cachedSeeds } from '../../functions/schedule-shoot/inputs.js';
import { createSeedCache, type SeedCache } from '../../functions/schedule-shoot/seed-cache.js';
import { createUsageStore, keyOfShoot, type UsageStore } from '../../functions/schedule-shoot/usage.js';
import { bound } from './shoots.js';
import { outcomeOf, type Way, type World } from './ways.js';

/** schedule-shoot's default seedCacheTtl (config/schedule-shoot.yaml). */
export const SEED_CACHE_TTL_MS = 2000;
const PAGE = 500;

const silent = createLogger({
  name: 'schedule-shoot',
  level: 'info',
  destination: { write: () => undefined },
});

interface Counter {
  seedLists: number;
  metadataLists: number;
}

/** A KubeClient listing the world's Shoots (objects, for the usage rebuild) and Seeds (JSON pages, parsed per list). */
function worldClient(w: World, counter: Counter): KubeClient {
  const seedPages: string[] = [];
  for (let i = 0; i < w.seeds.length; i += PAGE) {
    const end = Math.min(w.seeds.length, i + PAGE);
    const metadata =
      end < w.seeds.length ? { continue: String(end), resourceVersion: '1' } : { resourceVersion: '1' };
    seedPages.push(
      JSON.stringify({
        kind: 'SeedList',
        apiVersion: 'core.gardener.cloud/v1beta1',
        metadata,
        items: w.seeds.slice(i, end),
      }),
    );
  }
  const metadataPages = seedPages.map((text) => {
    const page = JSON.parse(text) as { metadata: unknown; items: Seed[] };
    const items = page.items.map((s) => ({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: s.metadata,
    }));
    return JSON.stringify({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: page.metadata,
      items,
    });
  });
  const listMetadata = (_gvk: unknown, _ns?: string, options: ListOptions = {}): Promise<unknown> => {
    const start = Number(options.continue ?? 0);
    if (start === 0) counter.metadataLists++;
    return Promise.resolve(JSON.parse(metadataPages[Math.floor(start / PAGE)] ?? '{"items":[]}'));
  };
  const list = (gvk: { kind: string }, _ns?: string, options: ListOptions = {}): Promise<unknown> => {
    const start = Number(options.continue ?? 0);
    if (gvk.kind === 'Seed') {
      if (start === 0) counter.seedLists++;
      return Promise.resolve(JSON.parse(seedPages[Math.floor(start / PAGE)] ?? '{"items":[]}'));
    }
    const end = Math.min(w.shoots.length, start + (options.limit ?? w.shoots.length));
    const metadata = end < w.shoots.length ? { continue: String(end) } : {};
    return Promise.resolve({ items: w.shoots.slice(start, end), metadata });
  };
  return { list, listMetadata } as unknown as KubeClient;
}

function profileOf(
  w: World,
  shoot: Shoot,
): World['profiles'] extends ReadonlyMap<string, infer P> ? P : never {
  const name = shoot.spec.cloudProfile?.name ?? shoot.spec.cloudProfileName ?? '';
  const profile = w.profiles.get(name);
  if (!profile) throw new Error(`bench: no cloud profile ${name}`);
  return profile;
}

async function timed<T>(split: Record<string, number>, part: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  split[part] = (split[part] ?? 0) + performance.now() - t0;
  return out;
}

export interface FunctionWay extends Way {
  /** Untimed set-up: the usage store rebuilt from every Shoot, and (function) the Seed cache's first list. */
  setupMs: { usage: number; seeds: number };
  /** Seed lists the way did while timed and untimed (the client's count): full lists, metadata lists. */
  seedLists(): Counter;
}

async function usageStore(redis: Redis, client: KubeClient): Promise<{ store: UsageStore; ms: number }> {
  const store = createUsageStore(
    { client, redis: () => Promise.resolve(redis), now: Date.now, owner: 'bench', log: silent },
    { reservationTtlMs: 60_000, rebuildTimeoutMs: 600_000 },
  );
  const t0 = performance.now();
  if (!(await store.ensure())) throw new Error('bench: the usage store was not rebuilt');
  return { store, ms: performance.now() - t0 };
}

/** Reserve and bind (the sync of the bound shoot): the outcome. */
async function bindAfter(
  split: Record<string, number>,
  store: UsageStore,
  shoot: Shoot,
  decision: ReturnType<typeof decideSchedule>,
): Promise<string> {
  if (!decision.ok) return outcomeOf(decision);
  const reserved = await timed(split, 'scripts', () =>
    store.reserve(keyOfShoot(shoot), decision.seedName, allocatableShoots(decision.seed)),
  );
  if (reserved.result !== 'ok') return `reserve ${reserved.result}: ${decision.seedName}`;
  await timed(split, 'scripts', () => store.sync(bound(shoot, decision.seedName)));
  return decision.seedName;
}

/** The function's path today, on database `db` of the redis-server at `url` (emptied first). */
export async function functionWay(w: World, url: string, db: number): Promise<FunctionWay> {
  const redis = new Redis(url, { db });
  await redis.flushdb();
  const counter: Counter = { seedLists: 0, metadataLists: 0 };
  const client = worldClient(w, counter);
  const { store, ms: usageMs } = await usageStore(redis, client);
  const cache: SeedCache = createSeedCache(
    { client, redis: () => Promise.resolve(redis), now: Date.now, owner: 'bench', log: silent },
    { ttlMs: SEED_CACHE_TTL_MS, listTimeoutMs: 600_000 },
  );
  const t0 = performance.now();
  await cache.seeds();
  const seedsMs = performance.now() - t0;
  const split: Record<string, number> = {};
  return {
    id: 'function',
    label:
      'the function: Seed cache in Redis (metadata lists), counts of the candidates (a copy kept by the change log)',
    split,
    setupMs: { usage: usageMs, seeds: seedsMs },
    seedLists: () => ({ ...counter }),
    async decide(shoot) {
      await timed(split, 'scripts', () => store.sync(shoot));
      const seeds = await timed(split, 'seeds', () => cache.seeds());
      const t1 = performance.now();
      let countsMs = 0;
      const decision = await decideReadingCounts(
        { shoot, seeds, cloudProfile: profileOf(w, shoot), config: w.config },
        async (names) => {
          const c0 = performance.now();
          const counts = await store.countsOf(names);
          countsMs += performance.now() - c0;
          return counts;
        },
      );
      split.counts = (split.counts ?? 0) + countsMs;
      split.decide = (split.decide ?? 0) + performance.now() - t1 - countsMs;
      return bindAfter(split, store, shoot, decision);
    },
    usage: () => store.counts(),
    close: () => Promise.resolve(redis.disconnect()),
  };
}

/** The function's path before (Seeds listed per instance every 2 s, HGETALL, decideSchedule). */
export async function functionBeforeWay(w: World, url: string, db: number): Promise<FunctionWay> {
  const redis = new Redis(url, { db });
  await redis.flushdb();
  const counter: Counter = { seedLists: 0, metadataLists: 0 };
  const client = worldClient(w, counter);
  const { store, ms: usageMs } = await usageStore(redis, client);
  const listSeeds = cachedSeeds(client, SEED_CACHE_TTL_MS, Date.now);
  const split: Record<string, number> = {};
  return {
    id: 'function-before',
    label: 'the function before: Seeds listed every 2 s per instance, every count (HGETALL)',
    split,
    setupMs: { usage: usageMs, seeds: 0 },
    seedLists: () => ({ ...counter }),
    async decide(shoot) {
      await timed(split, 'scripts', () => store.sync(shoot));
      const seeds: Seed[] = await timed(split, 'seeds', () => listSeeds());
      const usage = await timed(split, 'HGETALL', () => store.counts());
      const t1 = performance.now();
      const decision = decideSchedule({
        shoot,
        seeds,
        usage,
        cloudProfile: profileOf(w, shoot),
        config: w.config,
      });
      split.decide = (split.decide ?? 0) + performance.now() - t1;
      return bindAfter(split, store, shoot, decision);
    },
    usage: () => store.counts(),
    close: () => Promise.resolve(redis.disconnect()),
  };
}
