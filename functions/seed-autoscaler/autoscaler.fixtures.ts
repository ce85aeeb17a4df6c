/**
 * Test fixtures (tests only) for the SeedAutoscaler decision.
 */
import {
  EMPTY_HISTORY,
  type ScaleHistory,
  type SeedAutoscaler,
  type SeedAutoscalerInput,
  type SeedMetricSpec,
  type SeedSample,
} from './autoscaler.js';

export const NOW = new Date('2024-05-01T10:00:00Z');
export const T = NOW.getTime();
export const NOW_TIME = '2024-05-01T10:00:00Z';

export const utilization = (averageUtilization: number, name = 'shoots'): SeedMetricSpec => ({
  type: 'Resource',
  resource: { name, target: { type: 'Utilization', averageUtilization } },
});
export const averageValue = (value: string | number, name = 'shoots'): SeedMetricSpec => ({
  type: 'Resource',
  resource: { name, target: { type: 'AverageValue', averageValue: value } },
});

/** Seeds with `shoots` used; a number pair is [used, allocatable], a single number has no allocatable. */
export function seeds(...specs: ([number, number | string] | number)[]): SeedSample[] {
  return specs.map((s, i) =>
    Array.isArray(s)
      ? { name: `s${i}`, usage: { shoots: s[0] }, allocatable: { shoots: s[1] } }
      : { name: `s${i}`, usage: { shoots: s } },
  );
}

export const times = (n: number, used: number, allocatable = 100): [number, number][] =>
  Array.from({ length: n }, () => [used, allocatable]);

export function autoscaler(
  patch: Partial<SeedAutoscaler['spec']> = {},
  status?: SeedAutoscaler['status'],
): SeedAutoscaler {
  return {
    metadata: { name: 'auto', namespace: 'garden', generation: 2 },
    spec: {
      scaleTargetRef: {
        apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
        kind: 'ManagedSeedSet',
        name: 'set',
      },
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [utilization(50)],
      ...patch,
    },
    ...(status ? { status } : {}),
  };
}

export function input(
  a: SeedAutoscaler,
  current: number,
  s: SeedSample[],
  history?: ScaleHistory,
): SeedAutoscalerInput {
  return { autoscaler: a, currentReplicas: current, seeds: s, now: NOW, ...(history ? { history } : {}) };
}

export const recs = (...pairs: [number, number][]): ScaleHistory => ({
  ...EMPTY_HISTORY,
  recommendations: pairs.map(([replicas, secondsAgo]) => ({ replicas, at: T - secondsAgo * 1000 })),
});
