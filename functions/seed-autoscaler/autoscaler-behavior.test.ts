import { decideSeedAutoscaler } from './autoscaler.js';
import {
  DEFAULT_SCALE_UP_RULES,
  EMPTY_HISTORY,
  fillRules,
  isScalingPolicyType,
  isSelectPolicy,
  rateLimit,
  type ScaleHistory,
  type SeedAutoscalerBehavior,
} from './autoscaler-behavior.js';
import { isMetricTargetType } from './autoscaler-metrics.js';
import { T, autoscaler, input, recs, seeds, times } from './autoscaler.fixtures.js';

describe('decideSeedAutoscaler with behavior (HPA v2)', () => {
  const behaviorRows: [
    string,
    SeedAutoscalerBehavior,
    number,
    number,
    ScaleHistory | undefined,
    number,
    string,
  ][] = [
    ['defaults: scale-up by max(4 pods, 100 %) per 15 s', {}, 2, 30, undefined, 6, 'ScaleUpLimit'],
    ['defaults: 100 % of 8 beats 4 pods', {}, 8, 30, undefined, 16, 'ScaleUpLimit'],
    ['defaults: clamped to maxReplicas', {}, 8, 12, undefined, 12, 'TooManyReplicas'],
    ['Min select policy', { scaleUp: { selectPolicy: 'Min' } }, 2, 30, undefined, 4, 'ScaleUpLimit'],
    ['scale-up disabled', { scaleUp: { selectPolicy: 'Disabled' } }, 2, 30, undefined, 2, 'ScaleUpLimit'],
    [
      'scale-up events of the period count against the limit',
      { scaleUp: { policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } },
      4,
      30,
      { ...EMPTY_HISTORY, scaleUpEvents: [{ change: 2, at: T - 30_000 }] },
      4,
      'ScaleUpLimit',
    ],
    [
      'scale-up events outside the period do not count',
      { scaleUp: { policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } },
      4,
      30,
      { ...EMPTY_HISTORY, scaleUpEvents: [{ change: 2, at: T - 61_000 }] },
      6,
      'ScaleUpLimit',
    ],
    [
      'scale-up stabilization: the lowest recent recommendation',
      { scaleUp: { stabilizationWindowSeconds: 60 } },
      2,
      30,
      recs([3, 30]),
      3,
      'DesiredWithinRange',
    ],
    ['defaults: scale-down held 300 s', {}, 8, 30, recs([8, 200]), 8, 'DesiredWithinRange'],
    [
      'scale-down by pods per period',
      {
        scaleDown: {
          stabilizationWindowSeconds: 0,
          policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }],
        },
      },
      10,
      30,
      undefined,
      8,
      'ScaleDownLimit',
    ],
    [
      'scale-down events of the period count against the limit',
      {
        scaleDown: {
          stabilizationWindowSeconds: 0,
          policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }],
        },
      },
      10,
      30,
      { ...EMPTY_HISTORY, scaleDownEvents: [{ change: 1, at: T - 10_000 }] },
      9,
      'ScaleDownLimit',
    ],
    [
      'scale-down by percent, Min policy picks the smaller change',
      {
        scaleDown: {
          stabilizationWindowSeconds: 0,
          selectPolicy: 'Min',
          policies: [
            { type: 'Percent', value: 50, periodSeconds: 60 },
            { type: 'Pods', value: 1, periodSeconds: 60 },
          ],
        },
      },
      10,
      30,
      undefined,
      9,
      'ScaleDownLimit',
    ],
    [
      'scale-down clamped to minReplicas',
      { scaleDown: { stabilizationWindowSeconds: 0 } },
      4,
      30,
      undefined,
      2,
      'TooFewReplicas',
    ],
  ];

  it.each(behaviorRows)('%s', (name, behavior, current, max, history, want, limitReason) => {
    const a = autoscaler({ behavior, maxReplicas: max, minReplicas: 2 });
    // every seed at 1 % for the scale-down rows, at 500 % (ten times the target) for the others
    const used = name.includes('scale-down') ? 1 : 500;
    const d = decideSeedAutoscaler(input(a, current, seeds(...times(current, used)), history));
    expect(d.desiredReplicas).toBe(want);
    expect(d.status.conditions?.find((c) => c.type === 'ScalingLimited')?.reason).toBe(limitReason);
  });

  it('a rescale with behavior is recorded as a scale event', () => {
    const d = decideSeedAutoscaler(
      input(autoscaler({ behavior: {}, maxReplicas: 30 }), 2, seeds(...times(2, 500))),
    );
    expect(d.history.scaleUpEvents).toEqual([{ change: 4, at: T }]);
    const down = decideSeedAutoscaler(
      input(
        autoscaler({ behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } }),
        4,
        seeds(...times(4, 1)),
      ),
    );
    expect(down.history.scaleDownEvents).toEqual([{ change: 3, at: T }]);
  });

  it('feeding the history back: a scale-up burst is rate limited across passes', () => {
    const a = autoscaler({
      behavior: { scaleUp: { policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } },
      maxReplicas: 30,
    });
    let history: ScaleHistory = EMPTY_HISTORY;
    let current = 2;
    const sizes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const d = decideSeedAutoscaler({
        ...input(a, current, seeds(...times(current, 500)), history),
        now: new Date(T + i * 20_000),
      });
      history = d.history;
      current = d.desiredReplicas;
      sizes.push(current);
    }
    // 2 pods per 60 s: the second and third pass are within the first pass's period
    expect(sizes).toEqual([4, 4, 4]);
  });

  it('rateLimit and fillRules', () => {
    expect(fillRules({ selectPolicy: 'Min' }, DEFAULT_SCALE_UP_RULES)).toEqual({
      ...DEFAULT_SCALE_UP_RULES,
      selectPolicy: 'Min',
    });
    expect(rateLimit('up', 3, EMPTY_HISTORY, DEFAULT_SCALE_UP_RULES, T)).toBe(7);
    expect(
      rateLimit(
        'down',
        10,
        EMPTY_HISTORY,
        { ...DEFAULT_SCALE_UP_RULES, policies: [{ type: 'Percent', value: 25, periodSeconds: 15 }] },
        T,
      ),
    ).toBe(7);
  });

  it.each([
    [isMetricTargetType, 'Utilization', true],
    [isMetricTargetType, 'Value', false],
    [isScalingPolicyType, 'Percent', true],
    [isScalingPolicyType, 'percent', false],
    [isSelectPolicy, 'Disabled', true],
    [isSelectPolicy, 'None', false],
  ])('%p(%s) → %s', (guard, value, want) => {
    expect(guard(value)).toBe(want);
  });
});
