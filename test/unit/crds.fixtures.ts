/**
 * Objects shaped as the upstream projects write them (Landscaper, Gardener, machine-controller-
 * manager), one or more per CRD the product ships, for tests that check the CRDs accept them.
 * Plain JSON: no defaults are applied, no field is left to the server.
 */

const T0 = '2025-03-01T10:00:00Z';
const T1 = '2025-03-01T10:05:00Z';

interface Condition {
  type: string;
  status: string;
  lastTransitionTime: string;
  lastUpdateTime: string;
  reason: string;
  message: string;
}

interface LastOperation {
  description: string;
  lastUpdateTime: string;
  progress: number;
  state: string;
  type: string;
}

const condition = (type: string, status = 'True'): Condition => ({
  type,
  status,
  lastTransitionTime: T0,
  lastUpdateTime: T1,
  reason: `${type}Reason`,
  message: `${type} is ${status}`,
});

const lastOperation = (type: string, state: string, progress: number): LastOperation => ({
  description: `${type} ${state.toLowerCase()}`,
  lastUpdateTime: T1,
  progress,
  state,
  type,
});

export const deployItemMock = {
  apiVersion: 'landscaper.gardener.cloud/v1alpha1',
  kind: 'DeployItem',
  metadata: {
    name: 'mock-item',
    namespace: 'example',
    annotations: {
      'landscaper.gardener.cloud/deployer-type': 'landscaper.gardener.cloud/mock',
      'landscaper.gardener.cloud/deployer-target-name': 'my-cluster',
    },
    finalizers: ['finalizer.landscaper.gardener.cloud'],
  },
  spec: {
    type: 'landscaper.gardener.cloud/mock',
    target: { name: 'my-cluster', namespace: 'example' },
    context: 'default',
    timeout: '10m',
    updateOnChangeOnly: false,
    onDelete: { skipUninstallIfClusterRemoved: true },
    config: {
      apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
      kind: 'ProviderConfiguration',
      phase: 'Succeeded',
      providerStatus: {
        apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
        kind: 'ProviderStatus',
        replicas: 3,
      },
      export: { endpoint: 'https://mock.example.com', replicas: 3 },
    },
  },
  status: {
    phase: 'Succeeded',
    observedGeneration: 1,
    jobID: '6c8b1e4a-2a4e-4a8e-9a61-6a2f1d2b9c11',
    jobIDFinished: '6c8b1e4a-2a4e-4a8e-9a61-6a2f1d2b9c11',
    jobIDGenerationTime: T0,
    lastReconcileTime: T0,
    deployer: { identity: 'mock-deployer-7f9c', name: 'mock', version: 'v0.1.0' },
    exportRef: { name: 'mock-export-9k2lq', namespace: 'example' },
    providerStatus: {
      apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
      kind: 'ProviderStatus',
      replicas: 3,
    },
    transitionTimes: { triggerTime: T0, initTime: T0, waitTime: T1, finishedTime: T1 },
    lastError: {
      operation: 'Reconcile',
      reason: 'ProviderConfigurationMissing',
      message: 'no config',
      codes: ['ERR_CONFIGURATION_PROBLEM'],
      lastTransitionTime: T0,
      lastUpdateTime: T0,
    },
  },
};

export const target = {
  apiVersion: 'landscaper.gardener.cloud/v1alpha1',
  kind: 'Target',
  metadata: { name: 'my-cluster', namespace: 'example' },
  spec: {
    type: 'landscaper.gardener.cloud/kubernetes-cluster',
    config: { kubeconfig: 'apiVersion: v1\nkind: Config\n' },
  },
};

export const syncObject = {
  apiVersion: 'landscaper.gardener.cloud/v1alpha1',
  kind: 'SyncObject',
  metadata: { name: 'mock-0f5e3c1a-6d0b-4c55-8f4e-2b7a9c3d1e00', namespace: 'example' },
  spec: {
    podName: 'mock-deployer-7f9c',
    kind: 'DeployItem',
    name: 'mock-item',
    lastUpdateTime: T0,
    prefix: 'mock',
  },
};

export const context = {
  apiVersion: 'landscaper.gardener.cloud/v1alpha1',
  kind: 'Context',
  metadata: { name: 'default', namespace: 'example' },
  repositoryContext: { type: 'OCIRegistry', baseUrl: 'eu.gcr.io/gardener-project/landscaper' },
  registryPullSecrets: [{ name: 'pull-secret' }],
  configurations: { 'deployer.landscaper.gardener.cloud/mock': { verbose: true } },
};

const shootSpec = {
  cloudProfileName: 'gcp',
  cloudProfile: { kind: 'CloudProfile', name: 'gcp' },
  secretBindingName: 'my-gcp-secret',
  region: 'europe-west1',
  purpose: 'evaluation',
  seedSelector: { matchLabels: { environment: 'dev' }, providerTypes: ['gcp'] },
  tolerations: [{ key: 'seed.gardener.cloud/protected' }],
  hibernation: { enabled: false, schedules: [{ start: '00 17 * * 1,2,3,4,5', location: 'Europe/Berlin' }] },
  kubernetes: {
    version: '1.31.1',
    kubeAPIServer: { enableAnonymousAuthentication: false },
    kubeControllerManager: { nodeMonitorGracePeriod: '40s', nodeCIDRMaskSize: 24 },
  },
  networking: { type: 'calico', nodes: '10.250.0.0/16', pods: '100.96.0.0/11', services: '100.64.0.0/13' },
  maintenance: {
    autoUpdate: { kubernetesVersion: true, machineImageVersion: true },
    timeWindow: { begin: '220000+0100', end: '230000+0100' },
  },
  provider: {
    type: 'gcp',
    infrastructureConfig: {
      apiVersion: 'gcp.provider.extensions.gardener.cloud/v1alpha1',
      kind: 'InfrastructureConfig',
      networks: { workers: '10.250.0.0/16' },
    },
    controlPlaneConfig: {
      apiVersion: 'gcp.provider.extensions.gardener.cloud/v1alpha1',
      kind: 'ControlPlaneConfig',
      zone: 'europe-west1-b',
    },
    workers: [
      {
        name: 'worker-a',
        machine: {
          type: 'n1-standard-2',
          image: { name: 'gardenlinux', version: '1592.1.0' },
          architecture: 'amd64',
        },
        minimum: 1,
        maximum: 3,
        maxSurge: 1,
        maxUnavailable: 0,
        volume: { type: 'pd-standard', size: '50Gi' },
        zones: ['europe-west1-b'],
        labels: { 'worker.gardener.cloud/role': 'default' },
        machineControllerManager: {
          machineHealthTimeout: '10m',
          nodeConditions: ['KernelDeadlock', 'ReadonlyFilesystem', 'DiskPressure', 'NetworkUnavailable'],
        },
        taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }],
      },
    ],
  },
  controlPlane: { highAvailability: { failureTolerance: { type: 'zone' } } },
};

export const shoot = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: {
    name: 'my-shoot',
    namespace: 'garden-dev',
    labels: { 'shoot.gardener.cloud/status': 'healthy' },
  },
  spec: { ...shootSpec, seedName: 'gcp-seed' },
  status: {
    conditions: [condition('APIServerAvailable'), condition('EveryNodeReady', 'False')],
    constraints: [condition('HibernationPossible')],
    gardener: { id: 'abc123', name: 'gardenlet-5d9f', version: 'v1.110.0' },
    hibernated: false,
    lastOperation: lastOperation('Reconcile', 'Succeeded', 100),
    lastErrors: [{ description: 'transient', codes: ['ERR_INFRA_RATE_LIMITS_EXCEEDED'], lastUpdateTime: T0 }],
    observedGeneration: 2,
    seedName: 'gcp-seed',
    technicalID: 'shoot--dev--my-shoot',
    uid: '7b1c7f4e-2b7e-4f0a-9d0c-3c2b1a0f9e8d',
  },
};

/** A Shoot as the scheduler leaves it when no seed fits. */
export const unscheduledShoot = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name: 'pending', namespace: 'garden-dev' },
  spec: { cloudProfileName: 'gcp', region: 'europe-west1', provider: { type: 'gcp' } },
  status: { lastOperation: { type: 'Create', state: 'Pending', description: 'no seed found' } },
};

const seedSpec = {
  provider: {
    type: 'gcp',
    region: 'europe-west1',
    zones: ['europe-west1-b', 'europe-west1-c', 'europe-west1-d'],
  },
  dns: { provider: { type: 'aws-route53', secretRef: { name: 'dns-credentials', namespace: 'garden' } } },
  ingress: { domain: 'ingress.gcp-seed.example.com', controller: { kind: 'nginx' } },
  networks: {
    nodes: '10.250.0.0/16',
    pods: '100.96.0.0/11',
    services: '100.64.0.0/13',
    shootDefaults: { pods: '100.96.0.0/11', services: '100.64.0.0/13' },
  },
  backup: {
    provider: 'gcp',
    region: 'europe-west1',
    credentialsRef: { apiVersion: 'v1', kind: 'Secret', name: 'backup-credentials', namespace: 'garden' },
  },
  taints: [{ key: 'seed.gardener.cloud/protected' }, { key: 'dedicated', value: 'ml' }],
  settings: {
    scheduling: { visible: true },
    dependencyWatchdog: { weeder: { enabled: true }, prober: { enabled: true } },
    excessCapacityReservation: { enabled: false },
    verticalPodAutoscaler: { enabled: true },
  },
};

export const seed = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Seed',
  metadata: { name: 'gcp-seed', labels: { environment: 'dev' } },
  spec: seedSpec,
  status: {
    capacity: { shoots: '250' },
    allocatable: { shoots: '240', 'persistent-volumes': 197 },
    conditions: [condition('GardenletReady'), condition('BackupBucketsReady')],
    gardener: { id: 'def456', name: 'gardenlet-7c4d', version: 'v1.110.0' },
    kubernetesVersion: '1.30.3',
    lastOperation: lastOperation('Reconcile', 'Succeeded', 100),
    observedGeneration: 3,
    clusterIdentity: 'gcp-seed-identity',
  },
};

export const cloudProfile = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name: 'gcp' },
  spec: {
    type: 'gcp',
    kubernetes: {
      versions: [
        { version: '1.31.1' },
        { version: '1.30.3', expirationDate: T1, classification: 'deprecated' },
      ],
    },
    machineImages: [
      {
        name: 'gardenlinux',
        versions: [{ version: '1592.1.0', architectures: ['amd64'], cri: [{ name: 'containerd' }] }],
      },
    ],
    machineTypes: [
      { name: 'n1-standard-2', cpu: '2', gpu: '0', memory: '7500Mi', usable: true, architecture: 'amd64' },
    ],
    volumeTypes: [{ name: 'pd-standard', class: 'standard', usable: true }],
    regions: [{ name: 'europe-west1', zones: [{ name: 'europe-west1-b' }, { name: 'europe-west1-c' }] }],
    seedSelector: { matchLabels: { environment: 'dev' }, providerTypes: ['gcp', 'aws'] },
  },
};

export const project = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Project',
  metadata: { name: 'dev' },
  spec: {
    namespace: 'garden-dev',
    owner: { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice@example.com' },
    createdBy: { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice@example.com' },
    members: [
      {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'User',
        name: 'bob@example.com',
        role: 'admin',
        roles: ['viewer'],
      },
    ],
    tolerations: { defaults: [{ key: 'seed.gardener.cloud/protected' }] },
  },
  status: { phase: 'Ready', observedGeneration: 1 },
};

const gardenletConfig = {
  apiVersion: 'gardenlet.config.gardener.cloud/v1alpha1',
  kind: 'GardenletConfiguration',
  resources: { capacity: { shoots: 100 }, reserved: { shoots: 10 } },
  seedConfig: {
    metadata: { labels: { environment: 'dev' } },
    spec: {
      ...seedSpec,
      ingress: { domain: 'ingress.replica-name.seeds.example.com', controller: { kind: 'nginx' } },
    },
  },
};

export const managedSeed = {
  apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
  kind: 'ManagedSeed',
  metadata: { name: 'crazy-botany', namespace: 'garden' },
  spec: {
    shoot: { name: 'crazy-botany' },
    gardenlet: {
      bootstrap: 'BootstrapToken',
      mergeWithParent: true,
      deployment: { replicaCount: 1, revisionHistoryLimit: 2, image: { pullPolicy: 'IfNotPresent' } },
      config: gardenletConfig,
    },
  },
  status: { conditions: [condition('ShootReconciled'), condition('SeedRegistered')], observedGeneration: 1 },
};

export const managedSeedSet = {
  apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
  kind: 'ManagedSeedSet',
  metadata: { name: 'crazy-botany', namespace: 'garden' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { foo: 'bar' } },
    template: {
      metadata: { labels: { foo: 'bar' } },
      spec: { gardenlet: { bootstrap: 'BootstrapToken', mergeWithParent: true, config: gardenletConfig } },
    },
    shootTemplate: {
      metadata: { labels: { foo: 'bar' } },
      spec: { ...shootSpec, dns: { domain: 'replica-name.seeds.example.com' } },
    },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    revisionHistoryLimit: 10,
  },
  status: {
    observedGeneration: 1,
    replicas: 2,
    readyReplicas: 1,
    nextReplicaNumber: 2,
    currentReplicas: 2,
    updatedReplicas: 2,
    currentRevision: 'crazy-botany-5d8f7c',
    updateRevision: 'crazy-botany-5d8f7c',
    collisionCount: 0,
    pendingReplica: { name: 'crazy-botany-1', reason: 'ShootReconciling', since: T0, retries: 1 },
  },
};

export const seedAutoscaler = {
  apiVersion: 'autoscaling.landscape.dev/v1alpha1',
  kind: 'SeedAutoscaler',
  metadata: { name: 'crazy-botany', namespace: 'garden' },
  spec: {
    scaleTargetRef: {
      apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
      kind: 'ManagedSeedSet',
      name: 'crazy-botany',
    },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [
      {
        type: 'Resource',
        resource: { name: 'shoots', target: { type: 'Utilization', averageUtilization: 70 } },
      },
      {
        type: 'Resource',
        resource: { name: 'shoots', target: { type: 'AverageValue', averageValue: '150' } },
      },
    ],
    behavior: {
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }],
      },
      scaleDown: {
        stabilizationWindowSeconds: 600,
        policies: [{ type: 'Percent', value: 50, periodSeconds: 300 }],
      },
    },
  },
  status: {
    observedGeneration: 1,
    lastScaleTime: T0,
    currentReplicas: 2,
    desiredReplicas: 2,
    currentMetrics: [
      {
        type: 'Resource',
        resource: { name: 'shoots', current: { averageUtilization: 64, averageValue: '160' } },
      },
    ],
    conditions: [
      {
        type: 'AbleToScale',
        status: 'True',
        reason: 'ReadyForNewScale',
        message: 'recommended size matches current size',
        lastTransitionTime: T0,
      },
    ],
    history: {
      recommendations: [{ replicas: 2, time: '2025-03-01T10:04:45.250Z' }],
      scaleUpEvents: [{ change: 1, time: T0 }],
      scaleDownEvents: [],
    },
  },
};

export const cluster = {
  apiVersion: 'extensions.gardener.cloud/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'shoot--dev--my-shoot' },
  spec: {
    cloudProfile: {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'CloudProfile',
      metadata: { name: 'gcp' },
    },
    seed: { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Seed', metadata: { name: 'gcp-seed' } },
    shoot: shoot,
  },
};

export const machine = {
  apiVersion: 'machine.sapcloud.io/v1alpha1',
  kind: 'Machine',
  metadata: {
    name: 'shoot--dev--my-shoot-worker-a-z1-5d9f7-abcde',
    namespace: 'shoot--dev--my-shoot',
    labels: { node: 'node-a' },
  },
  spec: {
    class: { kind: 'MachineClass', name: 'worker-a-z1' },
    providerID: 'gce:///project/europe-west1-b/node-a',
  },
  status: {
    currentStatus: { phase: 'Running', lastUpdateTime: T0, timeoutActive: false },
    lastOperation: {
      description: 'Machine is running',
      lastUpdateTime: T0,
      state: 'Successful',
      type: 'Create',
    },
    conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: T1, lastTransitionTime: T0 }],
  },
};

export const namespacedCloudProfile = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'NamespacedCloudProfile',
  metadata: { name: 'gcp-dev', namespace: 'garden-dev' },
  spec: {
    parent: { kind: 'CloudProfile', name: 'gcp' },
    kubernetes: { versions: [{ version: '1.30.3', expirationDate: T1 }] },
    machineTypes: [{ name: 'n1-custom', cpu: '3', gpu: '0', memory: '9Gi', usable: true }],
    limits: { maxNodesTotal: 20 },
  },
  status: { cloudProfileSpec: cloudProfile.spec, observedGeneration: 1 },
};

/** A Seed with upstream's spec.dns (provider, internal and default domains). */
export const seedWithDns = {
  ...seed,
  spec: {
    ...seedSpec,
    dns: {
      provider: {
        type: 'aws-route53',
        credentialsRef: { apiVersion: 'v1', kind: 'Secret', name: 'dns', namespace: 'garden' },
      },
      internal: {
        type: 'aws-route53',
        domain: 'internal.example.com',
        credentialsRef: { apiVersion: 'v1', kind: 'Secret', name: 'internal', namespace: 'garden' },
      },
      defaults: [
        {
          type: 'aws-route53',
          domain: 'shoots.example.com',
          zone: 'Z1',
          credentialsRef: { apiVersion: 'v1', kind: 'Secret', name: 'default', namespace: 'garden' },
        },
      ],
    },
  },
};

/** Accepted objects, by the CRD file that must accept them. */
export const ACCEPTED: [file: string, name: string, object: unknown][] = [
  [
    'landscaper.gardener.cloud_deployitems.yaml',
    'DeployItem of type landscaper.gardener.cloud/mock',
    deployItemMock,
  ],
  ['landscaper.gardener.cloud_targets.yaml', 'kubernetes-cluster Target', target],
  ['landscaper.gardener.cloud_syncobjects.yaml', 'SyncObject lock', syncObject],
  ['landscaper.gardener.cloud_contexts.yaml', 'default Context', context],
  ['core.gardener.cloud_shoots.yaml', 'Shoot with workers', shoot],
  ['core.gardener.cloud_shoots.yaml', 'unscheduled Shoot', unscheduledShoot],
  ['core.gardener.cloud_seeds.yaml', 'Seed with capacity and allocatable', seed],
  ['core.gardener.cloud_cloudprofiles.yaml', 'CloudProfile with seed selector', cloudProfile],
  ['core.gardener.cloud_namespacedcloudprofiles.yaml', 'NamespacedCloudProfile', namespacedCloudProfile],
  ['core.gardener.cloud_seeds.yaml', 'Seed with DNS defaults', seedWithDns],
  ['core.gardener.cloud_projects.yaml', 'Project', project],
  ['seedmanagement.gardener.cloud_managedseeds.yaml', 'ManagedSeed with gardenlet', managedSeed],
  ['seedmanagement.gardener.cloud_managedseedsets.yaml', 'ManagedSeedSet', managedSeedSet],
  ['autoscaling.landscape.dev_seedautoscalers.yaml', 'SeedAutoscaler with behavior', seedAutoscaler],
  ['extensions.gardener.cloud_clusters.yaml', 'Cluster embedding a Shoot', cluster],
  ['machine.sapcloud.io_machines.yaml', 'running Machine', machine],
];
