import { DEFAULT_PROBE_CONCURRENCY, DEFAULT_TICK_SPAN_MS, loadConfig } from './config.js';

describe('probe-tick config', () => {
  it("without a file: upstream's example config and the function's defaults", () => {
    const r = loadConfig(undefined, {});
    if (!r.ok) throw new Error(r.problems.join());
    expect(r.config.tickSpanMs).toBe(DEFAULT_TICK_SPAN_MS);
    expect(r.config.concurrency).toBe(DEFAULT_PROBE_CONCURRENCY);
    expect(r.config.prober.kubeConfigSecretName).toBe('dwd-api-server-probe-secret');
    expect(r.config.prober.dependentResourceInfos.map((d) => d.ref.name)).toEqual([
      'kube-controller-manager',
      'machine-controller-manager',
      'cluster-autoscaler',
    ]);
  });

  it.each([
    [{ PROBE_TICK_SPAN: '0s' }, 0, DEFAULT_PROBE_CONCURRENCY],
    [{ PROBE_TICK_SPAN: '1m30s', PROBE_CONCURRENCY: '7' }, 90_000, 7],
  ])('environment %j', (env, span, n) => {
    const r = loadConfig(undefined, env);
    expect(r).toMatchObject({ ok: true, config: { tickSpanMs: span, concurrency: n } });
  });

  it('every problem is listed: the file and both variables', () => {
    const r = loadConfig('probeInterval: soon\n', { PROBE_TICK_SPAN: '20m', PROBE_CONCURRENCY: 'many' });
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^probeInterval: /),
        expect.stringMatching(/^kubeConfigSecretName: required/),
        'PROBE_TICK_SPAN: must be between 0s and 15m, got "20m"',
        'PROBE_CONCURRENCY: must be a whole number from 1 to 1000, got "many"',
      ]),
    );
  });
});
