import { loadConfig } from './config.js';

describe('managedseed config', () => {
  it("without a file: upstream's periods, REDIS_URL from the environment", () => {
    const r = loadConfig(undefined, { REDIS_URL: 'redis://r:6379' });
    expect(r).toEqual({
      ok: true,
      config: {
        namespace: 'garden',
        waitSyncPeriod: 15_000,
        syncPeriod: 3_600_000,
        errorBackoff: { min: 5_000, max: 300_000 },
        concurrency: 4,
        redisUrl: 'redis://r:6379',
        logLevel: 'info',
      },
    });
  });

  it('environment overrides win over the file', () => {
    const r = loadConfig('waitSyncPeriod: 30s\nnamespace: x\n', {
      REDIS_URL: 'redis://r',
      MANAGED_SEED_WAIT_SYNC_PERIOD: '2s',
    });
    expect(r).toMatchObject({ ok: true, config: { waitSyncPeriod: 2_000, namespace: 'x' } });
  });

  it('every problem is listed', () => {
    const r = loadConfig('syncPeriod: soon\nerrorBackoff: {min: 5m, max: 5s}\nextra: 1\n', {});
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^syncPeriod: invalid duration/),
        'errorBackoff: min must not be above max',
        expect.stringMatching(/^redisUrl: /),
        expect.stringMatching(/^\(root\): Unrecognized key.*extra/),
      ]),
    );
  });
});
