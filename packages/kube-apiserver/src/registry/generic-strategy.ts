/**
 * The strategy every kind gets unless the table (./strategies.ts) says otherwise: the parts of
 * kube-apiserver's per-resource strategies that are the same for every resource with a status
 * subresource (PrepareForCreate clears status, PrepareForUpdate keeps the stored status, the status
 * strategy changes status only) and autoscaling's Scale validation (k8s.io/kubernetes
 * pkg/apis/autoscaling/validation ValidateScale).
 */
import { invalid } from '../api/errors.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import type { RestStrategy } from './rest-strategy.js';

/** PrepareForCreate of a kind with a status subresource: a new object starts without status. */
export function withoutStatus(def: ResourceDef, obj: KubeObject): KubeObject {
  if (!def.subresources.status) return obj;
  const out = { ...obj };
  delete out.status;
  return out;
}

/** PrepareForUpdate of a kind with a status subresource: the main resource does not change status. */
export function keepStatus(def: ResourceDef, prev: KubeObject, next: KubeObject): KubeObject {
  return def.subresources.status ? { ...next, status: prev.status } : next;
}

function validateScaleReplicas(_def: ResourceDef, name: string, replicas: unknown): void {
  if (replicas === undefined || (Number.isInteger(replicas) && (replicas as number) >= 0)) return;
  throw invalid('Scale', 'autoscaling', name, [
    {
      type: 'FieldValueInvalid',
      field: 'spec.replicas',
      value: replicas,
      detail: 'must be greater than or equal to 0',
    },
  ]);
}

const nothing = (): void => undefined;

export const GENERIC_STRATEGY: RestStrategy = {
  prepareForCreate: withoutStatus,
  validateCreate: nothing,
  prepareForUpdate: keepStatus,
  validateUpdate: nothing,
  prepareForStatusUpdate: (_def, prev, incoming) => ({ ...prev, status: incoming.status }),
  validateStatusUpdate: nothing,
  validateScaleUpdate: validateScaleReplicas,
  prepareForDelete: (_def, obj) => obj,
  pendingFinalizers: () => [],
  subresources: [],
  fieldLabels: {},
  legacyFieldLabelErrors: false,
};
