import { loadConfig } from './config.js';
import { historyFromStatus, historyToStatus } from './history.js';

describe('seed-autoscaler config', () => {
  it("defaults: the HPA controller's tolerance and downscale stabilization", () => {
    expect(loadConfig(undefined, {})).toEqual({
      ok: true,
      config: {
        tolerance: 0.1,
        downscaleStabilization: 300,
        concurrency: 4,
        syncPeriod: 60_000,
        logLevel: 'info',
      },
    });
  });

  it.each([
    [{ DOWNSCALE_STABILIZATION: '0s' }, 0],
    [{ DOWNSCALE_STABILIZATION: '1m30s' }, 90],
  ])('environment %j', (env, seconds) => {
    expect(loadConfig(undefined, env)).toMatchObject({
      ok: true,
      config: { downscaleStabilization: seconds },
    });
  });

  it('every problem is listed', () => {
    const r = loadConfig('tolerance: 2\ndownscaleStabilization: 2h\nsyncPeriod: 500ms\n', {
      DOWNSCALE_STABILIZATION: undefined,
    });
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems).toEqual([
      expect.stringMatching(/^tolerance: /),
      'downscaleStabilization: must be between 0s and 1h, got "2h"',
      'syncPeriod: must be at least 1s',
    ]);
  });
});

describe('status history', () => {
  it('round-trips the decision history through RFC 3339 times; unparsable entries are dropped', () => {
    const history = {
      recommendations: [{ replicas: 3, at: Date.parse('2025-06-01T12:00:00.250Z') }],
      scaleUpEvents: [{ change: 2, at: Date.parse('2025-06-01T12:00:01Z') }],
      scaleDownEvents: [],
    };
    const status = historyToStatus(history);
    expect(status.recommendations).toEqual([{ replicas: 3, time: '2025-06-01T12:00:00.250Z' }]);
    expect(historyFromStatus(status)).toEqual(history);
    expect(
      historyFromStatus({ recommendations: [{ replicas: 1, time: 'yesterday' }] }).recommendations,
    ).toEqual([]);
    expect(historyFromStatus(undefined)).toEqual({
      recommendations: [],
      scaleUpEvents: [],
      scaleDownEvents: [],
    });
  });
});
