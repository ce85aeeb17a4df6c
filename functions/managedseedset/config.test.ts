import { loadConfig } from './config.js';
import { setOfReplicaName } from './route.js';

describe('managedseedset config', () => {
  it("defaults: upstream's sync period and retries; REDIS_URL sets redisUrl", () => {
    const r = loadConfig(undefined, { REDIS_URL: 'redis://127.0.0.1:6379/0' });
    expect(r).toEqual({
      ok: true,
      config: {
        syncPeriod: 1_800_000,
        maxShootRetries: 3,
        errorRequeueDelay: 60_000,
        lockRetryDelay: 2_000,
        redisUrl: 'redis://127.0.0.1:6379/0',
        logLevel: 'info',
      },
    });
  });

  it('environment overrides', () => {
    const r = loadConfig('syncPeriod: 1m\n', {
      REDIS_URL: 'redis://r:6379',
      SYNC_PERIOD: '5m',
      MAX_SHOOT_RETRIES: '1',
    });
    expect(r).toMatchObject({ ok: true, config: { syncPeriod: 300_000, maxShootRetries: 1 } });
  });

  it('every problem is listed', () => {
    const r = loadConfig('syncPeriod: soon\nmaxShootRetries: -1\nextra: 1\n', {});
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^syncPeriod: /),
        expect.stringMatching(/^maxShootRetries: /),
        expect.stringMatching(/^redisUrl: /),
        expect.stringMatching(/extra/),
      ]),
    );
  });
});

describe('setOfReplicaName', () => {
  it.each([
    ['seeds-0', { namespace: 'garden', name: 'seeds' }],
    ['my-seeds-12', { namespace: 'garden', name: 'my-seeds' }],
    ['seeds', undefined],
    ['seeds-x', undefined],
    ['-3', undefined],
  ])('%s', (name, want) => {
    expect(setOfReplicaName('garden', name)).toEqual(want);
  });
});
