/**
 * Test helpers for CRD schemas: the apiextensions.k8s.io structural-schema rules a real API
 * server enforces on a CRD, an ajv set up for OpenAPI v3 with the x-kubernetes-* extensions,
 * and a walker that lists the fields of an object a schema does not know (what the server
 * would prune, or refuse under fieldValidation=Strict).
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { addKubernetesVocabulary } from '@landscape/kube-apiserver';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface Schema {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema | Schema[];
  required?: string[];
  default?: unknown;
  nullable?: boolean;
  anyOf?: Schema[];
  allOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  [keyword: string]: unknown;
}

const TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean'];
const JUNCTORS = ['allOf', 'anyOf', 'oneOf', 'not'] as const;
const FORBIDDEN_IN_JUNCTORS = ['description', 'type', 'default', 'additionalProperties', 'nullable'];
const LIST_TYPES = ['atomic', 'set', 'map'];
const MAP_TYPES = ['atomic', 'granular'];

function isIntOrStringAnyOf(branches: unknown): boolean {
  return (
    Array.isArray(branches) &&
    branches.length === 2 &&
    JSON.stringify(branches[0]) === '{"type":"integer"}' &&
    JSON.stringify(branches[1]) === '{"type":"string"}'
  );
}

/** Keys a structural schema must not set anywhere below a logical junctor. */
function junctorProblems(node: Schema, path: string, out: string[]): void {
  for (const key of FORBIDDEN_IN_JUNCTORS) {
    if (node[key] !== undefined) out.push(`${path}: ${key} must not be set inside allOf/anyOf/oneOf/not`);
  }
  for (const [name, child] of Object.entries(node.properties ?? {}))
    junctorProblems(child, `${path}.${name}`, out);
  if (node.items && !Array.isArray(node.items)) junctorProblems(node.items, `${path}[*]`, out);
  for (const j of JUNCTORS) {
    const sub = node[j];
    for (const s of Array.isArray(sub) ? sub : sub ? [sub] : []) junctorProblems(s, `${path}.${j}`, out);
  }
}

function checkJunctors(node: Schema, path: string, out: string[]): void {
  for (const j of JUNCTORS) {
    const sub = node[j];
    if (sub === undefined) continue;
    if (
      node['x-kubernetes-int-or-string'] === true &&
      (j === 'anyOf' || j === 'allOf') &&
      isIntOrStringAnyOf(sub)
    ) {
      continue;
    }
    for (const s of Array.isArray(sub) ? sub : [sub]) junctorProblems(s, `${path}.${j}`, out);
  }
}

function checkType(node: Schema, path: string, out: string[]): void {
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  const preserve = node['x-kubernetes-preserve-unknown-fields'];
  if (preserve !== undefined && preserve !== true)
    out.push(`${path}: x-kubernetes-preserve-unknown-fields must be true`);
  if (intOrString && node.type !== undefined)
    out.push(`${path}: x-kubernetes-int-or-string must not set type`);
  if (node.type === undefined && !intOrString && preserve !== true) out.push(`${path}: type is missing`);
  if (node.type !== undefined && !TYPES.includes(node.type)) out.push(`${path}: unknown type ${node.type}`);
  if (
    intOrString &&
    (node.anyOf ?? node.allOf) !== undefined &&
    !isIntOrStringAnyOf(node.anyOf ?? node.allOf)
  ) {
    out.push(`${path}: x-kubernetes-int-or-string allows only anyOf [{type: integer}, {type: string}]`);
  }
}

function checkShape(node: Schema, path: string, out: string[]): void {
  if (node.properties && node.additionalProperties !== undefined) {
    out.push(`${path}: properties and additionalProperties are mutually exclusive`);
  }
  if (typeof node.additionalProperties === 'boolean')
    out.push(`${path}: additionalProperties must be a schema`);
  if (Array.isArray(node.items)) out.push(`${path}: items must be a single schema`);
  if (node.type === 'array' && node.items === undefined) out.push(`${path}: an array needs items`);
  if (node.type !== 'array' && node.items !== undefined) out.push(`${path}: items on a non-array`);
  const objectOnly = node.properties !== undefined || node.additionalProperties !== undefined;
  if (objectOnly && node.type !== 'object') out.push(`${path}: properties on a non-object`);
}

function checkMetadata(node: Schema, path: string, out: string[]): void {
  const meta = node.properties?.metadata;
  if (!meta) return;
  const where = `${path}.metadata`;
  if (meta.type !== 'object') out.push(`${where}: must be of type object`);
  const extra = Object.keys(meta).filter((k) => k !== 'type' && k !== 'properties');
  if (extra.length)
    out.push(`${where}: must not be described beyond type object (found ${extra.join(', ')})`);
  for (const [name, prop] of Object.entries(meta.properties ?? {})) {
    if (name !== 'name' && name !== 'generateName')
      out.push(`${where}.${name}: only name and generateName may be restricted`);
    else if (prop.type !== 'string') out.push(`${where}.${name}: must be a string`);
  }
}

function checkExtensions(node: Schema, path: string, out: string[]): void {
  if (node['x-kubernetes-embedded-resource'] === true) {
    if (node.type !== 'object') out.push(`${path}: an embedded resource must be of type object`);
    if (!node.properties && node['x-kubernetes-preserve-unknown-fields'] !== true) {
      out.push(`${path}: an embedded resource needs properties or x-kubernetes-preserve-unknown-fields`);
    }
    checkMetadata(node, path, out);
  }
  const listType = node['x-kubernetes-list-type'];
  if (listType !== undefined && (node.type !== 'array' || !LIST_TYPES.includes(listType))) {
    out.push(`${path}: invalid x-kubernetes-list-type ${listType}`);
  }
  const keys = node['x-kubernetes-list-map-keys'];
  if (listType === 'map') {
    const items = node.items as Schema | undefined;
    if (!keys?.length || items?.type !== 'object')
      out.push(`${path}: a map list needs object items and map keys`);
    for (const key of keys ?? []) {
      if (!items?.properties?.[key]) out.push(`${path}: map key ${key} is not a property of the items`);
      else if (!items.required?.includes(key) && items.properties[key].default === undefined) {
        out.push(`${path}: map key ${key} must be required or defaulted`);
      }
    }
  } else if (keys !== undefined)
    out.push(`${path}: x-kubernetes-list-map-keys needs x-kubernetes-list-type map`);
  const mapType = node['x-kubernetes-map-type'];
  if (mapType !== undefined && (node.type !== 'object' || !MAP_TYPES.includes(mapType))) {
    out.push(`${path}: invalid x-kubernetes-map-type ${mapType}`);
  }
}

function walk(node: Schema, path: string, out: string[]): void {
  checkType(node, path, out);
  checkShape(node, path, out);
  checkJunctors(node, path, out);
  checkExtensions(node, path, out);
  for (const [name, child] of Object.entries(node.properties ?? {})) walk(child, `${path}.${name}`, out);
  if (node.items && !Array.isArray(node.items)) walk(node.items, `${path}[*]`, out);
  if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${path}.*`, out);
}

/** Every violation of the structural-schema rules in a CRD version's openAPIV3Schema ([] when structural). */
export function structuralProblems(root: Schema): string[] {
  const out: string[] = [];
  if (root.type !== 'object') out.push('<root>: must be of type object');
  for (const field of ['apiVersion', 'kind']) {
    const prop = root.properties?.[field];
    if (prop && prop.type !== 'string') out.push(`<root>.${field}: must be a string`);
  }
  checkMetadata(root, '<root>', out);
  walk(root, '<root>', out);
  return out;
}

/** The schema node at a simple JSONPath such as `.spec.replicas` (undefined when the schema has no such field). */
export function schemaAt(root: Schema, jsonPath: string): Schema | undefined {
  let node: Schema | undefined = root;
  for (const part of jsonPath.split('.').slice(1)) {
    if (!node) return undefined;
    node =
      node.properties?.[part] ??
      (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
  }
  return node;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Paths of the fields of `value` the schema does not know (metadata, apiVersion, kind are the server's). */
export function unknownFields(schema: Schema, value: unknown, path = '', top = true): string[] {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items || Array.isArray(items)) return [];
    return value.flatMap((v, i) => unknownFields(items, v, `${path}[${i}]`, false));
  }
  if (!isPlainObject(value)) return [];
  const envelope = top || schema['x-kubernetes-embedded-resource'] === true;
  const out: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    if (envelope && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    const where = path ? `${path}.${key}` : key;
    const sub =
      schema.properties?.[key] ??
      (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    if (sub) out.push(...unknownFields(sub, child, where, false));
    else if (schema['x-kubernetes-preserve-unknown-fields'] !== true) out.push(where);
  }
  return out;
}

const ANNOTATION_KEYWORDS = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
];

/**
 * An ajv for CRD schemas: strict about unknown keywords (a typo such as `porperties` fails to
 * compile), with the OpenAPI formats and the x-kubernetes-* extensions a CRD may use.
 */
export function newCrdAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    logger: false,
  });
  addFormats(ajv);
  for (const keyword of ANNOTATION_KEYWORDS)
    ajv.addKeyword({ keyword, schemaType: ['boolean', 'string', 'array'] });
  return addKubernetesVocabulary(ajv);
}
