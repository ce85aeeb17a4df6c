import {
  ceilReplicas,
  formatMilliQuantity,
  metricProposal,
  type SeedMetricSpec,
  type SeedSample,
} from './autoscaler-metrics.js';
import { averageValue, seeds, times, utilization } from './autoscaler.fixtures.js';

describe('metricProposal (the HPA replica calculator over seeds)', () => {
  const rows: [string, SeedMetricSpec, number, SeedSample[], number][] = [
    ['at target', utilization(50), 3, seeds(...times(3, 50)), 3],
    ['within tolerance above (ratio 1.1)', utilization(50), 3, seeds(...times(3, 55)), 3],
    ['within tolerance below (ratio 0.9)', utilization(50), 3, seeds(...times(3, 45)), 3],
    ['just outside tolerance (ratio 1.12)', utilization(50), 3, seeds(...times(3, 56)), 4],
    ['double the target', utilization(50), 3, seeds(...times(3, 100)), 6],
    ['far below target', utilization(50), 4, seeds(...times(4, 10)), 1],
    [
      'mean of per-seed ratios (10 % and 90 %), not sum(used)/sum(allocatable)',
      utilization(50),
      2,
      seeds([1, 10], [90, 100]),
      2,
    ],
    ['allocatable as quantity strings', utilization(50), 2, seeds([100, '100'], [2000, '1k']), 6],
    ['whole percents do not round up (2 × 70 % at 35 %)', utilization(35), 2, seeds([7, 10], [7, 10]), 4],
    ['AverageValue: mean used / target', averageValue(10), 3, seeds(10, 20, 30), 6],
    ['AverageValue: allocatable not needed, within tolerance', averageValue('20'), 3, seeds(19, 20, 21), 3],
    ['missing seed on scale-up counts as 0', utilization(50), 3, seeds([100, 100], [100, 100], 7), 4],
    ['missing seed on scale-down counts as at target', utilization(50), 3, seeds([10, 100], [10, 100], 7), 2],
    ['missing seed turns the direction: keep', utilization(50), 2, seeds([60, 100], 7), 2],
    ['missing seed brings it within tolerance: keep', utilization(50), 3, seeds([57, 100], [57, 100], 0), 3],
    ['zero allocatable counts as missing', utilization(50), 2, seeds([100, 100], [5, 0]), 2],
  ];

  it.each(rows)('%s', (_n, metric, current, s, want) => {
    const r = metricProposal(metric, current, s);
    expect(r).toMatchObject({ ok: true, replicas: want });
  });

  it.each<[string, SeedMetricSpec, SeedSample[], string]>([
    [
      'no allocatable anywhere',
      utilization(50),
      seeds(3, 4),
      'did not receive metrics for any seed with allocatable shoots',
    ],
    ['no seeds', averageValue(10), [], 'did not receive metrics for any seed with allocatable shoots'],
    [
      'utilization without a target',
      { type: 'Resource', resource: { name: 'shoots', target: { type: 'Utilization' } } },
      seeds([1, 10]),
      'invalid shoots target: no positive Utilization set',
    ],
    [
      'a zero average value',
      averageValue('0'),
      seeds(1),
      'invalid shoots target: no positive AverageValue set',
    ],
    [
      'an unparsable average value',
      averageValue('lots'),
      seeds(1),
      'invalid shoots target: no positive AverageValue set',
    ],
  ])('error: %s', (_n, metric, s, error) => {
    expect(metricProposal(metric, 2, s)).toEqual({ ok: false, error });
  });

  it('reports the current metric as the HPA does', () => {
    expect(metricProposal(utilization(50), 3, seeds([1, 3], [2, 3], [3, 3]))).toMatchObject({
      name: 'shoots resource utilization (percentage of allocatable)',
      status: {
        type: 'Resource',
        resource: { name: 'shoots', current: { averageUtilization: 66, averageValue: '2' } },
      },
    });
    expect(metricProposal(averageValue(1), 2, seeds(1, 2))).toMatchObject({
      name: 'shoots resource',
      status: { resource: { current: { averageValue: '1500m' } } },
    });
  });

  it('formatMilliQuantity and ceilReplicas', () => {
    expect([formatMilliQuantity(2), formatMilliQuantity(1.5), formatMilliQuantity(0.25)]).toEqual([
      '2',
      '1500m',
      '250m',
    ]);
    expect([ceilReplicas(4.000000000000001), ceilReplicas(4.01), ceilReplicas(4)]).toEqual([4, 5, 4]);
  });
});
