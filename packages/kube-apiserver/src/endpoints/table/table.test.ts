/** One row per printer: the cells kubectl shows for these objects on a real 1.32 cluster. */
import * as fx from '../../registry/builtins/builtins.fixtures.js';
import * as core from '../../registry/builtins/builtins.fixtures-core.js';
import { builtinResources } from '../../registry/builtins/index.js';
import type { KubeObject, ResourceDef } from '../../api/types.js';
import { NAME } from './descriptions.js';
import { toTable } from './index.js';
import * as t from './table.fixtures.js';

const defs = new Map(builtinResources().map((d) => [d.kind, d]));
const def = (kind: string): ResourceDef => defs.get(kind)!;

/** A fixture with the timestamps the server would have set. */
function stored(o: object): KubeObject {
  const x = structuredClone(o) as KubeObject;
  x.metadata = { creationTimestamp: t.CREATED, ...x.metadata, resourceVersion: '7' };
  return x;
}

function table(d: ResourceDef, objects: KubeObject[], more: object = {}): t.TableJSON {
  return toTable(d, objects, { now: t.NOW, includeObject: 'Metadata', ...more }) as unknown as t.TableJSON;
}

function cells(kind: string, o: object): unknown[] {
  return table(def(kind), [stored(o)]).rows[0].cells;
}

const MSG = 'Container image "api:1.0" already present on machine';

describe('built-in printers (cells as a 1.32 API server computes them, wide columns included)', () => {
  test.each<[string, string, object, unknown[]]>([
    [
      'deployment',
      'Deployment',
      fx.deploymentWithStatus,
      ['web', '1/1', 1, 1, '55m', 'nginx', 'nginx:1.27', 'app=web'],
    ],
    [
      'deployment, selector expressions',
      'Deployment',
      t.selectorDeployment,
      [
        'shop',
        '0/3',
        0,
        0,
        '55m',
        'nginx,envoy',
        'nginx:1.27,envoy:1.30',
        'app=web,!canary,env in (dev,prod),tier=fe',
      ],
    ],
    ['statefulset', 'StatefulSet', core.statefulSet, ['redis', '3/3', '55m', 'redis', 'redis:7']],
    [
      'replicationcontroller',
      'ReplicationController',
      core.replicationController,
      ['nginx', 2, 2, 2, '55m', 'nginx', 'nginx:1.27', 'app=nginx'],
    ],
    [
      'replicationcontroller without status',
      'ReplicationController',
      t.obj('ReplicationController', 'bare', {
        spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1' }] } } },
      }),
      ['bare', 1, 0, 0, '55m', 'a', 'a:1', '<none>'],
    ],
    [
      'daemonset',
      'DaemonSet',
      core.daemonSet,
      [
        'node-exporter',
        3,
        3,
        3,
        3,
        3,
        'kubernetes.io/os=linux',
        '55m',
        'node-exporter',
        'prom/node-exporter:v1.8.2',
        'app=node-exporter',
      ],
    ],
    [
      'daemonset without status or node selector',
      'DaemonSet',
      t.obj('DaemonSet', 'bare', {
        spec: {
          selector: { matchLabels: { app: 'b' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
          template: { spec: { containers: [{ name: 'a', image: 'a:1' }] } },
        },
      }),
      ['bare', 0, 0, 0, 0, 0, '<none>', '55m', 'a', 'a:1', 'app=b,tier'],
    ],
    [
      'pod running',
      'Pod',
      fx.pod,
      ['api-0', '1/1', 'Running', '0', '55m', '10.0.0.12', '<none>', '<none>', '<none>'],
    ],
    [
      'pod crash looping',
      'Pod',
      t.pods.crashLoop,
      ['crash', '0/1', 'CrashLoopBackOff', '5 (3m ago)', '55m', '10.244.1.7', 'node-1', '<none>', '<none>'],
    ],
    [
      'pod init',
      'Pod',
      t.pods.initRunning,
      ['init', '0/1', 'Init:1/2', '0', '55m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'pod init crash',
      'Pod',
      t.pods.initCrash,
      [
        'init-crash',
        '0/1',
        'Init:CrashLoopBackOff',
        '3 (30s ago)',
        '55m',
        '<none>',
        '<none>',
        '<none>',
        '<none>',
      ],
    ],
    [
      'pod completed',
      'Pod',
      t.pods.completed,
      ['job-x7k2p', '0/1', 'Completed', '0', '55m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'pod sidecar',
      'Pod',
      t.pods.sidecar,
      ['meshed', '2/2', 'Running', '1 (120m ago)', '55m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'pod gated',
      'Pod',
      t.pods.gated,
      ['gated', '0/1', 'SchedulingGated', '0', '55m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'pod gates',
      'Pod',
      t.pods.gates,
      ['gates', '1/1', 'Running', '0', '55m', '10.244.1.7', 'node-2', 'node-3', '1/2'],
    ],
    [
      'pod not ready',
      'Pod',
      t.pods.notReady,
      ['half-done', '1/2', 'NotReady', '0', '55m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'pod signal',
      'Pod',
      t.pods.signal,
      ['killed', '0/1', 'Signal:9', '0', '55m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'pod node lost',
      'Pod',
      t.pods.nodeLost,
      ['lost', '0/1', 'Unknown', '0', '55m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'pod terminating',
      'Pod',
      { ...fx.pod, metadata: { ...fx.pod.metadata, deletionTimestamp: '2025-01-02T03:59:00Z' } },
      ['api-0', '1/1', 'Terminating', '0', '55m', '10.0.0.12', '<none>', '<none>', '<none>'],
    ],
    [
      'pod with only podIP (v1 conversion fills podIPs)',
      'Pod',
      t.pod('legacy', {}, { phase: 'Pending', podIP: '10.1.1.1' }),
      ['legacy', '0/1', 'Pending', '0', '55m', '10.1.1.1', '<none>', '<none>', '<none>'],
    ],
    [
      'service with only clusterIP',
      'Service',
      t.obj('Service', 'old', { spec: { clusterIP: '10.96.9.9', ports: [{ port: 80, protocol: 'TCP' }] } }),
      ['old', 'ClusterIP', '10.96.9.9', '<none>', '80/TCP', '55m', '<none>'],
    ],
    [
      'service nodeport',
      'Service',
      fx.service,
      ['api', 'NodePort', '10.96.12.1', '<none>', '80:30080/TCP,9090/TCP', '55m', 'app=api'],
    ],
    [
      'service pending',
      'Service',
      t.services.pending,
      ['web', 'LoadBalancer', '10.96.0.5', '<pending>', '443:31443/TCP', '55m', '<none>'],
    ],
    [
      'service load balancer',
      'Service',
      t.services.loadBalancer,
      [
        'edge',
        'LoadBalancer',
        '10.96.0.6',
        '203.0.113.10,lb.example.com,198.51.100.1',
        '53:30053/UDP',
        '55m',
        'app=dns,tier=edge',
      ],
    ],
    [
      'service external name',
      'Service',
      t.services.externalName,
      ['db', 'ExternalName', '<none>', 'db.example.com', '<none>', '55m', '<none>'],
    ],
    [
      'service headless',
      'Service',
      t.services.headless,
      ['redis', 'ClusterIP', 'None', '<none>', '6379/TCP', '55m', '<none>'],
    ],
    [
      'configmap (data + binaryData, no timestamp)',
      'ConfigMap',
      core.configMap,
      ['api-config', 2, '<unknown>'],
    ],
    ['secret (stringData merged into data)', 'Secret', fx.secret, ['db', 'Opaque', 3, '55m']],
    [
      'secret tls',
      'Secret',
      t.obj('Secret', 'tls', { type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==' } }),
      ['tls', 'kubernetes.io/tls', 1, '55m'],
    ],
    ['serviceaccount', 'ServiceAccount', core.serviceAccount, ['api', 1, '55m']],
    ['namespace', 'Namespace', core.namespace, ['garden', 'Active', '55m']],
    [
      'node',
      'Node',
      core.node,
      [
        'node-1',
        'Ready',
        'control-plane',
        '55m',
        'v1.32.0',
        '192.168.1.5',
        '<none>',
        'Debian GNU/Linux 12',
        '<unknown>',
        '<unknown>',
      ],
    ],
    [
      'node cordoned',
      'Node',
      t.cordonedNode,
      [
        'node-2',
        'NotReady,SchedulingDisabled',
        'control-plane,infra,worker',
        '55m',
        'v1.31.4',
        '10.0.1.2',
        '34.1.2.3',
        'Garden Linux',
        '6.6.0',
        'containerd://1.7.2',
      ],
    ],
    [
      'node without conditions',
      'Node',
      t.obj('Node', 'n', {}),
      ['n', 'Unknown', '<none>', '55m', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>'],
    ],
    ['lease', 'Lease', fx.lease, ['dependency-watchdog-prober', 'prober-7c9d_1f2e', '55m']],
    ['lease without holder', 'Lease', t.obj('Lease', 'l', { spec: {} }), ['l', '', '55m']],
    ['endpoints', 'Endpoints', core.endpoints, ['api', '10.0.0.12:8080', '55m']],
    [
      'endpoints, more',
      'Endpoints',
      t.manyEndpoints,
      ['web', '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...', '55m'],
    ],
    [
      'endpoints, no ports',
      'Endpoints',
      t.obj('Endpoints', 'h', { subsets: [{ addresses: [{ ip: 'fd00::1' }] }] }),
      ['h', 'fd00::1', '55m'],
    ],
    ['endpoints, none', 'Endpoints', t.obj('Endpoints', 'e', {}), ['e', '<none>', '55m']],
    [
      'endpointslice',
      'EndpointSlice',
      fx.endpointSlice,
      ['api-x7k2p', 'IPv4', '8080,9090', '10.0.0.12', '55m'],
    ],
    [
      'endpointslice, empty',
      'EndpointSlice',
      fx.emptyEndpointSlice,
      ['api-x7k2p', 'IPv4', '<unset>', '<unset>', '55m'],
    ],
    [
      'endpointslice, more',
      'EndpointSlice',
      t.manySlices,
      ['web-abcde', 'IPv4', '80,https,* + 1 more...', '10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...', '55m'],
    ],
    [
      'event',
      'Event',
      core.event,
      [
        '55m',
        'Normal',
        'Pulled',
        'pod/api-0',
        'spec.containers{api}',
        'kubelet, node-1',
        MSG,
        '55m',
        1,
        'api-0.17f3a1b2c3d4e5f6',
      ],
    ],
    [
      'event with series',
      'Event',
      t.seriesEvent,
      [
        '10s',
        'Warning',
        'FailedScheduling',
        'deployment',
        '',
        'default-scheduler',
        '0/3 nodes are available.',
        '60s',
        4,
        'web.181f',
      ],
    ],
    [
      'hpa',
      'HorizontalPodAutoscaler',
      fx.hpa,
      ['web', 'Deployment/web', 'cpu: 85%/70%, <unknown>/1k + 1 more...', '2', 10, 2, '55m'],
    ],
    [
      'hpa average values',
      'HorizontalPodAutoscaler',
      t.hpaAverage,
      ['api', 'StatefulSet/api', 'memory: 512Mi/1Gi, 250m/500m (avg)', '<unset>', 4, 0, '55m'],
    ],
    [
      'crd',
      'CustomResourceDefinition',
      core.customResourceDefinition,
      ['syncobjects.landscaper.gardener.cloud', '2025-01-02T03:04:05Z'],
    ],
  ])('%s', (_name, kind, o, expected) => {
    expect(cells(kind, o)).toEqual(expected);
  });

  test('column definitions: Name first (Event lists its own), real types and descriptions, def priorities', () => {
    const pod = table(def('Pod'), []).columnDefinitions;
    expect(pod[0]).toEqual({ name: 'Name', type: 'string', format: 'name', description: NAME, priority: 0 });
    expect(NAME).toMatch(/^Name must be unique within a namespace\. /);
    expect(pod.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Ready', 'string', 0],
      ['Status', 'string', 0],
      ['Restarts', 'string', 0],
      ['Age', 'string', 0],
      ['IP', 'string', 1],
      ['Node', 'string', 1],
      ['Nominated Node', 'string', 1],
      ['Readiness Gates', 'string', 1],
    ]);
    expect(pod.every((c) => c.description && !c.description.startsWith('computed:'))).toBe(true);
    const event = table(def('Event'), []).columnDefinitions.map((c) => c.name);
    expect(event[0]).toBe('Last Seen');
    expect(event.at(-1)).toBe('Name');
    expect(table(def('CustomResourceDefinition'), []).columnDefinitions[1]).toMatchObject({
      name: 'Created At',
      type: 'date',
    });
  });

  test('row conditions of finished pods; none for running ones', () => {
    expect(table(def('Pod'), [stored(t.pods.completed)]).rows[0].conditions).toEqual([
      {
        type: 'Completed',
        status: 'True',
        reason: 'Succeeded',
        message: 'The pod has completed successfully.',
      },
    ]);
    expect(table(def('Pod'), [stored(fx.pod)]).rows[0]).not.toHaveProperty('conditions');
  });

  test('an unknown computed column falls back to its jsonPath', () => {
    const d = {
      ...def('ConfigMap'),
      printerColumns: [
        { name: 'Mode', type: 'string' as const, jsonPath: '.data.mode', description: 'computed: x' },
      ],
    };
    expect(table(d, [t.obj('ConfigMap', 'c', { data: { mode: 'fast' } })]).rows[0].cells).toEqual([
      'c',
      'fast',
    ]);
  });
});
