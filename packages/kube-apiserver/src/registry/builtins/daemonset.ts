/**
 * apps/v1 DaemonSet (Kubernetes 1.32; k8s.io/api apps/v1 types.go DaemonSetSpec/DaemonSetStatus).
 * Served with its status subresource (no scale); its rules are ../daemonset-strategy.ts. No
 * controller runs it: the embedded landscape creates no Pods for it and never writes its status.
 */
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { ageColumn, computedColumn, templateColumns } from './columns.js';
import { podTemplateSpec } from './pod-spec.js';
import {
  conditionList,
  int32,
  int64,
  intOrString,
  kindProps,
  labelSelector,
  obj,
  strEnum,
} from './schema.js';

function daemonSetSpec(): JSONSchemaProps {
  return obj(
    {
      minReadySeconds: int32(),
      revisionHistoryLimit: { ...int32(), default: 10 },
      selector: labelSelector(),
      template: podTemplateSpec(),
      updateStrategy: {
        ...obj({
          rollingUpdate: obj({ maxSurge: intOrString(), maxUnavailable: intOrString() }),
          type: strEnum(['OnDelete', 'RollingUpdate']),
        }),
        default: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
      },
    },
    ['selector', 'template'],
  );
}

function daemonSetStatus(): JSONSchemaProps {
  return obj({
    collisionCount: int32(),
    conditions: conditionList(),
    currentNumberScheduled: int32(),
    desiredNumberScheduled: int32(),
    numberAvailable: int32(),
    numberMisscheduled: int32(),
    numberReady: int32(),
    numberUnavailable: int32(),
    observedGeneration: int64(),
    updatedNumberScheduled: int32(),
  });
}

export function daemonSetDef(): ResourceDef {
  const status = (field: string): string => `status.${field}, 0 when unset`;
  return {
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    listKind: 'DaemonSetList',
    plural: 'daemonsets',
    singular: 'daemonset',
    shortNames: ['ds'],
    categories: ['all'],
    namespaced: true,
    schema: obj(kindProps({ spec: daemonSetSpec(), status: daemonSetStatus() })),
    subresources: { status: true },
    printerColumns: [
      computedColumn('Desired', '.status.desiredNumberScheduled', status('desiredNumberScheduled')),
      computedColumn('Current', '.status.currentNumberScheduled', status('currentNumberScheduled')),
      computedColumn('Ready', '.status.numberReady', status('numberReady')),
      computedColumn('Up-to-date', '.status.updatedNumberScheduled', status('updatedNumberScheduled')),
      computedColumn('Available', '.status.numberAvailable', status('numberAvailable')),
      computedColumn(
        'Node Selector',
        '.spec.template.spec.nodeSelector',
        'spec.template.spec.nodeSelector formatted as labels (k=v,...), <none> when empty',
      ),
      ageColumn(),
      ...templateColumns(),
      computedColumn('Selector', '.spec.selector', 'spec.selector formatted as a label selector string', 1),
    ],
    builtin: true,
  };
}
