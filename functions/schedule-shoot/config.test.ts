import type { KubeClient } from '../../shared/kube/index.js';
import { cachedSeeds } from './inputs.js';
import { readFileSync } from 'node:fs';
import { loadConfig, wantsRegionConfigs } from './config.js';

const REDIS = { REDIS_URL: 'redis://127.0.0.1:6379/0' };

describe('schedule-shoot config', () => {
  it('defaults: upstream scheduler name, SameRegion, 15s retries', () => {
    const r = loadConfig(undefined, REDIS);
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.config).toEqual({
      schedulerName: 'default-scheduler',
      candidateDeterminationStrategy: 'SameRegion',
      retrySyncPeriod: 15_000,
      maxRetryPeriod: 300_000,
      reserveAttempts: 5,
      reservationTimeout: 60_000,
      rebuildTimeout: 30_000,
      seedCacheTtl: 2_000,
      redisUrl: REDIS.REDIS_URL,
    });
    expect(wantsRegionConfigs(r.config)).toBe(false);
  });

  it('the embedded landscape file is valid', () => {
    const text = readFileSync(new URL('../../config/schedule-shoot.yaml', import.meta.url), 'utf8');
    expect(loadConfig(text, REDIS)).toMatchObject({ ok: true });
  });

  it('environment overrides win over the file', () => {
    const r = loadConfig('schedulerName: a\ncandidateDeterminationStrategy: SameRegion\n', {
      ...REDIS,
      SCHEDULER_NAME: 'b',
      CANDIDATE_DETERMINATION_STRATEGY: 'MinimalDistance',
      SCHEDULER_RETRY_SYNC_PERIOD: '2s',
      SCHEDULER_MAX_RETRY_PERIOD: '1m',
    });
    expect(r).toMatchObject({
      ok: true,
      config: {
        schedulerName: 'b',
        candidateDeterminationStrategy: 'MinimalDistance',
        retrySyncPeriod: 2000,
        maxRetryPeriod: 60_000,
      },
    });
    if (r.ok) expect(wantsRegionConfigs(r.config)).toBe(true);
  });

  it('scoring: region configs only when a rule needs them', () => {
    const r = loadConfig(
      'candidateDeterminationStrategy: MinimalDistance\nscoring:\n  rules: [{name: SeedResourcesLeastAllocated, weight: 2}]\n',
      REDIS,
    );
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.config.scoring).toEqual({ rules: [{ name: 'SeedResourcesLeastAllocated', weight: 2 }] });
    expect(wantsRegionConfigs(r.config)).toBe(false);
  });

  it('every problem is listed', () => {
    const r = loadConfig(
      [
        'candidateDeterminationStrategy: Nearest',
        'scoring: {rules: [{name: Random, weight: 0}]}',
        'retrySyncPeriod: soon',
        'reserveAttempts: 0',
        'typo: 1',
      ].join('\n'),
      { REDIS_URL: 'http://x' },
    );
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^candidateDeterminationStrategy: /),
        expect.stringMatching(/^scoring\.rules\.0\.name: /),
        expect.stringMatching(/^scoring\.rules\.0\.weight: /),
        expect.stringMatching(/^retrySyncPeriod: /),
        expect.stringMatching(/^reserveAttempts: /),
        expect.stringMatching(/^redisUrl: must be a redis/),
        expect.stringMatching(/typo/),
      ]),
    );
  });

  it('refuses a duplicate scoring rule, a maximum below the first retry, and no Redis', () => {
    const r = loadConfig(
      'scoring: {rules: [{name: MinimalDistance, weight: 1}, {name: MinimalDistance, weight: 2}]}\n',
      {},
    );
    expect(r.ok ? [] : r.problems).toEqual(
      expect.arrayContaining(['scoring.rules: each rule at most once', expect.stringMatching(/^redisUrl: /)]),
    );
    const s = loadConfig('retrySyncPeriod: 1m\nmaxRetryPeriod: 10s\n', REDIS);
    expect(s.ok ? [] : s.problems).toEqual(['maxRetryPeriod: must not be shorter than retrySyncPeriod']);
  });
});

describe('cachedSeeds', () => {
  it('lists once per ttl, shares a list in flight, does not keep a failed list; ttl 0 lists every time', async () => {
    let lists = 0;
    let fail = false;
    const client = {
      list: () => {
        lists++;
        return fail
          ? Promise.reject(new Error('down'))
          : Promise.resolve({ items: [{ metadata: { name: `s${lists}` } }], metadata: {} });
      },
    } as unknown as KubeClient;
    let t = 0;
    const seeds = cachedSeeds(client, 2_000, () => t);
    const [a, b] = await Promise.all([seeds(), seeds()]);
    expect(lists).toBe(1);
    expect(a).toBe(b);
    t = 1_999;
    await seeds();
    expect(lists).toBe(1);
    t = 2_000;
    fail = true;
    await expect(seeds()).rejects.toThrow('down');
    fail = false;
    expect((await seeds())[0].metadata?.name).toBe('s3');
    expect(lists).toBe(3);
    const uncached = cachedSeeds(client, 0, () => t);
    await uncached();
    await uncached();
    expect(lists).toBe(5);
  });
});
