/**
 * k8s.io/api apps/v1 (Deployment, ReplicaSet, StatefulSet), autoscaling/v1 (Scale,
 * HorizontalPodAutoscaler) and coordination.k8s.io/v1 (Lease), from their generated.proto files.
 */
import {
  bool,
  i32,
  i64,
  intOrString,
  KEEP,
  list,
  message,
  microTime,
  obj,
  resource,
  str,
  time,
  type MessageDesc,
} from '../descriptor.js';
import { LabelSelector, ObjectMeta } from './meta.js';
import { PodTemplateSpec } from './pod.js';
import { PersistentVolumeClaim } from './volume.js';

/** The conditions of ReplicaSet, StatefulSet and HPA: type 1, status 2, time 3, reason 4, message 5. */
const condition = (name: string): MessageDesc =>
  message(name, {
    1: str('type', KEEP),
    2: str('status', KEEP),
    3: time('lastTransitionTime'),
    4: str('reason'),
    5: str('message'),
  });

export const DeploymentSpec = message('DeploymentSpec', {
  1: i32('replicas', KEEP),
  2: obj('selector', LabelSelector),
  3: obj('template', PodTemplateSpec),
  4: obj(
    'strategy',
    message('DeploymentStrategy', {
      1: str('type'),
      2: obj(
        'rollingUpdate',
        message('RollingUpdateDeployment', { 1: intOrString('maxUnavailable'), 2: intOrString('maxSurge') }),
      ),
    }),
  ),
  5: i32('minReadySeconds'),
  6: i32('revisionHistoryLimit', KEEP),
  7: bool('paused'),
  9: i32('progressDeadlineSeconds', KEEP),
  10: str('podReplacementPolicy', KEEP),
});

export const DeploymentStatus = message('DeploymentStatus', {
  1: i64('observedGeneration'),
  2: i32('replicas'),
  3: i32('updatedReplicas'),
  7: i32('readyReplicas'),
  4: i32('availableReplicas'),
  5: i32('unavailableReplicas'),
  9: i32('terminatingReplicas', KEEP),
  6: list(
    'conditions',
    message('DeploymentCondition', {
      1: str('type', KEEP),
      2: str('status', KEEP),
      6: time('lastUpdateTime'),
      7: time('lastTransitionTime'),
      4: str('reason'),
      5: str('message'),
    }),
  ),
  8: i32('collisionCount', KEEP),
});

export const Deployment = resource('Deployment', ObjectMeta, DeploymentSpec, DeploymentStatus);

export const ReplicaSet = resource(
  'ReplicaSet',
  ObjectMeta,
  message('ReplicaSetSpec', {
    1: i32('replicas', KEEP),
    4: i32('minReadySeconds'),
    2: obj('selector', LabelSelector),
    3: obj('template', PodTemplateSpec),
  }),
  message('ReplicaSetStatus', {
    1: i32('replicas', KEEP),
    2: i32('fullyLabeledReplicas'),
    4: i32('readyReplicas'),
    5: i32('availableReplicas'),
    7: i32('terminatingReplicas', KEEP),
    3: i64('observedGeneration'),
    6: list('conditions', condition('ReplicaSetCondition')),
  }),
);

export const StatefulSetSpec = message('StatefulSetSpec', {
  1: i32('replicas', KEEP),
  2: obj('selector', LabelSelector),
  3: obj('template', PodTemplateSpec),
  4: list('volumeClaimTemplates', PersistentVolumeClaim),
  5: str('serviceName'),
  6: str('podManagementPolicy'),
  7: obj(
    'updateStrategy',
    message('StatefulSetUpdateStrategy', {
      1: str('type'),
      2: obj(
        'rollingUpdate',
        message('RollingUpdateStatefulSetStrategy', {
          1: i32('partition', KEEP),
          2: intOrString('maxUnavailable'),
        }),
      ),
    }),
  ),
  8: i32('revisionHistoryLimit', KEEP),
  9: i32('minReadySeconds'),
  10: obj(
    'persistentVolumeClaimRetentionPolicy',
    message('StatefulSetPersistentVolumeClaimRetentionPolicy', {
      1: str('whenDeleted'),
      2: str('whenScaled'),
    }),
  ),
  11: obj('ordinals', message('StatefulSetOrdinals', { 1: i32('start', KEEP) })),
});

export const StatefulSetStatus = message('StatefulSetStatus', {
  1: i64('observedGeneration'),
  2: i32('replicas', KEEP),
  3: i32('readyReplicas'),
  4: i32('currentReplicas'),
  5: i32('updatedReplicas'),
  6: str('currentRevision'),
  7: str('updateRevision'),
  9: i32('collisionCount', KEEP),
  10: list('conditions', condition('StatefulSetCondition')),
  11: i32('availableReplicas', KEEP),
});

export const StatefulSet = resource('StatefulSet', ObjectMeta, StatefulSetSpec, StatefulSetStatus);

export const Scale = resource(
  'Scale',
  ObjectMeta,
  message('ScaleSpec', { 1: i32('replicas') }),
  message('ScaleStatus', { 1: i32('replicas', KEEP), 2: str('selector') }),
);

export const HorizontalPodAutoscaler = resource(
  'HorizontalPodAutoscaler',
  ObjectMeta,
  message('HorizontalPodAutoscalerSpec', {
    1: obj(
      'scaleTargetRef',
      message('CrossVersionObjectReference', {
        1: str('kind', KEEP),
        2: str('name', KEEP),
        3: str('apiVersion'),
      }),
    ),
    2: i32('minReplicas', KEEP),
    3: i32('maxReplicas', KEEP),
    4: i32('targetCPUUtilizationPercentage', KEEP),
  }),
  message('HorizontalPodAutoscalerStatus', {
    1: i64('observedGeneration', KEEP),
    2: time('lastScaleTime'),
    3: i32('currentReplicas', KEEP),
    4: i32('desiredReplicas', KEEP),
    5: i32('currentCPUUtilizationPercentage', KEEP),
  }),
);

export const Lease = resource(
  'Lease',
  ObjectMeta,
  message('LeaseSpec', {
    1: str('holderIdentity', KEEP),
    2: i32('leaseDurationSeconds', KEEP),
    3: microTime('acquireTime'),
    4: microTime('renewTime'),
    5: i32('leaseTransitions', KEEP),
    6: str('strategy', KEEP),
    7: str('preferredHolder', KEEP),
  }),
);
