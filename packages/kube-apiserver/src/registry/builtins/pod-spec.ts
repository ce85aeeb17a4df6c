/**
 * core/v1 PodSpec (Kubernetes 1.32), shared by Pod and the pod templates of Deployment and
 * StatefulSet. PodSpec and Container are complete at their own level; large subtrees (affinity,
 * probes, lifecycle, security contexts, volume sources, ephemeral containers) are kept open.
 */
import type { JSONSchemaProps } from '../../api/types.js';
import {
  atomicList,
  atomicObj,
  bool,
  int32,
  int64,
  labelSelector,
  localObjectReference,
  mapList,
  obj,
  objectMeta,
  open,
  quantity,
  quantityMap,
  str,
  strEnum,
  stringList,
  stringMap,
} from './schema.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const;

/** Names of the volume sources of a core/v1 Volume in 1.32 (each one kept open). */
const VOLUME_SOURCES = [
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'gitRepo',
  'glusterfs',
  'hostPath',
  'image',
  'iscsi',
  'nfs',
  'persistentVolumeClaim',
  'photonPersistentDisk',
  'portworxVolume',
  'projected',
  'quobyte',
  'rbd',
  'scaleIO',
  'secret',
  'storageos',
  'vsphereVolume',
] as const;

function keySelector(): JSONSchemaProps {
  return atomicObj({ key: str(), name: { type: 'string', default: '' }, optional: bool() }, ['key']);
}

function envVar(): JSONSchemaProps {
  const valueFrom = obj({
    configMapKeyRef: keySelector(),
    fieldRef: atomicObj({ apiVersion: str(), fieldPath: str() }, ['fieldPath']),
    resourceFieldRef: atomicObj({ containerName: str(), divisor: quantity(), resource: str() }, ['resource']),
    secretKeyRef: keySelector(),
  });
  return obj({ name: str(), value: str(), valueFrom }, ['name']);
}

function envFromSource(): JSONSchemaProps {
  const ref = (): JSONSchemaProps => atomicObj({ name: { type: 'string', default: '' }, optional: bool() });
  return obj({ configMapRef: ref(), prefix: str(), secretRef: ref() });
}

function containerPort(): JSONSchemaProps {
  return obj(
    {
      containerPort: int32(),
      hostIP: str(),
      hostPort: int32(),
      name: str(),
      protocol: { ...strEnum(PROTOCOLS), default: 'TCP' },
    },
    ['containerPort'],
  );
}

function volumeMount(): JSONSchemaProps {
  return obj(
    {
      mountPath: str(),
      mountPropagation: strEnum(['Bidirectional', 'HostToContainer', 'None']),
      name: str(),
      readOnly: bool(),
      recursiveReadOnly: strEnum(['Disabled', 'Enabled', 'IfPossible']),
      subPath: str(),
      subPathExpr: str(),
    },
    ['name', 'mountPath'],
  );
}

/** core/v1 ResourceRequirements (containers and, alpha in 1.32, the pod level). */
export function resourceRequirements(): JSONSchemaProps {
  return obj({
    claims: mapList(obj({ name: str(), request: str() }, ['name']), ['name'], { patch: false }),
    limits: quantityMap(),
    requests: quantityMap(),
  });
}

/** core/v1 Container, complete at the container level (image is required by validation). */
export function container(): JSONSchemaProps {
  return obj(
    {
      args: stringList(),
      command: stringList(),
      env: mapList(envVar(), ['name']),
      envFrom: atomicList(envFromSource()),
      image: str(),
      imagePullPolicy: strEnum(['Always', 'IfNotPresent', 'Never']),
      lifecycle: open('Lifecycle: postStart/preStop handlers'),
      livenessProbe: open('Probe'),
      name: str(),
      ports: mapList(containerPort(), ['containerPort', 'protocol']),
      readinessProbe: open('Probe'),
      resizePolicy: atomicList(
        obj({ resourceName: str(), restartPolicy: str() }, ['resourceName', 'restartPolicy']),
      ),
      resources: resourceRequirements(),
      restartPolicy: strEnum(['Always']),
      securityContext: open('SecurityContext'),
      startupProbe: open('Probe'),
      stdin: bool(),
      stdinOnce: bool(),
      terminationMessagePath: str(),
      terminationMessagePolicy: strEnum(['File', 'FallbackToLogsOnError']),
      tty: bool(),
      volumeDevices: mapList(obj({ devicePath: str(), name: str() }, ['name', 'devicePath']), ['devicePath']),
      volumeMounts: mapList(volumeMount(), ['mountPath']),
      workingDir: str(),
    },
    ['name', 'image'],
  );
}

/** core/v1 Volume: the name and one of the volume sources (each source kept open). */
export function volume(): JSONSchemaProps {
  const properties: Record<string, JSONSchemaProps> = { name: str() };
  for (const source of VOLUME_SOURCES) properties[source] = open();
  return obj(properties, ['name']);
}

function toleration(): JSONSchemaProps {
  return obj({
    effect: strEnum(['NoExecute', 'NoSchedule', 'PreferNoSchedule']),
    key: str(),
    operator: strEnum(['Equal', 'Exists']),
    tolerationSeconds: int64(),
    value: str(),
  });
}

function topologySpreadConstraint(): JSONSchemaProps {
  return obj(
    {
      labelSelector: labelSelector(),
      matchLabelKeys: stringList(),
      maxSkew: int32(),
      minDomains: int32(),
      nodeAffinityPolicy: strEnum(['Honor', 'Ignore']),
      nodeTaintsPolicy: strEnum(['Honor', 'Ignore']),
      topologyKey: str(),
      whenUnsatisfiable: strEnum(['DoNotSchedule', 'ScheduleAnyway']),
    },
    ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
  );
}

function dnsConfig(): JSONSchemaProps {
  return obj({
    nameservers: stringList(),
    options: atomicList(obj({ name: str(), value: str() })),
    searches: stringList(),
  });
}

/** An item kept open except for its (required) name, the key of its list. */
export function openNamed(description: string): JSONSchemaProps {
  return { ...open(description), properties: { name: str() }, required: ['name'] };
}

function namedList(item: JSONSchemaProps, strategy?: string): JSONSchemaProps {
  return mapList(item, ['name'], strategy === undefined ? {} : { strategy });
}

/** core/v1 PodSpec, complete at its top level. */
export function podSpec(): JSONSchemaProps {
  return obj(
    {
      activeDeadlineSeconds: int64(),
      affinity: open('Affinity: nodeAffinity, podAffinity, podAntiAffinity'),
      automountServiceAccountToken: bool(),
      containers: namedList(container()),
      dnsConfig: dnsConfig(),
      dnsPolicy: strEnum(['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None']),
      enableServiceLinks: bool(),
      ephemeralContainers: namedList(openNamed('EphemeralContainer')),
      hostAliases: mapList(obj({ hostnames: stringList(), ip: str() }, ['ip']), ['ip']),
      hostIPC: bool(),
      hostNetwork: bool(),
      hostPID: bool(),
      hostUsers: bool(),
      hostname: str(),
      imagePullSecrets: namedList(localObjectReference()),
      initContainers: namedList(container()),
      nodeName: str(),
      nodeSelector: stringMap(true),
      os: obj({ name: str() }, ['name']),
      overhead: quantityMap(),
      preemptionPolicy: strEnum(['Never', 'PreemptLowerPriority']),
      priority: int32(),
      priorityClassName: str(),
      readinessGates: atomicList(obj({ conditionType: str() }, ['conditionType'])),
      resourceClaims: namedList(
        obj({ name: str(), resourceClaimName: str(), resourceClaimTemplateName: str() }, ['name']),
        'merge,retainKeys',
      ),
      resources: resourceRequirements(),
      restartPolicy: strEnum(['Always', 'OnFailure', 'Never']),
      runtimeClassName: str(),
      schedulerName: str(),
      schedulingGates: namedList(obj({ name: str() }, ['name'])),
      securityContext: open('PodSecurityContext'),
      serviceAccount: str('Deprecated alias for serviceAccountName.'),
      serviceAccountName: str(),
      setHostnameAsFQDN: bool(),
      shareProcessNamespace: bool(),
      subdomain: str(),
      terminationGracePeriodSeconds: int64(),
      tolerations: atomicList(toleration()),
      topologySpreadConstraints: mapList(topologySpreadConstraint(), ['topologyKey', 'whenUnsatisfiable']),
      volumes: namedList(volume(), 'merge,retainKeys'),
    },
    ['containers'],
  );
}

/** core/v1 PodTemplateSpec. */
export function podTemplateSpec(): JSONSchemaProps {
  return obj({ metadata: objectMeta(), spec: podSpec() });
}
