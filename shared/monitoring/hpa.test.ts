import { Writable } from 'node:stream';
import { createLogger } from '../log/index.js';
import {
  fromActivator,
  fromHpa,
  fromPodAutoscaler,
  HPA_STATISTICS_MSG,
  hpaOf,
  hpaStatistics,
  knativeStatistics,
  mergeRevisions,
  MONITORING_LOGGER_NAME,
  resourceMetrics,
  statisticsFields,
  type HorizontalPodAutoscaler,
  type HpaStatistics,
  type MetricStatus,
  type PodAutoscaler,
} from './index.js';

const cpu = (averageUtilization?: number, averageValue?: string | number): MetricStatus => ({
  type: 'Resource',
  resource: { name: 'cpu', current: { averageUtilization, averageValue } },
});
const memory = (averageUtilization?: number, averageValue?: string | number): MetricStatus => ({
  type: 'Resource',
  resource: { name: 'memory', current: { averageUtilization, averageValue } },
});

function hpa(
  name: string,
  status: HorizontalPodAutoscaler['status'],
  extra: { target?: string; ownerPa?: string; namespace?: string } = {},
): HorizontalPodAutoscaler {
  return {
    metadata: {
      name,
      namespace: extra.namespace ?? 'ls-system',
      ...(extra.ownerPa
        ? {
            ownerReferences: [
              {
                apiVersion: 'autoscaling.internal.knative.dev/v1alpha1',
                kind: 'PodAutoscaler',
                name: extra.ownerPa,
                uid: `uid-${extra.ownerPa}`,
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: { scaleTargetRef: { kind: 'Deployment', name: extra.target ?? name } },
    status,
  };
}

function pa(
  name: string,
  status: PodAutoscaler['status'],
  extra: { service?: string; hpaClass?: boolean } = {},
): PodAutoscaler {
  return {
    metadata: {
      name,
      namespace: 'landscape',
      uid: `uid-${name}`,
      labels: extra.service ? { 'serving.knative.dev/service': extra.service } : {},
      annotations: {
        'autoscaling.knative.dev/class': extra.hpaClass
          ? 'hpa.autoscaling.knative.dev'
          : 'kpa.autoscaling.knative.dev',
      },
    },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `${name}-deployment` } },
    status,
  };
}

describe('resourceMetrics (Resource metrics cpu and memory of status.currentMetrics)', () => {
  it.each<[string, MetricStatus[] | null | undefined, Record<string, unknown>]>([
    ['none', undefined, {}],
    ['null (omitted list)', null, {}],
    [
      'both, as the seed',
      [memory(20, '64625322666m'), cpu(108, '325m')],
      {
        memoryAverageUtilization: 20,
        memoryAverageValue: '64625322666m',
        cpuAverageUtilization: 108,
        cpuAverageValue: '325m',
      },
    ],
    [
      'value without utilization (AverageValue target)',
      [cpu(undefined, '250m')],
      { cpuAverageValue: '250m' },
    ],
    ['a numeric quantity becomes a string', [memory(undefined, 1024)], { memoryAverageValue: '1024' }],
    [
      'other metric types and resources are ignored',
      [
        { type: 'Pods', resource: { name: 'cpu', current: { averageUtilization: 1 } } },
        { type: 'Resource', resource: { name: 'ephemeral-storage', current: { averageUtilization: 9 } } },
        { type: 'Resource', resource: { name: 'cpu' } },
        { type: 'External' },
      ],
      {},
    ],
    ['negative or fractional utilization is not a percentage', [cpu(-1, ''), memory(1.5)], {}],
  ])('%s', (_name, metrics, want) => {
    expect(resourceMetrics(metrics)).toEqual(want);
  });
});

describe('fromHpa', () => {
  it.each<[string, HorizontalPodAutoscaler, string | undefined, HpaStatistics]>([
    [
      'the seed line: resource is namespace/<scale target>',
      hpa(
        'helm-hpa',
        {
          currentReplicas: 3,
          desiredReplicas: 3,
          currentMetrics: [memory(20, '64625322666m'), cpu(108, '325m')],
        },
        { target: 'helm-default-helm-deployer' },
      ),
      undefined,
      {
        resource: 'ls-system/helm-default-helm-deployer',
        currentReplicas: 3,
        desiredReplicas: 3,
        memoryAverageUtilization: 20,
        memoryAverageValue: '64625322666m',
        cpuAverageUtilization: 108,
        cpuAverageValue: '325m',
      },
    ],
    ['no status yet: only the resource', hpa('fresh', undefined), undefined, { resource: 'ls-system/fresh' }],
    [
      'currentReplicas omitted next to desiredReplicas means 0',
      hpa('idle', { desiredReplicas: 1 }),
      undefined,
      { resource: 'ls-system/idle', currentReplicas: 0, desiredReplicas: 1 },
    ],
    [
      'an explicit resource wins',
      hpa('x', { currentReplicas: 2, desiredReplicas: 4 }),
      'landscape/fn',
      { resource: 'landscape/fn', currentReplicas: 2, desiredReplicas: 4 },
    ],
  ])('%s', (_name, object, resource, want) => {
    expect(fromHpa(object, resource)).toEqual(want);
  });
});

describe('fromPodAutoscaler', () => {
  it.each<[string, PodAutoscaler, HpaStatistics]>([
    [
      'named after its Knative Service',
      pa('deployer-mock-00001', { actualScale: 2, desiredScale: 3 }, { service: 'deployer-mock' }),
      { resource: 'landscape/deployer-mock', currentReplicas: 2, desiredReplicas: 3 },
    ],
    [
      'without the label: named after itself',
      pa('lonely', { actualScale: 0, desiredScale: 0 }),
      { resource: 'landscape/lonely', currentReplicas: 0, desiredReplicas: 0 },
    ],
    [
      'desiredScale -1 (not known yet) and no actualScale are left out',
      pa('new', { desiredScale: -1 }),
      { resource: 'landscape/new' },
    ],
    ['no status', pa('bare', undefined), { resource: 'landscape/bare' }],
  ])('%s', (_name, object, want) => {
    expect(fromPodAutoscaler(object)).toStrictEqual(want);
  });
});

describe('fromActivator', () => {
  it.each<[string, Parameters<typeof fromActivator>[0], HpaStatistics]>([
    [
      'replicas and desired',
      { name: 'deployer-mock', namespace: 'landscape', replicas: 1, desired: 2, inFlight: 3, queued: 1 },
      { resource: 'landscape/deployer-mock', currentReplicas: 1, desiredReplicas: 2 },
    ],
    [
      'scaled to zero',
      { name: 'f', namespace: 'landscape', replicas: 0, desired: 0 },
      { resource: 'landscape/f', currentReplicas: 0, desiredReplicas: 0 },
    ],
    ['nothing known', { name: 'f', namespace: 'n' }, { resource: 'n/f' }],
  ])('%s', (_name, row, want) => {
    expect(fromActivator(row)).toStrictEqual(want);
  });
});

describe('knativeStatistics', () => {
  it('takes replicas and cpu/memory of an HPA-class PodAutoscaler from its HPA', () => {
    const p = pa('fn-00001', { actualScale: 1, desiredScale: 1 }, { service: 'fn', hpaClass: true });
    const h = hpa(
      'fn-00001',
      { currentReplicas: 2, desiredReplicas: 3, currentMetrics: [cpu(90, '180m')] },
      { ownerPa: 'fn-00001', target: 'fn-00001-deployment', namespace: 'landscape' },
    );
    expect(hpaOf(p, [h])).toBe(h);
    expect(knativeStatistics([p], [h])).toEqual([
      {
        resource: 'landscape/fn',
        currentReplicas: 2,
        desiredReplicas: 3,
        cpuAverageUtilization: 90,
        cpuAverageValue: '180m',
      },
    ]);
  });

  it('finds the HPA of an HPA-class PodAutoscaler by name when it has no owner reference', () => {
    const p = pa('fn-00001', { actualScale: 1 }, { hpaClass: true });
    const other = hpa('fn-00001', { currentReplicas: 9, desiredReplicas: 9 }, { namespace: 'elsewhere' });
    const h = hpa('fn-00001', { currentReplicas: 4, desiredReplicas: 4 }, { namespace: 'landscape' });
    expect(hpaOf(p, [other, h])).toBe(h);
  });

  it('keeps the PodAutoscaler figures of an HPA-class one whose HPA is missing, and ignores HPAs of KPA ones', () => {
    const hpaClass = pa('a-00001', { actualScale: 1, desiredScale: 2 }, { service: 'a', hpaClass: true });
    const kpa = pa('b-00001', { actualScale: 3, desiredScale: 3 }, { service: 'b' });
    const stray = hpa(
      'b-00001',
      { currentReplicas: 7, desiredReplicas: 7, currentMetrics: [cpu(1)] },
      {
        namespace: 'landscape',
      },
    );
    expect(knativeStatistics([kpa, hpaClass], [stray])).toEqual([
      { resource: 'landscape/a', currentReplicas: 1, desiredReplicas: 2 },
      { resource: 'landscape/b', currentReplicas: 3, desiredReplicas: 3 },
    ]);
  });

  it('adds up the revisions of one Service', () => {
    const rows = knativeStatistics(
      [
        pa('fn-00001', { actualScale: 0, desiredScale: 0 }, { service: 'fn' }),
        pa('fn-00002', { actualScale: 2, desiredScale: 3 }, { service: 'fn' }),
        pa('g-00001', { actualScale: 1, desiredScale: 1 }, { service: 'g' }),
      ],
      [],
    );
    expect(rows).toEqual([
      { resource: 'landscape/fn', currentReplicas: 2, desiredReplicas: 3 },
      { resource: 'landscape/g', currentReplicas: 1, desiredReplicas: 1 },
    ]);
  });
});

describe('mergeRevisions', () => {
  const r = (
    currentReplicas?: number,
    desiredReplicas?: number,
    cpuAverageUtilization?: number,
  ): HpaStatistics =>
    JSON.parse(JSON.stringify({ resource: 'n/f', currentReplicas, desiredReplicas, cpuAverageUtilization }));
  it.each<[string, HpaStatistics[], HpaStatistics]>([
    ['one row as it is', [r(1, 2, 50)], r(1, 2, 50)],
    ['cpu of the only running revision', [r(0, 0, 10), r(2, 2, 80)], r(2, 2, 80)],
    ['no cpu when two revisions run', [r(1, 1, 10), r(2, 2, 80)], r(3, 3)],
    ['unknown replicas stay unknown', [r(), r()], r()],
    ['known replicas add up past unknown ones', [r(undefined, 1), r(2)], r(2, 1)],
  ])('%s', (_name, rows, want) => {
    expect(mergeRevisions(rows)).toStrictEqual(want);
  });
  it('needs a row', () => {
    expect(() => mergeRevisions([])).toThrow(RangeError);
  });
});

describe('hpaStatistics', () => {
  it('reports HPAs that no PodAutoscaler owns, sorted by resource', () => {
    expect(
      hpaStatistics([
        hpa('z', { currentReplicas: 1, desiredReplicas: 1 }),
        hpa('fn-00001', { currentReplicas: 5, desiredReplicas: 5 }, { ownerPa: 'fn-00001' }),
        hpa('a', { currentReplicas: 2, desiredReplicas: 1 }),
      ]),
    ).toEqual([
      { resource: 'ls-system/a', currentReplicas: 2, desiredReplicas: 1 },
      { resource: 'ls-system/z', currentReplicas: 1, desiredReplicas: 1 },
    ]);
  });
});

describe('the log line', () => {
  it('is the seed line, keys in the seed order, unknown fields left out', () => {
    const chunks: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb): void {
        chunks.push(chunk.toString());
        cb();
      },
    });
    const log = createLogger({
      name: MONITORING_LOGGER_NAME,
      destination,
      now: () => Date.parse('2023-07-13T11:33:30.205Z'),
    });
    const seed: HpaStatistics = {
      cpuAverageValue: '325m',
      cpuAverageUtilization: 108,
      memoryAverageValue: '64625322666m',
      memoryAverageUtilization: 20,
      desiredReplicas: 3,
      currentReplicas: 3,
      resource: 'ls-system/helm-default-helm-deployer',
    };
    log.info(HPA_STATISTICS_MSG, statisticsFields(seed));
    log.info(HPA_STATISTICS_MSG, statisticsFields({ resource: 'landscape/f', currentReplicas: 0 }));
    expect(chunks.join('').split('\n').filter(Boolean)).toEqual([
      '{"level":"info","ts":"2023-07-13T11:33:30.205Z","logger":"controllers.landscaper-monitoring",' +
        '"msg":"HPA Statistics","resource":"ls-system/helm-default-helm-deployer","currentReplicas":3,' +
        '"desiredReplicas":3,"memoryAverageUtilization":20,"memoryAverageValue":"64625322666m",' +
        '"cpuAverageUtilization":108,"cpuAverageValue":"325m"}',
      '{"level":"info","ts":"2023-07-13T11:33:30.205Z","logger":"controllers.landscaper-monitoring",' +
        '"msg":"HPA Statistics","resource":"landscape/f","currentReplicas":0}',
    ]);
  });
});
