/** Realistic objects of the built-in kinds, as kubectl and the controllers write them (test data). */

/** `kubectl create deployment web --image=nginx:1.27 --dry-run=client -o json`. */
export const deployment = {
  kind: 'Deployment',
  apiVersion: 'apps/v1',
  metadata: { name: 'web', creationTimestamp: null, labels: { app: 'web' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { creationTimestamp: null, labels: { app: 'web' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', resources: {} }] },
    },
    strategy: {},
  },
  status: {},
};

/** A Deployment as the server returns it after the controller ran. */
export const deploymentWithStatus = {
  ...deployment,
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: '6f1c1c7e-4a52-4b8e-9d2c-0b7f0b0d3c11',
    resourceVersion: '1234',
    generation: 1,
    creationTimestamp: '2025-01-02T03:04:05Z',
    labels: { app: 'web' },
    annotations: { 'deployment.kubernetes.io/revision': '1' },
    managedFields: [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: '2025-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ],
  },
  spec: {
    ...deployment.spec,
    progressDeadlineSeconds: 600,
    revisionHistoryLimit: 10,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
  },
  status: {
    observedGeneration: 1,
    replicas: 1,
    updatedReplicas: 1,
    readyReplicas: 1,
    availableReplicas: 1,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        lastUpdateTime: '2025-01-02T03:04:10Z',
        lastTransitionTime: '2025-01-02T03:04:10Z',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      },
    ],
  },
};

export const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'api-0',
    namespace: 'default',
    labels: { app: 'api' },
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'api-5d8f',
        uid: 'a1b2',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
    finalizers: ['example.com/cleanup'],
  },
  spec: {
    serviceAccountName: 'api',
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
    securityContext: { runAsNonRoot: true, fsGroup: 2000 },
    tolerations: [
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
    ],
    imagePullSecrets: [{ name: 'registry' }],
    initContainers: [{ name: 'migrate', image: 'api:1.0', command: ['/migrate'], args: ['--up'] }],
    containers: [
      {
        name: 'api',
        image: 'registry.example.com/api:1.0',
        imagePullPolicy: 'IfNotPresent',
        ports: [
          { name: 'http', containerPort: 8080, protocol: 'TCP' },
          { name: 'metrics', containerPort: 9090 },
        ],
        env: [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
          { name: 'CPU_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
        ],
        envFrom: [
          { configMapRef: { name: 'api-config' } },
          { prefix: 'S_', secretRef: { name: 'api', optional: true } },
        ],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: 1, memory: '256Mi' } },
        readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
        livenessProbe: { tcpSocket: { port: 8080 }, initialDelaySeconds: 10 },
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        volumeMounts: [
          { name: 'config', mountPath: '/etc/api', readOnly: true },
          { name: 'cache', mountPath: '/var/cache/api' },
        ],
        terminationMessagePolicy: 'FallbackToLogsOnError',
      },
    ],
    volumes: [
      {
        name: 'config',
        configMap: { name: 'api-config', items: [{ key: 'config.yaml', path: 'config.yaml' }] },
      },
      { name: 'cache', emptyDir: { sizeLimit: '1Gi' } },
      {
        name: 'token',
        projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] },
      },
    ],
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: { app: 'api' } },
      },
    ],
  },
  status: {
    phase: 'Running',
    qosClass: 'Burstable',
    podIP: '10.0.0.12',
    podIPs: [{ ip: '10.0.0.12' }],
    hostIP: '192.168.1.5',
    hostIPs: [{ ip: '192.168.1.5' }],
    startTime: '2025-01-02T03:04:05Z',
    conditions: [
      { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2025-01-02T03:04:09Z' },
    ],
    containerStatuses: [
      {
        name: 'api',
        ready: true,
        restartCount: 0,
        image: 'registry.example.com/api:1.0',
        imageID: 'sha256:abc',
        started: true,
        state: { running: { startedAt: '2025-01-02T03:04:07Z' } },
      },
    ],
  },
};

export const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'api', namespace: 'default' },
  spec: {
    type: 'NodePort',
    selector: { app: 'api' },
    ports: [
      { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP', nodePort: 30080 },
      { name: 'metrics', port: 9090, targetPort: 9090 },
    ],
    sessionAffinity: 'None',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    clusterIP: '10.96.12.1',
    clusterIPs: ['10.96.12.1'],
    externalTrafficPolicy: 'Cluster',
    internalTrafficPolicy: 'Cluster',
  },
  status: { loadBalancer: {} },
};

export const lease = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'dependency-watchdog-prober', namespace: 'garden' },
  spec: {
    holderIdentity: 'prober-7c9d_1f2e',
    leaseDurationSeconds: 15,
    acquireTime: '2025-01-02T03:04:05.123456Z',
    renewTime: '2025-01-02T03:05:05.654321Z',
    leaseTransitions: 3,
  },
};

/** As the EndpointSlice controller writes it for `service`. */
export const endpointSlice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {
    name: 'api-x7k2p',
    namespace: 'default',
    generateName: 'api-',
    labels: {
      'kubernetes.io/service-name': 'api',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    },
  },
  addressType: 'IPv4',
  endpoints: [
    {
      addresses: ['10.0.0.12'],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: 'node-1',
      zone: 'eu-1a',
      targetRef: { kind: 'Pod', namespace: 'default', name: 'api-0', uid: 'c3d4' },
      hints: { forZones: [{ name: 'eu-1a' }] },
    },
  ],
  ports: [
    { name: 'http', port: 8080, protocol: 'TCP' },
    { name: 'metrics', port: 9090, protocol: 'TCP', appProtocol: 'http' },
  ],
};

/** The controller's slice for a Service without ready pods (Go writes the empty lists as null). */
export const emptyEndpointSlice = { ...endpointSlice, endpoints: null, ports: null };

export const hpa = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
      },
      {
        type: 'Pods',
        pods: {
          metric: { name: 'requests_per_second' },
          target: { type: 'AverageValue', averageValue: '1k' },
        },
      },
      {
        type: 'External',
        external: {
          metric: { name: 'queue_depth', selector: { matchLabels: { queue: 'jobs' } } },
          target: { type: 'Value', value: 100 },
        },
      },
    ],
    behavior: {
      scaleDown: {
        stabilizationWindowSeconds: 300,
        policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }],
      },
      scaleUp: { selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] },
    },
  },
  status: {
    currentReplicas: 2,
    desiredReplicas: 3,
    lastScaleTime: '2025-01-02T03:04:05Z',
    currentMetrics: [
      {
        type: 'Resource',
        resource: { name: 'cpu', current: { averageUtilization: 85, averageValue: '170m' } },
      },
    ],
    conditions: [
      {
        type: 'AbleToScale',
        status: 'True',
        lastTransitionTime: '2025-01-02T03:04:05Z',
        reason: 'SucceededRescale',
      },
    ],
  },
};

export const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', namespace: 'default' },
  type: 'Opaque',
  data: { password: 'czNjcjN0', username: 'YWRtaW4=' },
  stringData: { host: 'db.example.com' },
};
