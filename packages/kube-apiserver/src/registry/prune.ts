/**
 * Structural pruning as the API server does it before validation: fields the schema does not
 * know are dropped (and reported, so fieldValidation=Strict can refuse them and Warn can warn),
 * and `null` values are dropped where the schema does not say `nullable`.
 */
import { isRecord } from '@landscape/apimachinery';
import type { JSONSchemaProps } from '../api/types.js';

export const OBJECT_META_FIELDS = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
] as const;

const META_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: Object.fromEntries(
    OBJECT_META_FIELDS.map((f) => [f, { 'x-kubernetes-preserve-unknown-fields': true }]),
  ),
};

export interface PruneResult {
  value: unknown;
  /** Paths of dropped unknown fields, in the `spec.template.foo` / `a[0].b` form of Kubernetes messages. */
  unknown: string[];
}

const DROP = Symbol('drop');

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function keepsUnknown(schema: JSONSchemaProps): boolean {
  return schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
}

const TYPE_META: Record<string, JSONSchemaProps> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: META_SCHEMA,
};

function childSchema(schema: JSONSchemaProps, key: string, top: boolean): JSONSchemaProps | undefined {
  const embedded = top || schema['x-kubernetes-embedded-resource'] === true;
  if (embedded && Object.prototype.hasOwnProperty.call(TYPE_META, key)) return TYPE_META[key];
  const prop = schema.properties?.[key];
  if (prop) return prop;
  if (typeof schema.additionalProperties === 'object') return schema.additionalProperties;
  return undefined;
}

function pruneObject(
  value: Record<string, unknown>,
  schema: JSONSchemaProps,
  path: string,
  unknown: string[],
  top: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const sub = childSchema(schema, key, top);
    if (!sub) {
      if (keepsUnknown(schema)) out[key] = child;
      else unknown.push(join(path, key));
      continue;
    }
    const pruned = pruneNode(child, sub, join(path, key), unknown, false);
    if (pruned !== DROP) out[key] = pruned;
  }
  return out;
}

function pruneArray(value: unknown[], schema: JSONSchemaProps, path: string, unknown: string[]): unknown[] {
  const items = schema.items;
  if (!items) return value;
  return value.map((item, i) => {
    const pruned = pruneNode(item, items, `${path}[${i}]`, unknown, false);
    return pruned === DROP ? null : pruned;
  });
}

function describesFields(schema: JSONSchemaProps, top: boolean): boolean {
  return (
    top ||
    schema.properties !== undefined ||
    schema.additionalProperties !== undefined ||
    schema['x-kubernetes-embedded-resource'] === true
  );
}

function pruneNode(
  value: unknown,
  schema: JSONSchemaProps,
  path: string,
  unknown: string[],
  top: boolean,
): unknown {
  if (value === null) return schema.nullable ? null : DROP;
  if (Array.isArray(value)) return pruneArray(value, schema, path, unknown);
  if (!isRecord(value)) return value;
  if (describesFields(schema, top)) return pruneObject(value, schema, path, unknown, top);
  if (schema.type === 'object' && !keepsUnknown(schema)) {
    // An object schema with neither properties nor additionalProperties keeps nothing.
    for (const key of Object.keys(value)) unknown.push(join(path, key));
    return {};
  }
  return value;
}

/** Prunes a whole object against its kind's schema. The input is not mutated. */
export function prune(object: unknown, schema: JSONSchemaProps): PruneResult {
  const unknown: string[] = [];
  const value = pruneNode(object, schema, '', unknown, true);
  return { value: value === DROP ? {} : value, unknown };
}
