/** autoscaling/v2 HorizontalPodAutoscaler (Kubernetes 1.32). */
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { ageColumn, computedColumn, fieldColumn } from './columns.js';
import {
  atomicList,
  conditionList,
  int32,
  int64,
  kindProps,
  labelSelector,
  obj,
  quantity,
  str,
  strEnum,
  time,
} from './schema.js';

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'] as const;

function crossVersionObjectReference(): JSONSchemaProps {
  return obj({ apiVersion: str(), kind: str(), name: str() }, ['kind', 'name']);
}

function metricIdentifier(): JSONSchemaProps {
  return obj({ name: str(), selector: labelSelector() }, ['name']);
}

function metricTarget(): JSONSchemaProps {
  return obj(
    {
      averageUtilization: int32(),
      averageValue: quantity(),
      type: strEnum(['AverageValue', 'Utilization', 'Value']),
      value: quantity(),
    },
    ['type'],
  );
}

function metricValueStatus(): JSONSchemaProps {
  return obj({ averageUtilization: int32(), averageValue: quantity(), value: quantity() });
}

function metricSpec(): JSONSchemaProps {
  const target = metricTarget;
  return obj(
    {
      containerResource: obj({ container: str(), name: str(), target: target() }, [
        'name',
        'target',
        'container',
      ]),
      external: obj({ metric: metricIdentifier(), target: target() }, ['metric', 'target']),
      object: obj(
        { describedObject: crossVersionObjectReference(), metric: metricIdentifier(), target: target() },
        ['describedObject', 'target', 'metric'],
      ),
      pods: obj({ metric: metricIdentifier(), target: target() }, ['metric', 'target']),
      resource: obj({ name: str(), target: target() }, ['name', 'target']),
      type: strEnum(METRIC_TYPES),
    },
    ['type'],
  );
}

function metricStatus(): JSONSchemaProps {
  const current = metricValueStatus;
  return obj(
    {
      containerResource: obj({ container: str(), current: current(), name: str() }, [
        'name',
        'current',
        'container',
      ]),
      external: obj({ current: current(), metric: metricIdentifier() }, ['metric', 'current']),
      object: obj(
        { current: current(), describedObject: crossVersionObjectReference(), metric: metricIdentifier() },
        ['metric', 'current', 'describedObject'],
      ),
      pods: obj({ current: current(), metric: metricIdentifier() }, ['metric', 'current']),
      resource: obj({ current: current(), name: str() }, ['name', 'current']),
      type: strEnum(METRIC_TYPES),
    },
    ['type'],
  );
}

function scalingRules(): JSONSchemaProps {
  const policy = obj({ periodSeconds: int32(), type: strEnum(['Pods', 'Percent']), value: int32() }, [
    'type',
    'value',
    'periodSeconds',
  ]);
  return obj({
    policies: atomicList(policy),
    selectPolicy: strEnum(['Max', 'Min', 'Disabled']),
    stabilizationWindowSeconds: int32(),
  });
}

function hpaSpec(): JSONSchemaProps {
  return obj(
    {
      behavior: obj({ scaleDown: scalingRules(), scaleUp: scalingRules() }),
      maxReplicas: int32(),
      metrics: atomicList(metricSpec()),
      minReplicas: int32(),
      scaleTargetRef: crossVersionObjectReference(),
    },
    ['scaleTargetRef', 'maxReplicas'],
  );
}

function hpaStatus(): JSONSchemaProps {
  return obj({
    conditions: conditionList(),
    currentMetrics: atomicList(metricStatus()),
    currentReplicas: int32(),
    desiredReplicas: int32(),
    lastScaleTime: time(),
    observedGeneration: int64(),
  });
}

export function horizontalPodAutoscalerDef(): ResourceDef {
  return {
    group: 'autoscaling',
    version: 'v2',
    kind: 'HorizontalPodAutoscaler',
    listKind: 'HorizontalPodAutoscalerList',
    plural: 'horizontalpodautoscalers',
    singular: 'horizontalpodautoscaler',
    shortNames: ['hpa'],
    categories: ['all'],
    namespaced: true,
    schema: obj(kindProps({ spec: hpaSpec(), status: hpaStatus() })),
    subresources: { status: true },
    printerColumns: [
      computedColumn(
        'Reference',
        '.spec.scaleTargetRef.name',
        'spec.scaleTargetRef.kind + "/" + spec.scaleTargetRef.name',
      ),
      computedColumn(
        'Targets',
        '.status.currentMetrics',
        'per spec.metrics entry "<current>/<target>" (current from status.currentMetrics or <unknown>, ' +
          'utilization as N%), the first 2 joined with ", " and " + N more..." for the rest, or <none>',
      ),
      computedColumn('MinPods', '.spec.minReplicas', 'spec.minReplicas, or <unset>'),
      fieldColumn('MaxPods', '.spec.maxReplicas', 'integer'),
      computedColumn('Replicas', '.status.currentReplicas', 'status.currentReplicas, 0 when unset'),
      ageColumn(),
    ],
    builtin: true,
  };
}
