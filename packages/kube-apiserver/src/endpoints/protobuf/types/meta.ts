/**
 * k8s.io/apimachinery/pkg/apis/meta/v1 (generated.proto, types.go): ObjectMeta, OwnerReference,
 * ManagedFieldsEntry, LabelSelector, Condition, DeleteOptions. Time, MicroTime, Quantity and
 * IntOrString are field kinds of their own (see descriptor.ts).
 */
import { bool, fieldsV1, i64, KEEP, list, message, obj, str, strMap, strs, time } from '../descriptor.js';

export const OwnerReference = message('OwnerReference', {
  1: str('kind', KEEP),
  3: str('name', KEEP),
  4: str('uid', KEEP),
  5: str('apiVersion', KEEP),
  6: bool('controller', KEEP),
  7: bool('blockOwnerDeletion', KEEP),
});

export const ManagedFieldsEntry = message('ManagedFieldsEntry', {
  1: str('manager'),
  2: str('operation'),
  3: str('apiVersion'),
  4: time('time'),
  6: str('fieldsType'),
  7: fieldsV1('fieldsV1'),
  8: str('subresource'),
});

export const ObjectMeta = message('ObjectMeta', {
  1: str('name'),
  2: str('generateName'),
  3: str('namespace'),
  4: str('selfLink'),
  5: str('uid'),
  6: str('resourceVersion'),
  7: i64('generation'),
  8: time('creationTimestamp'),
  9: time('deletionTimestamp'),
  10: i64('deletionGracePeriodSeconds', KEEP),
  11: strMap('labels'),
  12: strMap('annotations'),
  13: list('ownerReferences', OwnerReference),
  14: strs('finalizers'),
  17: list('managedFields', ManagedFieldsEntry),
});

export const LabelSelectorRequirement = message('LabelSelectorRequirement', {
  1: str('key', KEEP),
  2: str('operator', KEEP),
  3: strs('values'),
});

export const LabelSelector = message('LabelSelector', {
  1: strMap('matchLabels'),
  2: list('matchExpressions', LabelSelectorRequirement),
});

export const Condition = message('Condition', {
  1: str('type', KEEP),
  2: str('status', KEEP),
  3: i64('observedGeneration'),
  4: time('lastTransitionTime'),
  5: str('reason', KEEP),
  6: str('message', KEEP),
});

export const Preconditions = message('Preconditions', {
  1: str('uid', KEEP),
  2: str('resourceVersion', KEEP),
});

export const DeleteOptions = message('DeleteOptions', {
  1: i64('gracePeriodSeconds', KEEP),
  2: obj('preconditions', Preconditions),
  3: bool('orphanDependents', KEEP),
  4: str('propagationPolicy', KEEP),
  5: strs('dryRun'),
});
