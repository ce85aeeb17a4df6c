/** apps/v1 Deployment and StatefulSet (Kubernetes 1.32). */
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { ageColumn, computedColumn, templateColumns, workloadScale } from './columns.js';
import { podTemplateSpec } from './pod-spec.js';
import {
  atomicList,
  bool,
  conditionList,
  int32,
  int64,
  intOrString,
  kindProps,
  labelSelector,
  obj,
  objectMeta,
  open,
  str,
  strEnum,
  time,
} from './schema.js';

function deploymentSpec(): JSONSchemaProps {
  const rollingUpdate = obj({ maxSurge: intOrString(), maxUnavailable: intOrString() });
  return obj(
    {
      minReadySeconds: int32(),
      paused: bool(),
      progressDeadlineSeconds: { ...int32(), default: 600 },
      replicas: { ...int32(), default: 1 },
      revisionHistoryLimit: { ...int32(), default: 10 },
      selector: labelSelector(),
      strategy: {
        ...obj({ rollingUpdate, type: strEnum(['Recreate', 'RollingUpdate']) }),
        'x-kubernetes-patch-strategy': 'retainKeys',
        default: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      },
      template: podTemplateSpec(),
    },
    ['selector', 'template'],
  );
}

function deploymentStatus(): JSONSchemaProps {
  return obj({
    availableReplicas: int32(),
    collisionCount: int32(),
    conditions: conditionList({ lastUpdateTime: time() }),
    observedGeneration: int64(),
    readyReplicas: int32(),
    replicas: int32(),
    unavailableReplicas: int32(),
    updatedReplicas: int32(),
  });
}

export function deploymentDef(): ResourceDef {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    listKind: 'DeploymentList',
    plural: 'deployments',
    singular: 'deployment',
    shortNames: ['deploy'],
    categories: ['all'],
    namespaced: true,
    schema: obj(kindProps({ spec: deploymentSpec(), status: deploymentStatus() })),
    subresources: { status: true, scale: workloadScale() },
    printerColumns: [
      computedColumn(
        'Ready',
        '.status.readyReplicas',
        'status.readyReplicas/spec.replicas, e.g. 1/1 (missing as 0)',
      ),
      computedColumn('Up-to-date', '.status.updatedReplicas', 'status.updatedReplicas, 0 when unset'),
      computedColumn('Available', '.status.availableReplicas', 'status.availableReplicas, 0 when unset'),
      ageColumn(),
      ...templateColumns(),
      computedColumn('Selector', '.spec.selector', 'spec.selector formatted as a label selector string', 1),
    ],
    builtin: true,
  };
}

/** A PersistentVolumeClaim template: the object is closed, its spec and status are kept open. */
function persistentVolumeClaim(): JSONSchemaProps {
  return obj({
    apiVersion: str(),
    kind: str(),
    metadata: objectMeta(),
    spec: open('PersistentVolumeClaimSpec'),
    status: open('PersistentVolumeClaimStatus'),
  });
}

function statefulSetSpec(): JSONSchemaProps {
  const retention = (): JSONSchemaProps => strEnum(['Retain', 'Delete']);
  return obj(
    {
      minReadySeconds: int32(),
      ordinals: obj({ start: int32() }),
      persistentVolumeClaimRetentionPolicy: obj({ whenDeleted: retention(), whenScaled: retention() }),
      podManagementPolicy: { ...strEnum(['OrderedReady', 'Parallel']), default: 'OrderedReady' },
      replicas: { ...int32(), default: 1 },
      revisionHistoryLimit: { ...int32(), default: 10 },
      selector: labelSelector(),
      serviceName: str(),
      template: podTemplateSpec(),
      updateStrategy: {
        ...obj({
          rollingUpdate: obj({ maxUnavailable: intOrString(), partition: int32() }),
          type: strEnum(['OnDelete', 'RollingUpdate']),
        }),
        default: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      },
      volumeClaimTemplates: atomicList(persistentVolumeClaim()),
    },
    ['selector', 'template'],
  );
}

function statefulSetStatus(): JSONSchemaProps {
  return obj({
    availableReplicas: int32(),
    collisionCount: int32(),
    conditions: conditionList(),
    currentReplicas: int32(),
    currentRevision: str(),
    observedGeneration: int64(),
    readyReplicas: int32(),
    replicas: int32(),
    updateRevision: str(),
    updatedReplicas: int32(),
  });
}

export function statefulSetDef(): ResourceDef {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    listKind: 'StatefulSetList',
    plural: 'statefulsets',
    singular: 'statefulset',
    shortNames: ['sts'],
    categories: ['all'],
    namespaced: true,
    schema: obj(kindProps({ spec: statefulSetSpec(), status: statefulSetStatus() })),
    subresources: { status: true, scale: workloadScale() },
    printerColumns: [
      computedColumn(
        'Ready',
        '.status.readyReplicas',
        'status.readyReplicas/spec.replicas, e.g. 1/1 (missing as 0)',
      ),
      ageColumn(),
      ...templateColumns(),
    ],
    builtin: true,
  };
}
