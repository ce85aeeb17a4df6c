/**
 * How server-side apply sees a schema node: a scalar, a map (struct fields and/or map entries,
 * granular or atomic), or a list (atomic, a set of scalars, or a map keyed by some of its items'
 * fields). Built-in kinds without `x-kubernetes-list-type` follow their patch strategy
 * (`merge` with a merge key → list-map, `merge` without → set), as kube-openapi's conversion does;
 * CRD lists default to atomic. Where there is no schema, types are deduced from the value
 * (maps granular, lists atomic), as for `x-kubernetes-preserve-unknown-fields`.
 */
import { apiVersionOf } from '../../registry/kinds.js';
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { key, setValue, type KeyField, type PathElement } from './path.js';
import { isRecord } from '@landscape/apimachinery';

/** undefined: deduced from the value. */
export type Schema = JSONSchemaProps | undefined;

export interface MapType {
  kind: 'map';
  atomic: boolean;
  fields: Record<string, JSONSchemaProps>;
  /** The schema of entries that are not declared fields; null when the map is closed. */
  elements: { schema: Schema } | null;
}

export interface ListType {
  kind: 'list';
  listType: 'atomic' | 'set' | 'map';
  keys: string[];
  items: Schema;
}

export type TypeInfo = { kind: 'scalar' } | MapType | ListType;

/** What the walkers need besides the schema: built-in kinds read patch strategies. */
export interface TypeContext {
  builtin: boolean;
}

const SCALAR: TypeInfo = { kind: 'scalar' };
const STRING: JSONSchemaProps = { type: 'string' };

function deduced(value: unknown): TypeInfo {
  if (Array.isArray(value)) return { kind: 'list', listType: 'atomic', keys: [], items: undefined };
  if (isRecord(value)) return { kind: 'map', atomic: false, fields: {}, elements: { schema: undefined } };
  return SCALAR;
}

function isMapSchema(s: JSONSchemaProps): boolean {
  return (
    s.type === 'object' ||
    s.properties !== undefined ||
    s.additionalProperties !== undefined ||
    s['x-kubernetes-preserve-unknown-fields'] === true
  );
}

function mapType(s: JSONSchemaProps): MapType {
  let elements: MapType['elements'] = null;
  if (typeof s.additionalProperties === 'object') elements = { schema: s.additionalProperties };
  else if (s.additionalProperties === true || s['x-kubernetes-preserve-unknown-fields'])
    elements = { schema: undefined };
  let fields = s.properties ?? {};
  if (s['x-kubernetes-embedded-resource']) {
    fields = { apiVersion: STRING, kind: STRING, metadata: objectMetaSchema(), ...fields };
  }
  return { kind: 'map', atomic: s['x-kubernetes-map-type'] === 'atomic', fields, elements };
}

/** Without x-kubernetes-list-type, a built-in list follows its patch strategy; a CRD list is atomic. */
function defaultListType(ctx: TypeContext, s: JSONSchemaProps): ListType['listType'] {
  if (!ctx.builtin || !(s['x-kubernetes-patch-strategy'] ?? '').split(',').includes('merge')) return 'atomic';
  return s['x-kubernetes-patch-merge-key'] ? 'map' : 'set';
}

function listType(ctx: TypeContext, s: JSONSchemaProps): ListType {
  const mergeKey = ctx.builtin ? s['x-kubernetes-patch-merge-key'] : undefined;
  const keys = s['x-kubernetes-list-map-keys'] ?? (mergeKey ? [mergeKey] : []);
  let type = s['x-kubernetes-list-type'] ?? defaultListType(ctx, s);
  if (type === 'map' && keys.length === 0) type = 'set';
  return { kind: 'list', listType: type, keys: type === 'map' ? keys : [], items: s.items };
}

/** The type of the node `schema` describes, holding `value` (which decides for deduced types). */
export function resolve(ctx: TypeContext, schema: Schema, value: unknown): TypeInfo {
  if (!schema) return deduced(value);
  if (schema['x-kubernetes-int-or-string']) return SCALAR;
  if (schema.type === 'array' || schema.items !== undefined) return listType(ctx, schema);
  if (isMapSchema(schema)) return mapType(schema);
  if (schema.type) return SCALAR;
  return deduced(value);
}

/** The schema of a map's entry `k`; `declared` tells a struct field from a map entry. */
export function entrySchema(t: MapType, k: string): { schema: Schema; declared: boolean; known: boolean } {
  if (Object.prototype.hasOwnProperty.call(t.fields, k)) {
    return { schema: t.fields[k], declared: true, known: true };
  }
  return { schema: t.elements?.schema, declared: false, known: t.elements !== null };
}

function defaultOf(items: Schema, name: string): unknown {
  return items?.properties?.[name]?.default;
}

/** The element naming a list item (listItemToPathElement); a string is the error. */
export function itemElement(t: ListType, item: unknown): PathElement | string {
  if (t.listType === 'set') {
    if (isRecord(item)) return "associative list without keys has an element that's a map type";
    return setValue(item);
  }
  if (item === null) return 'associative list with keys may not have a null element';
  if (!isRecord(item)) return 'associative list with keys may not have non-map elements';
  const fields: KeyField[] = [];
  for (const name of t.keys) {
    const v = item[name] ?? defaultOf(t.items, name);
    if (v === undefined) {
      return `associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`;
    }
    fields.push([name, v]);
  }
  return key(fields);
}

function stringMap(): JSONSchemaProps {
  return { type: 'object', additionalProperties: { type: 'string' } };
}

/** metav1.ObjectMeta as the type converter knows it (whatever a CRD's schema says of metadata). */
export function objectMetaSchema(): JSONSchemaProps {
  const time: JSONSchemaProps = { type: 'string', nullable: true };
  const ownerReference: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-map-type': 'atomic',
    properties: {
      apiVersion: STRING,
      blockOwnerDeletion: { type: 'boolean' },
      controller: { type: 'boolean' },
      kind: STRING,
      name: STRING,
      uid: STRING,
    },
  };
  return {
    type: 'object',
    properties: {
      annotations: stringMap(),
      creationTimestamp: time,
      deletionGracePeriodSeconds: { type: 'integer' },
      deletionTimestamp: time,
      finalizers: { type: 'array', items: STRING, 'x-kubernetes-list-type': 'set' },
      generateName: STRING,
      generation: { type: 'integer' },
      labels: stringMap(),
      managedFields: {
        type: 'array',
        items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        'x-kubernetes-list-type': 'atomic',
      },
      name: STRING,
      namespace: STRING,
      ownerReferences: {
        type: 'array',
        items: ownerReference,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['uid'],
      },
      resourceVersion: STRING,
      selfLink: STRING,
      uid: STRING,
    },
  };
}

const ROOTS = new WeakMap<ResourceDef, JSONSchemaProps>();

/** The whole object's schema with apiVersion, kind and ObjectMeta always declared. */
export function rootSchema(def: ResourceDef): JSONSchemaProps {
  let root = ROOTS.get(def);
  if (!root) {
    root = {
      ...def.schema,
      type: 'object',
      properties: {
        ...(def.schema.properties ?? {}),
        apiVersion: STRING,
        kind: STRING,
        metadata: objectMetaSchema(),
      },
    };
    ROOTS.set(def, root);
  }
  return root;
}

export function contextOf(def: ResourceDef): TypeContext {
  return { builtin: def.builtin };
}

/** schema.GroupVersionKind's String(): `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`. */
export function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const gv = slash < 0 ? `/${apiVersion}` : apiVersion;
  return `${gv}, Kind=${kind}`;
}

export function defGvk(def: ResourceDef): string {
  return gvkString(apiVersionOf(def), def.kind);
}
