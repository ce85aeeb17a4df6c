/**
 * Objects in the states `kubectl get` shows on real clusters (test data for table.test.ts); the
 * plain happy-path objects come from builtins/builtins.fixtures*.ts.
 */
import type { KubeObject, ResourceDef } from '../../api/types.js';
import type { ColumnDefinition } from './index.js';

/** toTable's result, typed for the tests. */
export interface TableJSON {
  kind: string;
  apiVersion: string;
  metadata: Record<string, unknown>;
  columnDefinitions: ColumnDefinition[];
  rows: { cells: unknown[]; conditions?: unknown[]; object: Record<string, unknown> }[];
}

export const NOW = new Date('2025-01-02T04:00:00Z');
/** 55m55s before NOW: kubectl shows "55m". */
export const CREATED = '2025-01-02T03:04:05Z';

type Rec = Record<string, unknown>;

export function obj(kind: string, name: string, rest: Rec = {}, meta: Rec = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind,
    metadata: { name, namespace: 'default', creationTimestamp: CREATED, resourceVersion: '42', ...meta },
    ...rest,
  };
}

const running = { running: { startedAt: '2025-01-02T03:05:00Z' } };
const podIPs = [{ ip: '10.244.1.7' }, { ip: 'fd00::7' }];

export function pod(name: string, spec: Rec, status: Rec, meta: Rec = {}): KubeObject {
  return obj('Pod', name, { spec: { containers: [{ name: 'app', image: 'app:1' }], ...spec }, status }, meta);
}

export const pods = {
  crashLoop: pod(
    'crash',
    { nodeName: 'node-1' },
    {
      phase: 'Running',
      podIPs,
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          restartCount: 5,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 2m40s' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: '2025-01-02T03:57:00Z' } },
        },
      ],
    },
  ),
  initRunning: pod(
    'init',
    { initContainers: [{ name: 'init-a' }, { name: 'init-b' }] },
    {
      phase: 'Pending',
      initContainerStatuses: [
        {
          name: 'init-a',
          ready: true,
          restartCount: 0,
          state: { terminated: { exitCode: 0, reason: 'Completed' } },
        },
        { name: 'init-b', ready: false, restartCount: 0, state: running },
      ],
      containerStatuses: [
        { name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
      ],
    },
  ),
  initCrash: pod(
    'init-crash',
    { initContainers: [{ name: 'migrate' }] },
    {
      phase: 'Pending',
      initContainerStatuses: [
        {
          name: 'migrate',
          ready: false,
          restartCount: 3,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 2, finishedAt: '2025-01-02T03:59:30Z' } },
        },
      ],
    },
  ),
  completed: pod(
    'job-x7k2p',
    {},
    {
      phase: 'Succeeded',
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 0, reason: 'Completed' } },
        },
      ],
    },
  ),
  sidecar: pod(
    'meshed',
    { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] },
    {
      phase: 'Running',
      conditions: [
        { type: 'Initialized', status: 'True' },
        { type: 'Ready', status: 'True' },
      ],
      initContainerStatuses: [
        {
          name: 'proxy',
          ready: true,
          started: true,
          restartCount: 1,
          state: running,
          lastState: { terminated: { exitCode: 137, reason: 'Error', finishedAt: '2025-01-02T02:00:00Z' } },
        },
      ],
      containerStatuses: [{ name: 'app', ready: true, started: true, restartCount: 0, state: running }],
    },
  ),
  gated: pod(
    'gated',
    {},
    { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
  ),
  gates: pod(
    'gates',
    {
      readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }],
      nodeName: 'node-2',
    },
    {
      phase: 'Running',
      podIPs,
      nominatedNodeName: 'node-3',
      conditions: [{ type: 'example.com/lb', status: 'True' }],
      containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }],
    },
  ),
  notReady: pod(
    'half-done',
    { containers: [{ name: 'a' }, { name: 'b' }] },
    {
      phase: 'Running',
      containerStatuses: [
        { name: 'a', ready: true, restartCount: 0, state: running },
        {
          name: 'b',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 0, reason: 'Completed' } },
        },
      ],
    },
  ),
  signal: pod(
    'killed',
    {},
    {
      phase: 'Running',
      containerStatuses: [
        { name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 137, signal: 9 } } },
      ],
    },
  ),
  nodeLost: pod(
    'lost',
    {},
    { phase: 'Running', reason: 'NodeLost' },
    { deletionTimestamp: '2025-01-02T03:58:00Z' },
  ),
};

export const services = {
  pending: obj('Service', 'web', {
    spec: {
      type: 'LoadBalancer',
      clusterIPs: ['10.96.0.5'],
      ports: [{ port: 443, nodePort: 31443, protocol: 'TCP' }],
    },
    status: { loadBalancer: {} },
  }),
  loadBalancer: obj('Service', 'edge', {
    spec: {
      type: 'LoadBalancer',
      clusterIPs: ['10.96.0.6'],
      externalIPs: ['198.51.100.1'],
      ports: [{ port: 53, nodePort: 30053, protocol: 'UDP' }],
      selector: { tier: 'edge', app: 'dns' },
    },
    status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }, { ip: '203.0.113.10' }] } },
  }),
  externalName: obj('Service', 'db', { spec: { type: 'ExternalName', externalName: 'db.example.com' } }),
  headless: obj('Service', 'redis', {
    spec: { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 6379 }] },
  }),
};

export const cordonedNode = obj(
  'Node',
  'node-2',
  {
    spec: { unschedulable: true },
    status: {
      conditions: [{ type: 'Ready', status: 'Unknown' }],
      addresses: [
        { type: 'InternalIP', address: '10.0.1.2' },
        { type: 'ExternalIP', address: '34.1.2.3' },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.31.4',
        osImage: 'Garden Linux',
        kernelVersion: '6.6.0',
        containerRuntimeVersion: 'containerd://1.7.2',
      },
    },
  },
  {
    namespace: undefined,
    labels: {
      'node-role.kubernetes.io/worker': '',
      'node-role.kubernetes.io/control-plane': '',
      'kubernetes.io/role': 'infra',
    },
  },
);

export const manyEndpoints = obj('Endpoints', 'web', {
  subsets: [
    {
      addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }],
      ports: [
        { name: 'http', port: 80 },
        { name: 'https', port: 443 },
      ],
    },
  ],
});

export const manySlices = obj('EndpointSlice', 'web-abcde', {
  addressType: 'IPv4',
  ports: [{ port: 80 }, { name: 'https' }, {}, { port: 8443 }],
  endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4', '10.0.0.5'] }],
});

/** An event as client-go's events.k8s.io recorder writes it (series, eventTime, reporting*). */
export const seriesEvent = obj('Event', 'web.181f', {
  involvedObject: { kind: 'Deployment', namespace: 'default' },
  reason: 'FailedScheduling',
  message: '0/3 nodes are available.  \n',
  type: 'Warning',
  firstTimestamp: null,
  lastTimestamp: null,
  eventTime: '2025-01-02T03:59:00.000000Z',
  series: { count: 4, lastObservedTime: '2025-01-02T03:59:50.000000Z' },
  reportingComponent: 'default-scheduler',
  reportingInstance: '',
  source: {},
});

export const hpaAverage = obj('HorizontalPodAutoscaler', 'api', {
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'api' },
    maxReplicas: 4,
    metrics: [
      {
        type: 'Resource',
        resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1024Mi' } },
      },
      {
        type: 'External',
        external: { metric: { name: 'q' }, target: { type: 'AverageValue', averageValue: '500m' } },
      },
    ],
  },
  status: {
    currentMetrics: [
      { type: 'Resource', resource: { name: 'memory', current: { averageValue: '524288Ki' } } },
      { type: 'External', external: { metric: { name: 'q' }, current: { averageValue: '0.25' } } },
    ],
  },
});

export const selectorDeployment = obj('Deployment', 'shop', {
  spec: {
    replicas: 3,
    selector: {
      matchLabels: { tier: 'fe', app: 'web' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'dev'] },
        { key: 'canary', operator: 'DoesNotExist' },
      ],
    },
    template: {
      spec: {
        containers: [
          { name: 'nginx', image: 'nginx:1.27' },
          { name: 'envoy', image: 'envoy:1.30' },
        ],
      },
    },
  },
  status: {},
});

/** A CRD definition with Gardener Shoot-like columns. */
export const shootDef: ResourceDef = {
  group: 'core.gardener.cloud',
  version: 'v1beta1',
  kind: 'Shoot',
  listKind: 'ShootList',
  plural: 'shoots',
  singular: 'shoot',
  shortNames: [],
  categories: [],
  namespaced: true,
  schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  subresources: { status: true },
  builtin: false,
  printerColumns: [
    { name: 'Provider', type: 'string', jsonPath: '.spec.provider.type' },
    { name: 'Region', type: 'string', jsonPath: '.spec.region' },
    { name: 'K8S Version', type: 'string', jsonPath: '.spec.kubernetes.version', priority: 0 },
    {
      name: 'APIServer',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="APIServerAvailable")].status',
    },
    { name: 'Progress', type: 'integer', jsonPath: '.status.lastOperation.progress' },
    { name: 'Hibernated', type: 'boolean', jsonPath: '.spec.hibernation.enabled', priority: 1 },
    { name: 'Workers', type: 'string', jsonPath: '.spec.provider.workers[*].name', priority: 1 },
    { name: 'Labels', type: 'string', jsonPath: '.metadata.labels', priority: 1 },
    {
      name: 'Operated',
      type: 'date',
      jsonPath: '.status.lastOperation.lastUpdateTime',
      description: 'When the last operation ran',
    },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

export const shoot = obj(
  'Shoot',
  'dev',
  {
    spec: {
      region: 'eu-west-1',
      kubernetes: { version: '1.32.2' },
      hibernation: { enabled: false },
      provider: { type: 'aws', workers: [{ name: 'pool-a' }, { name: 'pool-b' }] },
    },
    status: {
      conditions: [
        { type: 'APIServerAvailable', status: 'True' },
        { type: 'EveryNodeReady', status: 'False' },
      ],
      lastOperation: {
        type: 'Reconcile',
        state: 'Succeeded',
        progress: 100,
        lastUpdateTime: '2025-01-02T03:55:00Z',
      },
    },
  },
  { labels: { 'shoot.gardener.cloud/status': 'healthy', note: '<x>' } },
);

export const freshShoot = obj(
  'Shoot',
  'fresh',
  {
    spec: {
      region: 'europe-west1',
      kubernetes: { version: '1.31.1' },
      provider: { type: 'gcp', workers: [] },
    },
  },
  { creationTimestamp: '2025-01-02T03:59:57Z' },
);
