import { loadConfig } from './config.js';

const env = { REDIS_URL: 'redis://127.0.0.1:7000', K_SINK: 'http://broker.local/ingress' };

describe('loadConfig', () => {
  it('has defaults and takes REDIS_URL and K_SINK from the environment', () => {
    const r = loadConfig(undefined, env);
    expect(r).toEqual({
      ok: true,
      config: {
        targets: [],
        discoverTargets: true,
        batchSize: 50,
        maxPerTarget: 1000,
        emitTimeout: 5000,
        source: '/apis/landscape/functions/requeue-tick',
        redisUrl: 'redis://127.0.0.1:7000',
        sink: 'http://broker.local/ingress',
      },
    });
  });

  it('reads the file and lets the environment override single keys', () => {
    const file = 'targets: [deployer-mock]\nbatchSize: 10\nemitTimeout: 2s\ndiscoverTargets: false\n';
    const r = loadConfig(file, { ...env, REQUEUE_BATCH_SIZE: '20', REQUEUE_TARGETS: 'a, b' });
    expect(r.ok && r.config).toMatchObject({
      targets: ['a', 'b'],
      batchSize: 20,
      emitTimeout: 2000,
      discoverTargets: false,
    });
  });

  it('lists every problem', () => {
    const file = 'targets: ["not a name"]\nbatchSize: 0\nemitTimeout: soon\nextra: 1\n';
    const r = loadConfig(file, { REDIS_URL: 'http://x' });
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^targets\.0: must be a function name/),
        expect.stringMatching(/^batchSize: /),
        expect.stringMatching(/^emitTimeout: invalid duration/),
        expect.stringMatching(/^redisUrl: must be a redis/),
        expect.stringMatching(/^sink: /),
        expect.stringMatching(/extra/),
      ]),
    );
    expect(problems).toHaveLength(6);
  });

  it('takes the optional sink token from K_SINK_TOKEN (absent: none) and never echoes it in a problem', () => {
    const withToken = loadConfig(undefined, { ...env, K_SINK_TOKEN: 'tok-abc' });
    expect(withToken.ok && withToken.config.sinkToken).toBe('tok-abc');
    const none = loadConfig(undefined, { ...env, K_SINK_TOKEN: '' });
    expect(none.ok && 'sinkToken' in none.config).toBe(false);
    const bad = loadConfig('sinkToken: 42\n', { ...env, K_SINK: 'not a url' });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.problems).toEqual([
      expect.stringMatching(/^sink: /),
      expect.stringMatching(/^sinkToken: /),
    ]);
    const leaky = loadConfig(undefined, { ...env, K_SINK: 'nope', K_SINK_TOKEN: 'tok-abc' });
    expect(JSON.stringify(leaky)).not.toContain('tok-abc');
  });

  it('reports YAML that is not a mapping', () => {
    const r = loadConfig('- a\n- b\n', env);
    expect(r).toEqual({ ok: false, problems: ['config file: the document must be a mapping'] });
    expect(loadConfig('a: [', env).ok).toBe(false);
  });
});
