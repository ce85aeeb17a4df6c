/**
 * k8s.io/api/core/v1 (generated.proto): Volume with the common sources (hostPath, emptyDir,
 * secret, nfs, persistentVolumeClaim, downwardAPI, configMap, projected, csi, ephemeral, image)
 * and PersistentVolumeClaim (StatefulSet volumeClaimTemplates, ephemeral volumes). The legacy
 * in-tree cloud and storage-vendor sources are not described: their fields are skipped.
 */
import {
  bool,
  i32,
  i64,
  inline,
  KEEP,
  list,
  message,
  obj,
  quantity,
  quantityMap,
  resource,
  str,
  strMap,
  strs,
  time,
  type MessageDesc,
} from '../descriptor.js';
import { LocalObjectReference, ObjectFieldSelector, ResourceFieldSelector } from './container.js';
import { LabelSelector, ObjectMeta } from './meta.js';

export const KeyToPath = message('KeyToPath', {
  1: str('key', KEEP),
  2: str('path', KEEP),
  3: i32('mode', KEEP),
});

const projection = (name: string): MessageDesc =>
  message(name, { 1: inline(LocalObjectReference), 2: list('items', KeyToPath), 4: bool('optional', KEEP) });

export const DownwardAPIVolumeFile = message('DownwardAPIVolumeFile', {
  1: str('path', KEEP),
  2: obj('fieldRef', ObjectFieldSelector),
  3: obj('resourceFieldRef', ResourceFieldSelector),
  4: i32('mode', KEEP),
});

export const VolumeProjection = message('VolumeProjection', {
  1: obj('secret', projection('SecretProjection')),
  2: obj('downwardAPI', message('DownwardAPIProjection', { 1: list('items', DownwardAPIVolumeFile) })),
  3: obj('configMap', projection('ConfigMapProjection')),
  4: obj(
    'serviceAccountToken',
    message('ServiceAccountTokenProjection', {
      1: str('audience'),
      2: i64('expirationSeconds', KEEP),
      3: str('path', KEEP),
    }),
  ),
  5: obj(
    'clusterTrustBundle',
    message('ClusterTrustBundleProjection', {
      1: str('name', KEEP),
      2: str('signerName', KEEP),
      3: obj('labelSelector', LabelSelector),
      5: bool('optional', KEEP),
      4: str('path', KEEP),
    }),
  ),
});

export const TypedLocalObjectReference = message('TypedLocalObjectReference', {
  1: str('apiGroup', KEEP),
  2: str('kind', KEEP),
  3: str('name', KEEP),
});

export const TypedObjectReference = message('TypedObjectReference', {
  1: str('apiGroup', KEEP),
  2: str('kind', KEEP),
  3: str('name', KEEP),
  4: str('namespace', KEEP),
});

export const PersistentVolumeClaimSpec = message('PersistentVolumeClaimSpec', {
  1: strs('accessModes'),
  4: obj('selector', LabelSelector),
  2: obj(
    'resources',
    message('VolumeResourceRequirements', { 1: quantityMap('limits'), 2: quantityMap('requests') }),
  ),
  3: str('volumeName'),
  5: str('storageClassName', KEEP),
  6: str('volumeMode', KEEP),
  7: obj('dataSource', TypedLocalObjectReference),
  8: obj('dataSourceRef', TypedObjectReference),
  9: str('volumeAttributesClassName', KEEP),
});

export const PersistentVolumeClaimCondition = message('PersistentVolumeClaimCondition', {
  1: str('type', KEEP),
  2: str('status', KEEP),
  3: time('lastProbeTime'),
  4: time('lastTransitionTime'),
  5: str('reason'),
  6: str('message'),
});

export const PersistentVolumeClaimStatus = message('PersistentVolumeClaimStatus', {
  1: str('phase'),
  2: strs('accessModes'),
  3: quantityMap('capacity'),
  4: list('conditions', PersistentVolumeClaimCondition),
  5: quantityMap('allocatedResources'),
  7: strMap('allocatedResourceStatuses'),
  8: str('currentVolumeAttributesClassName', KEEP),
  9: obj(
    'modifyVolumeStatus',
    message('ModifyVolumeStatus', { 1: str('targetVolumeAttributesClassName'), 2: str('status', KEEP) }),
  ),
});

export const PersistentVolumeClaim = resource(
  'PersistentVolumeClaim',
  ObjectMeta,
  PersistentVolumeClaimSpec,
  PersistentVolumeClaimStatus,
);

export const VolumeSource = message('VolumeSource', {
  1: obj('hostPath', message('HostPathVolumeSource', { 1: str('path', KEEP), 2: str('type', KEEP) })),
  2: obj('emptyDir', message('EmptyDirVolumeSource', { 1: str('medium'), 2: quantity('sizeLimit') })),
  6: obj(
    'secret',
    message('SecretVolumeSource', {
      1: str('secretName'),
      2: list('items', KeyToPath),
      3: i32('defaultMode', KEEP),
      4: bool('optional', KEEP),
    }),
  ),
  7: obj(
    'nfs',
    message('NFSVolumeSource', { 1: str('server', KEEP), 2: str('path', KEEP), 3: bool('readOnly') }),
  ),
  10: obj(
    'persistentVolumeClaim',
    message('PersistentVolumeClaimVolumeSource', { 1: str('claimName', KEEP), 2: bool('readOnly') }),
  ),
  16: obj(
    'downwardAPI',
    message('DownwardAPIVolumeSource', {
      1: list('items', DownwardAPIVolumeFile),
      2: i32('defaultMode', KEEP),
    }),
  ),
  19: obj(
    'configMap',
    message('ConfigMapVolumeSource', {
      1: inline(LocalObjectReference),
      2: list('items', KeyToPath),
      3: i32('defaultMode', KEEP),
      4: bool('optional', KEEP),
    }),
  ),
  26: obj(
    'projected',
    message('ProjectedVolumeSource', { 1: list('sources', VolumeProjection), 2: i32('defaultMode', KEEP) }),
  ),
  28: obj(
    'csi',
    message('CSIVolumeSource', {
      1: str('driver', KEEP),
      2: bool('readOnly', KEEP),
      3: str('fsType', KEEP),
      4: strMap('volumeAttributes'),
      5: obj('nodePublishSecretRef', LocalObjectReference),
    }),
  ),
  29: obj(
    'ephemeral',
    message('EphemeralVolumeSource', {
      1: obj(
        'volumeClaimTemplate',
        message('PersistentVolumeClaimTemplate', {
          1: obj('metadata', ObjectMeta),
          2: obj('spec', PersistentVolumeClaimSpec),
        }),
      ),
    }),
  ),
  30: obj('image', message('ImageVolumeSource', { 1: str('reference'), 2: str('pullPolicy') })),
});

export const Volume = message('Volume', { 1: str('name', KEEP), 2: inline(VolumeSource) });
