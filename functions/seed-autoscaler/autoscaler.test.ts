import { decideSeedAutoscaler, type SeedAutoscaler, type SeedAutoscalerInput } from './autoscaler.js';
import {
  NOW_TIME,
  T,
  autoscaler,
  averageValue,
  input,
  recs,
  seeds,
  times,
  utilization,
} from './autoscaler.fixtures.js';

describe('decideSeedAutoscaler without behavior (classic HPA rules)', () => {
  const rows: [string, SeedAutoscalerInput, number, string][] = [
    [
      'scale-up limited to max(2 × current, 4)',
      input(autoscaler({ maxReplicas: 50 }), 1, seeds(...times(1, 500))),
      4,
      'ScaleUpLimit',
    ],
    [
      'scale-up limited to 2 × current',
      input(autoscaler({ maxReplicas: 50 }), 3, seeds(...times(3, 500))),
      6,
      'ScaleUpLimit',
    ],
    [
      'clamped to maxReplicas',
      input(autoscaler({ maxReplicas: 5 }), 4, seeds(...times(4, 100))),
      5,
      'TooManyReplicas',
    ],
    [
      'clamped to minReplicas',
      input(autoscaler({ minReplicas: 2 }), 3, seeds(...times(3, 5))),
      2,
      'TooFewReplicas',
    ],
    ['within range', input(autoscaler(), 2, seeds(...times(2, 100))), 4, 'DesiredWithinRange'],
    ['within tolerance: no change', input(autoscaler(), 2, seeds(...times(2, 52))), 2, 'DesiredWithinRange'],
    [
      'scale-down held by a recent higher recommendation',
      input(autoscaler(), 5, seeds(...times(5, 10)), recs([5, 60])),
      5,
      'DesiredWithinRange',
    ],
    [
      'scale-down to the highest recommendation of the window',
      input(autoscaler(), 5, seeds(...times(5, 10)), recs([3, 200], [2, 100])),
      3,
      'DesiredWithinRange',
    ],
    [
      'recommendations older than 5 minutes do not count',
      input(autoscaler(), 5, seeds(...times(5, 10)), recs([5, 301])),
      1,
      'DesiredWithinRange',
    ],
  ];

  it.each(rows)('%s', (_n, i, want, limitReason) => {
    const d = decideSeedAutoscaler(i);
    expect(d.desiredReplicas).toBe(want);
    expect(d.rescale).toBe(want !== i.currentReplicas);
    expect(d.status.conditions?.find((c) => c.type === 'ScalingLimited')?.reason).toBe(limitReason);
  });

  it('records the unstabilized recommendation and drops stale ones', () => {
    const d = decideSeedAutoscaler(input(autoscaler(), 5, seeds(...times(5, 10)), recs([5, 60], [9, 400])));
    expect(d.history.recommendations).toEqual([
      { replicas: 5, at: T - 60_000 },
      { replicas: 1, at: T },
    ]);
    expect(d.status.conditions?.find((c) => c.type === 'AbleToScale')).toMatchObject({
      status: 'True',
      reason: 'ScaleDownStabilized',
    });
    expect(d.history.scaleUpEvents).toEqual([]);
  });

  it('a custom downscale stabilization window', () => {
    const d = decideSeedAutoscaler(input(autoscaler(), 5, seeds(...times(5, 10)), recs([5, 60])), {
      downscaleStabilizationSeconds: 30,
    });
    expect(d.desiredReplicas).toBe(1);
  });
});

describe('decideSeedAutoscaler: bounds, disabled, errors', () => {
  it.each<[string, SeedAutoscalerInput, number, boolean, string]>([
    [
      'target at zero: disabled',
      input(autoscaler(), 0, seeds(...times(2, 100))),
      0,
      false,
      'scaling is disabled since the replica count of the target is zero',
    ],
    [
      'above max',
      input(autoscaler({ maxReplicas: 3 }), 5, []),
      3,
      true,
      'Current number of replicas above Spec.MaxReplicas',
    ],
    [
      'below min',
      input(autoscaler({ minReplicas: 2 }), 1, []),
      2,
      true,
      'Current number of replicas below Spec.MinReplicas',
    ],
    [
      'scale up',
      input(autoscaler(), 2, seeds(...times(2, 100))),
      4,
      true,
      'shoots resource utilization (percentage of allocatable) above target',
    ],
    ['scale down', input(autoscaler(), 4, seeds(...times(4, 10))), 1, true, 'All metrics below target'],
    ['no change', input(autoscaler(), 2, seeds(...times(2, 50))), 2, false, 'All metrics below target'],
  ])('%s', (_n, i, desired, rescale, reason) => {
    const d = decideSeedAutoscaler(i);
    expect(d).toMatchObject({ desiredReplicas: desired, rescale, reason });
    expect(d.error).toBeUndefined();
  });

  it('rescale: Event, lastScaleTime, status fields', () => {
    const d = decideSeedAutoscaler(input(autoscaler(), 2, seeds(...times(2, 100))));
    expect(d.event).toEqual({
      type: 'Normal',
      reason: 'SuccessfulRescale',
      message: 'New size: 4; reason: shoots resource utilization (percentage of allocatable) above target',
    });
    expect(d.status).toMatchObject({
      observedGeneration: 2,
      lastScaleTime: NOW_TIME,
      currentReplicas: 2,
      desiredReplicas: 4,
      currentMetrics: [
        {
          type: 'Resource',
          resource: { name: 'shoots', current: { averageUtilization: 100, averageValue: '100' } },
        },
      ],
    });
    expect(d.status.conditions?.find((c) => c.type === 'ScalingActive')).toEqual({
      type: 'ScalingActive',
      status: 'True',
      reason: 'ValidMetricFound',
      message:
        'the SeedAutoscaler was able to successfully calculate a replica count from shoots resource utilization (percentage of allocatable)',
      lastTransitionTime: NOW_TIME,
    });
  });

  it('no rescale keeps lastScaleTime and condition transition times', () => {
    const earlier = '2024-04-01T00:00:00Z';
    const status = {
      currentReplicas: 2,
      desiredReplicas: 2,
      lastScaleTime: earlier,
      conditions: [
        {
          type: 'ScalingActive',
          status: 'True' as const,
          reason: 'ValidMetricFound',
          message: '',
          lastTransitionTime: earlier,
        },
      ],
    };
    const d = decideSeedAutoscaler(input(autoscaler({}, status), 2, seeds(...times(2, 50))));
    expect(d.event).toBeUndefined();
    expect(d.status.lastScaleTime).toBe(earlier);
    expect(d.status.conditions?.[0]?.lastTransitionTime).toBe(earlier);
  });

  it('no measurable seed: error, Warning Event, previous desired kept, no rescale', () => {
    const a = autoscaler({}, { currentReplicas: 3, desiredReplicas: 4 });
    const d = decideSeedAutoscaler(input(a, 3, seeds(1, 2, 3)));
    expect(d.rescale).toBe(false);
    expect(d.error).toBe(
      'invalid metrics (1 invalid out of 1), first error is: did not receive metrics for any seed with allocatable shoots',
    );
    expect(d.event).toMatchObject({ type: 'Warning', reason: 'FailedComputeMetricsReplicas' });
    expect(d.status).toMatchObject({ currentReplicas: 3, desiredReplicas: 4 });
    expect(d.status.conditions?.find((c) => c.type === 'ScalingActive')).toMatchObject({
      status: 'False',
      reason: 'FailedGetResourceMetric',
    });
  });

  it.each<[string, Partial<SeedAutoscaler['spec']>, string]>([
    ['min 0', { minReplicas: 0 }, 'invalid spec: minReplicas must be at least 1, got 0'],
    [
      'max below min',
      { minReplicas: 3, maxReplicas: 2 },
      'invalid spec: maxReplicas must be at least minReplicas (3), got 2',
    ],
  ])('invalid spec: %s', (_n, patch, error) => {
    const d = decideSeedAutoscaler(input(autoscaler(patch), 2, seeds(...times(2, 100))));
    expect(d).toMatchObject({ rescale: false, desiredReplicas: 2, error });
  });

  it('several metrics: the largest proposal wins', () => {
    const a = autoscaler({ metrics: [utilization(50), averageValue(10)] });
    const d = decideSeedAutoscaler(input(a, 2, seeds([50, 100], [50, 100])));
    // utilization says 2 (at target), average value 50/10 says 10
    expect(d.desiredReplicas).toBe(4);
    expect(d.reason).toBe('shoots resource above target');
    expect(d.status.currentMetrics).toHaveLength(2);
  });

  it('an invalid metric does not stop a scale-up, but stops a scale-down', () => {
    const up = autoscaler({ metrics: [utilization(50, 'volumes'), averageValue(10)] });
    expect(decideSeedAutoscaler(input(up, 2, seeds(30, 30))).desiredReplicas).toBe(4);
    const down = decideSeedAutoscaler(input(up, 4, seeds(1, 1, 1, 1)));
    expect(down.rescale).toBe(false);
    expect(down.error).toMatch(/^invalid metrics \(1 invalid out of 2\), first error is: /);
  });

  it('no metrics: shoots at 80 % utilization', () => {
    const d = decideSeedAutoscaler(input(autoscaler({ metrics: [] }), 2, seeds(...times(2, 100))));
    expect(d.desiredReplicas).toBe(3);
  });
});
