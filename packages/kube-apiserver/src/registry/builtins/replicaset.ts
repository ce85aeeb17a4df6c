/**
 * apps/v1 ReplicaSet (Kubernetes 1.32): what the Deployment controller makes, one per pod template
 * revision (k8s.io/api apps/v1 types.go ReplicaSetSpec/ReplicaSetStatus; the simulation that
 * writes them: ../../controllers/deployment.ts).
 */
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { replicaColumns, workloadScale } from './columns.js';
import { podTemplateSpec } from './pod-spec.js';
import { conditionList, int32, int64, kindProps, labelSelector, obj } from './schema.js';

function replicaSetSpec(): JSONSchemaProps {
  return obj(
    {
      minReadySeconds: int32(),
      replicas: { ...int32(), default: 1 },
      selector: labelSelector(),
      template: podTemplateSpec(),
    },
    ['selector'],
  );
}

function replicaSetStatus(): JSONSchemaProps {
  return obj({
    availableReplicas: int32(),
    conditions: conditionList(),
    fullyLabeledReplicas: int32(),
    observedGeneration: int64(),
    readyReplicas: int32(),
    replicas: int32(),
    terminatingReplicas: int32(),
  });
}

export function replicaSetDef(): ResourceDef {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    listKind: 'ReplicaSetList',
    plural: 'replicasets',
    singular: 'replicaset',
    shortNames: ['rs'],
    categories: ['all'],
    namespaced: true,
    schema: obj(kindProps({ spec: replicaSetSpec(), status: replicaSetStatus() })),
    // ReplicaSet status has no `selector` either: Scale.status.selector comes from spec.selector
    subresources: {
      status: true,
      scale: workloadScale(),
    },
    printerColumns: replicaColumns('spec.selector formatted as a label selector string'),
    builtin: true,
  };
}
