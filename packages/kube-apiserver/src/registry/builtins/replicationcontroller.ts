/**
 * core/v1 ReplicationController (Kubernetes 1.32; k8s.io/api core/v1 types.go
 * ReplicationControllerSpec/ReplicationControllerStatus). Served with its status and scale
 * subresources; its rules are ../replicationcontroller-strategy.ts. No controller runs it: the
 * embedded landscape creates no Pods for it and never writes its status.
 */
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { replicaColumns, workloadScale } from './columns.js';
import { podTemplateSpec } from './pod-spec.js';
import { conditionList, int32, int64, kindProps, obj, stringMap } from './schema.js';

/** Every field is optional: a missing selector is defaulted from the template labels, a missing template refused by validation. */
function replicationControllerSpec(): JSONSchemaProps {
  return obj({
    minReadySeconds: int32(),
    replicas: { ...int32(), default: 1 },
    selector: stringMap(true),
    template: podTemplateSpec(),
  });
}

function replicationControllerStatus(): JSONSchemaProps {
  return obj({
    availableReplicas: int32(),
    conditions: conditionList(),
    fullyLabeledReplicas: int32(),
    observedGeneration: int64(),
    readyReplicas: int32(),
    replicas: int32(),
  });
}

export function replicationControllerDef(): ResourceDef {
  return {
    group: '',
    version: 'v1',
    kind: 'ReplicationController',
    listKind: 'ReplicationControllerList',
    plural: 'replicationcontrollers',
    singular: 'replicationcontroller',
    shortNames: ['rc'],
    categories: ['all'],
    namespaced: true,
    schema: obj(kindProps({ spec: replicationControllerSpec(), status: replicationControllerStatus() })),
    // The status has no selector: Scale.status.selector is spec.selector as a selector string.
    subresources: {
      status: true,
      scale: workloadScale(),
    },
    printerColumns: replicaColumns('spec.selector formatted as labels (k=v,...)'),
    builtin: true,
  };
}
