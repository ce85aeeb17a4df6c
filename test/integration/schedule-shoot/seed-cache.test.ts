/**
 * schedule-shoot's Seed cache (functions/schedule-shoot/seed-cache.ts and its Lua scripts) against
 * the embedded API server and a private redis-server, with an injected clock: the first decision
 * lists every Seed into Redis (once, under the lock), other instances load it without listing, a
 * read older than the cache's copy is ignored, a list older than seedCacheTtl is taken again (a
 * changed seed, a deleted one, a new one):
 * the Seeds' metadata and reads of the changed ones, a full list when more than MAX_READS changed,
 * Redis losing the cache means a new list, and without a cache while another replica holds the
 * lock a decision lists the Seeds itself.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import type { Seed } from '../../../shared/api/core.js';
import { GVK } from '../../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { createLogger } from '../../../shared/log/index.js';
import { crdFiles } from '../../../shared/api/crds.js';
import {
  createSeedCache,
  SEED_CACHE_KEYS,
  MAX_READS,
  SEED_LIST_LOCK_KEY,
  type SeedCache,
} from '../../../functions/schedule-shoot/seed-cache.js';
import { PUT, STALE } from '../../../functions/schedule-shoot/seed-cache-scripts.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

const TTL = 2000;

let srv: ApiServer;
let redis: TestRedis;
let rc: Redis;
let api: KubeClient;
let counted: KubeClient;
let lists = 0;
let metadataLists = 0;
let reads = 0;
let clock = 1_000_000;

function cache(owner: string, redisClient: Redis = rc): SeedCache {
  return createSeedCache(
    {
      client: counted,
      redis: () => Promise.resolve(redisClient),
      now: () => clock,
      owner,
      log: createLogger({ name: 'test', level: 'error' }),
    },
    { ttlMs: TTL, listTimeoutMs: 10_000 },
  );
}

async function createSeed(name: string, region = 'r1'): Promise<void> {
  await api.create<Seed>(GVK.Seed, {
    metadata: { name },
    spec: {
      provider: { type: 'sc', region },
      settings: { scheduling: { visible: true } },
      networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
    },
  });
}

async function setRegion(name: string, region: string): Promise<void> {
  const seed = await api.get<Seed>(GVK.Seed, undefined, name);
  await api.replace<Seed>(GVK.Seed, {
    ...seed,
    spec: { ...seed.spec, provider: { ...seed.spec.provider, region } },
  });
}

const view = async (c: SeedCache): Promise<string[]> =>
  (await c.seeds()).map((s) => `${s.metadata?.name}:${s.spec.provider.region}`);

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['garden'] });
  redis = await startRedis();
  rc = new Redis(redis.url);
  api = createKubeClient(kubeConfigFromYaml(srv.cluster('garden').kubeconfigYaml()));
  counted = new Proxy(api, {
    get(target, prop, receiver) {
      if (prop === 'list') {
        return (...args: Parameters<KubeClient['list']>) => {
          lists++;
          return target.list(...args);
        };
      }
      if (prop === 'listMetadata') {
        return (...args: Parameters<KubeClient['listMetadata']>) => {
          metadataLists++;
          return target.listMetadata(...args);
        };
      }
      if (prop === 'get') {
        return (...args: Parameters<KubeClient['get']>) => {
          reads++;
          return target.get(...args);
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}, 30_000);

afterAll(async () => {
  rc?.disconnect();
  await redis?.stop();
  await srv?.stop();
});

beforeEach(async () => {
  await rc.flushall();
  for (const s of (await api.list<Seed>(GVK.Seed)).items)
    await api.delete(GVK.Seed, { name: s.metadata!.name! });
  lists = 0;
  metadataLists = 0;
  reads = 0;
  clock = 1_000_000;
});

it('lists once into Redis; other instances load it without listing; in name order', async () => {
  for (const n of ['c', 'a', 'b']) await createSeed(n);
  const one = cache('one');
  const [first, again] = await Promise.all([view(one), view(one)]);
  expect(first).toEqual(['a:r1', 'b:r1', 'c:r1']);
  expect(again).toEqual(first);
  expect(lists).toBe(1);
  expect(await view(cache('two'))).toEqual(first);
  expect(lists).toBe(1);
  // the same array while nothing changed (the decision indexes it once)
  expect(await one.seeds()).toBe(await one.seeds());
});

it('a read older than the cached copy is ignored', async () => {
  await createSeed('a');
  const one = cache('one');
  await view(one);
  const old = await api.get<Seed>(GVK.Seed, undefined, 'a');
  await setRegion('a', 'r2');
  clock += TTL;
  expect(await view(one)).toEqual(['a:r2']);
  const stale = { ...old, spec: { ...old.spec, provider: { ...old.spec.provider, region: 'r9' } } };
  await rc.eval(
    PUT,
    SEED_CACHE_KEYS.length,
    ...SEED_CACHE_KEYS,
    'a',
    old.metadata!.resourceVersion!,
    JSON.stringify(stale),
  );
  expect(await view(cache('two'))).toEqual(['a:r2']);
});

it('a list older than seedCacheTtl is taken again: changes, deletions and new seeds', async () => {
  for (const n of ['a', 'b']) await createSeed(n);
  const one = cache('one');
  const two = cache('two');
  await view(one);
  await view(two);
  // meanwhile: a changed, b deleted, c created
  await setRegion('a', 'r2');
  await api.delete(GVK.Seed, { name: 'b' });
  await createSeed('c');
  clock += TTL - 1;
  expect(await view(two)).toEqual(['a:r1', 'b:r1']);
  clock += 1;
  expect(await view(two)).toEqual(['a:r2', 'c:r1']);
  // the Seeds' metadata, then a read of each seed whose resourceVersion the cache lacks
  expect([lists, metadataLists, reads]).toEqual([1, 1, 2]);
  // the other instance gets the changes from Redis, its list being young again
  expect(await view(one)).toEqual(['a:r2', 'c:r1']);
  expect([lists, metadataLists, reads]).toEqual([1, 1, 2]);
});

it("a list that finds every seed at the version of the instance's copy asks Redis about none of them; a lagging copy asks about the ones it lags on", async () => {
  for (const n of ['a', 'b', 'c']) await createSeed(n);
  const one = cache('one');
  const two = cache('two');
  await view(one);
  await view(two);
  const staleSha = createHash('sha1').update(STALE).digest('hex');
  // the arguments after the keys of every STALE run
  const asked: string[][] = [];
  const recording = new Proxy(rc, {
    get(target, prop, receiver) {
      if (prop !== 'evalsha') return Reflect.get(target, prop, receiver) as unknown;
      return (sha: string, numKeys: number, ...rest: (string | number)[]) => {
        if (sha === staleSha) asked.push(rest.slice(numKeys).map(String));
        return target.evalsha(sha, numKeys, ...rest);
      };
    },
  });
  const watched = (owner: string): SeedCache => cache(owner, recording);
  const three = watched('three');
  expect(await view(three)).toEqual(['a:r1', 'b:r1', 'c:r1']);
  clock += TTL;
  expect(await view(three)).toEqual(['a:r1', 'b:r1', 'c:r1']);
  expect([lists, metadataLists, reads]).toEqual([1, 1, 0]);
  // the listed count only: no seed's version
  expect(asked).toEqual([['3']]);
  // b changed: instance four's copy (loaded before) lags on b: b asked about, read, seen by all
  const four = watched('four');
  await view(four);
  await setRegion('b', 'r2');
  asked.length = 0;
  clock += TTL;
  expect(await view(four)).toEqual(['a:r1', 'b:r2', 'c:r1']);
  expect([lists, metadataLists, reads]).toEqual([1, 2, 1]);
  const bVersion = (await api.get<Seed>(GVK.Seed, undefined, 'b')).metadata?.resourceVersion;
  expect(asked).toEqual([['3', 'b', bVersion]]);
  expect(await view(one)).toEqual(['a:r1', 'b:r2', 'c:r1']);
  expect(await view(two)).toEqual(['a:r1', 'b:r2', 'c:r1']);
});

it('the seeds lost from Redis while the epoch stays (a key evicted): the next list asks about every seed and repairs the cache', async () => {
  for (const n of ['a', 'b', 'c']) await createSeed(n);
  const one = cache('one');
  expect(await view(one)).toEqual(['a:r1', 'b:r1', 'c:r1']);
  await rc.del(SEED_CACHE_KEYS[1], SEED_CACHE_KEYS[2]);
  clock += TTL;
  expect(await view(one)).toEqual(['a:r1', 'b:r1', 'c:r1']);
  expect(await view(cache('fresh'))).toEqual(['a:r1', 'b:r1', 'c:r1']);
});

it('more changed seeds than MAX_READS: a full list instead of reads one by one', async () => {
  await createSeed('a');
  const one = cache('one');
  await view(one);
  for (let i = 0; i <= MAX_READS; i++) await createSeed(`n-${i.toString().padStart(3, '0')}`);
  clock += TTL;
  expect((await view(one)).length).toBe(MAX_READS + 2);
  expect([lists, metadataLists, reads]).toEqual([2, 1, 0]);
});

it('Redis losing the cache means a new list', async () => {
  await createSeed('a');
  const one = cache('one');
  await view(one);
  await rc.flushall();
  await createSeed('b');
  expect(await view(one)).toEqual(['a:r1', 'b:r1']);
  expect([lists, metadataLists]).toEqual([2, 0]);
});

it('without a cache, while another replica lists, a decision lists the Seeds itself', async () => {
  await createSeed('a');
  await rc.set(SEED_LIST_LOCK_KEY, 'other', 'PX', 10_000);
  expect(await view(cache('one'))).toEqual(['a:r1']);
  expect(await rc.exists(SEED_CACHE_KEYS[0])).toBe(0);
  expect(lists).toBe(1);
});
