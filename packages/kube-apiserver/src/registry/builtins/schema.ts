/**
 * Small builders for the OpenAPI v3 schemas of the built-in kinds. Every builder returns a fresh
 * object, so nothing is built at import time and callers may not share (and mutate) nodes.
 *
 * Conventions (as the embedded API server reads them):
 * - an object that lists `properties` is closed: unknown fields are rejected under fieldValidation=Strict;
 * - a subtree that is not enumerated field by field is `open()`: `x-kubernetes-preserve-unknown-fields`;
 * - int-or-string and quantities use the CRD convention (`anyOf` integer|string + `x-kubernetes-int-or-string`).
 */
import type { JSONSchemaProps } from '../../api/types.js';

export type Props = Record<string, JSONSchemaProps>;

/** The regular expression Kubernetes (and controller-gen) publish for resource.Quantity strings. */
const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

export function str(description?: string): JSONSchemaProps {
  return description === undefined ? { type: 'string' } : { type: 'string', description };
}

/** A string restricted to the values Kubernetes validation accepts (422 Unsupported value otherwise). */
export function strEnum(values: readonly string[], description?: string): JSONSchemaProps {
  const node: JSONSchemaProps = { type: 'string', enum: [...values] };
  if (description !== undefined) node.description = description;
  return node;
}

export function int32(description?: string): JSONSchemaProps {
  const node: JSONSchemaProps = { type: 'integer', format: 'int32' };
  if (description !== undefined) node.description = description;
  return node;
}

export function int64(description?: string): JSONSchemaProps {
  const node: JSONSchemaProps = { type: 'integer', format: 'int64' };
  if (description !== undefined) node.description = description;
  return node;
}

export function bool(): JSONSchemaProps {
  return { type: 'boolean' };
}

/** metav1.Time: RFC 3339. Nullable because Go clients send `creationTimestamp: null`. */
export function time(): JSONSchemaProps {
  return { type: 'string', format: 'date-time', nullable: true };
}

/** metav1.MicroTime: RFC 3339 with microseconds (published as format date-time). */
export function microTime(): JSONSchemaProps {
  return { type: 'string', format: 'micro-time', nullable: true };
}

/** Base64-encoded bytes ([]byte in Go). */
export function bytes(): JSONSchemaProps {
  return { type: 'string', format: 'byte' };
}

export function intOrString(): JSONSchemaProps {
  return { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
}

/** resource.Quantity ("500m", "1Gi", 2). */
export function quantity(): JSONSchemaProps {
  return {
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern: QUANTITY_PATTERN,
  };
}

/** map[string]string; `atomic` for maps Kubernetes replaces as a whole (selectors). */
export function stringMap(atomic = false): JSONSchemaProps {
  const node: JSONSchemaProps = { type: 'object', additionalProperties: { type: 'string' } };
  if (atomic) node['x-kubernetes-map-type'] = 'atomic';
  return node;
}

/** map[string][]byte (Secret data, ConfigMap binaryData). */
export function bytesMap(): JSONSchemaProps {
  return { type: 'object', additionalProperties: bytes() };
}

/** ResourceList: map of resource name to quantity. */
export function quantityMap(): JSONSchemaProps {
  return { type: 'object', additionalProperties: quantity() };
}

/** A subtree kept as given (not enumerated here): any fields allowed. */
export function open(description?: string): JSONSchemaProps {
  const node: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  if (description !== undefined) node.description = description;
  return node;
}

/** A closed object: exactly these properties (the complete Kubernetes 1.32 field list). */
export function obj(properties: Props, required: string[] = []): JSONSchemaProps {
  const node: JSONSchemaProps = { type: 'object', properties };
  if (required.length > 0) node.required = required;
  return node;
}

/** A closed object that strategic merge / server-side apply treat as a unit (`+structType=atomic`). */
export function atomicObj(properties: Props, required: string[] = []): JSONSchemaProps {
  return { ...obj(properties, required), 'x-kubernetes-map-type': 'atomic' };
}

/** Fields every top-level kind has; `metadata` is the shared ObjectMeta. */
export function kindProps(extra: Props): Props {
  return { apiVersion: str(), kind: str(), metadata: objectMeta(), ...extra };
}

export function atomicList(items: JSONSchemaProps): JSONSchemaProps {
  return { type: 'array', items, 'x-kubernetes-list-type': 'atomic' };
}

export function stringList(): JSONSchemaProps {
  return atomicList({ type: 'string' });
}

export function setList(items: JSONSchemaProps, patchStrategy?: string): JSONSchemaProps {
  const node: JSONSchemaProps = { type: 'array', items, 'x-kubernetes-list-type': 'set' };
  if (patchStrategy !== undefined) node['x-kubernetes-patch-strategy'] = patchStrategy;
  return node;
}

export interface MapListOptions {
  /** Strategic-merge merge key; defaults to the first list-map key. */
  mergeKey?: string;
  /** Strategic-merge strategy; defaults to `merge`. */
  strategy?: string;
  /** False for lists that are a map for server-side apply only (no patch strategy published). */
  patch?: boolean;
}

/** A list keyed like a map (`+listType=map`), merged by key in strategic merge patches. */
export function mapList(
  items: JSONSchemaProps,
  keys: string[],
  options: MapListOptions = {},
): JSONSchemaProps {
  const node: JSONSchemaProps = {
    type: 'array',
    items,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': keys,
  };
  if (options.patch === false) return node;
  node['x-kubernetes-patch-merge-key'] = options.mergeKey ?? keys[0];
  node['x-kubernetes-patch-strategy'] = options.strategy ?? 'merge';
  return node;
}

/** A list merged by key in strategic merge patches but atomic for server-side apply. */
export function mergeAtomicList(items: JSONSchemaProps, mergeKey: string): JSONSchemaProps {
  return {
    ...atomicList(items),
    'x-kubernetes-patch-merge-key': mergeKey,
    'x-kubernetes-patch-strategy': 'merge',
  };
}

/** status.conditions of the kind-specific condition types (type and status required). */
export function conditionList(extra: Props = {}, options: MapListOptions = {}): JSONSchemaProps {
  const item = obj(
    { lastTransitionTime: time(), message: str(), reason: str(), status: str(), type: str(), ...extra },
    ['type', 'status'],
  );
  return mapList(item, ['type'], options);
}

/** []metav1.Condition (Service status). */
export function metaConditionList(): JSONSchemaProps {
  const item = obj(
    {
      lastTransitionTime: time(),
      message: str(),
      observedGeneration: int64(),
      reason: str(),
      status: strEnum(['True', 'False', 'Unknown']),
      type: str(),
    },
    ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  );
  return mapList(item, ['type']);
}

export function objectReference(): JSONSchemaProps {
  return atomicObj({
    apiVersion: str(),
    fieldPath: str(),
    kind: str(),
    name: str(),
    namespace: str(),
    resourceVersion: str(),
    uid: str(),
  });
}

export function localObjectReference(): JSONSchemaProps {
  return atomicObj({ name: { type: 'string', default: '' } });
}

export function labelSelector(): JSONSchemaProps {
  const requirement = obj(
    { key: str(), operator: strEnum(['In', 'NotIn', 'Exists', 'DoesNotExist']), values: stringList() },
    ['key', 'operator'],
  );
  return atomicObj({ matchExpressions: atomicList(requirement), matchLabels: stringMap() });
}

export function ownerReference(): JSONSchemaProps {
  return atomicObj(
    {
      apiVersion: str(),
      blockOwnerDeletion: bool(),
      controller: bool(),
      kind: str(),
      name: str(),
      uid: str(),
    },
    ['apiVersion', 'kind', 'name', 'uid'],
  );
}

function managedFieldsEntry(): JSONSchemaProps {
  return obj({
    apiVersion: str(),
    fieldsType: str(),
    fieldsV1: open(),
    manager: str(),
    operation: str(),
    subresource: str(),
    time: time(),
  });
}

/** metav1.ObjectMeta, shared by every kind (and pod templates). */
export function objectMeta(): JSONSchemaProps {
  return obj({
    annotations: stringMap(),
    creationTimestamp: time(),
    deletionGracePeriodSeconds: int64(),
    deletionTimestamp: time(),
    finalizers: setList({ type: 'string' }, 'merge'),
    generateName: str(),
    generation: int64(),
    labels: stringMap(),
    managedFields: atomicList(managedFieldsEntry()),
    name: str(),
    namespace: str(),
    ownerReferences: mapList(ownerReference(), ['uid']),
    resourceVersion: str(),
    selfLink: str(),
    uid: str(),
  });
}
