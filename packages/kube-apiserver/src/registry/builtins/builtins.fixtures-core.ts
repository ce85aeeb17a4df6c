/** More realistic built-in objects (test data): the kinds not covered in builtins.fixtures.ts. */

export const namespace = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'garden', labels: { 'kubernetes.io/metadata.name': 'garden' } },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
};

export const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'api-config', namespace: 'default', creationTimestamp: null },
  data: { 'config.yaml': 'level: info\n' },
  binaryData: { 'logo.png': 'iVBORw0KGgo=' },
};

export const serviceAccount = {
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'api', namespace: 'default' },
  automountServiceAccountToken: false,
  imagePullSecrets: [{ name: 'registry' }],
  secrets: [{ name: 'api-token' }],
};

export const endpoints = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'api', namespace: 'default' },
  subsets: [
    {
      addresses: [
        {
          ip: '10.0.0.12',
          nodeName: 'node-1',
          targetRef: { kind: 'Pod', name: 'api-0', namespace: 'default' },
        },
      ],
      notReadyAddresses: [{ ip: '10.0.0.13' }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    },
  ],
};

export const event = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'api-0.17f3a1b2c3d4e5f6', namespace: 'default' },
  involvedObject: {
    apiVersion: 'v1',
    kind: 'Pod',
    name: 'api-0',
    namespace: 'default',
    fieldPath: 'spec.containers{api}',
  },
  reason: 'Pulled',
  message: 'Container image "api:1.0" already present on machine',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2025-01-02T03:04:05Z',
  lastTimestamp: '2025-01-02T03:04:05Z',
  count: 1,
  type: 'Normal',
  eventTime: null,
  reportingComponent: 'kubelet',
  reportingInstance: 'node-1',
};

export const node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-1', labels: { 'node-role.kubernetes.io/control-plane': '' } },
  spec: {
    podCIDR: '10.0.0.0/24',
    podCIDRs: ['10.0.0.0/24'],
    taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
  },
  status: {
    capacity: { cpu: '4', memory: '16Gi', pods: '110' },
    allocatable: { cpu: '3800m', memory: '15Gi', pods: 110 },
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        lastHeartbeatTime: '2025-01-02T03:04:05Z',
        lastTransitionTime: '2025-01-01T00:00:00Z',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
      },
    ],
    addresses: [
      { type: 'InternalIP', address: '192.168.1.5' },
      { type: 'Hostname', address: 'node-1' },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12', architecture: 'amd64' },
    images: [{ names: ['registry.example.com/api:1.0'], sizeBytes: 123456789 }],
  },
};

export const statefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'redis', namespace: 'default' },
  spec: {
    serviceName: 'redis',
    replicas: 3,
    selector: { matchLabels: { app: 'redis' } },
    podManagementPolicy: 'Parallel',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
    template: {
      metadata: { labels: { app: 'redis' } },
      spec: {
        containers: [
          {
            name: 'redis',
            image: 'redis:7',
            ports: [{ containerPort: 6379, name: 'redis' }],
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          },
        ],
      },
    },
    volumeClaimTemplates: [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    ],
  },
  status: { replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3 },
};

/** A ReplicationController as a 1.32 server returns it after the replication manager's pass. */
export const replicationController = {
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' }, generation: 1 },
  spec: {
    replicas: 2,
    minReadySeconds: 0,
    selector: { app: 'nginx' },
    template: {
      metadata: { labels: { app: 'nginx' } },
      spec: {
        containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }] }],
        restartPolicy: 'Always',
      },
    },
  },
  status: {
    replicas: 2,
    fullyLabeledReplicas: 2,
    readyReplicas: 2,
    availableReplicas: 2,
    observedGeneration: 1,
    conditions: [{ type: 'ReplicaFailure', status: 'False', lastTransitionTime: '2025-01-02T03:04:05Z' }],
  },
};

/** A DaemonSet as a 1.32 server returns it after the DaemonSet controller's pass. */
export const daemonSet = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: {
    name: 'node-exporter',
    namespace: 'kube-system',
    annotations: { 'deprecated.daemonset.template.generation': '1' },
    generation: 1,
  },
  spec: {
    selector: { matchLabels: { app: 'node-exporter' } },
    revisionHistoryLimit: 10,
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    template: {
      metadata: { labels: { app: 'node-exporter' } },
      spec: {
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        hostNetwork: true,
        containers: [{ name: 'node-exporter', image: 'prom/node-exporter:v1.8.2' }],
        tolerations: [{ operator: 'Exists' }],
      },
    },
  },
  status: {
    currentNumberScheduled: 3,
    numberMisscheduled: 0,
    desiredNumberScheduled: 3,
    numberReady: 3,
    observedGeneration: 1,
    updatedNumberScheduled: 3,
    numberAvailable: 3,
  },
};

export const customResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'syncobjects.landscaper.gardener.cloud' },
  spec: {
    group: 'landscaper.gardener.cloud',
    names: {
      kind: 'SyncObject',
      listKind: 'SyncObjectList',
      plural: 'syncobjects',
      singular: 'syncobject',
      shortNames: ['so'],
    },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
        additionalPrinterColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
      },
    ],
    conversion: { strategy: 'None' },
  },
  status: {
    acceptedNames: { kind: 'SyncObject', plural: 'syncobjects' },
    conditions: [
      {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        lastTransitionTime: '2025-01-02T03:04:05Z',
      },
    ],
    storedVersions: ['v1alpha1'],
  },
};
