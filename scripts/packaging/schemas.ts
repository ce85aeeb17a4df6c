/**
 * Validation of every document under `knative/` against the schema of its kind, read as a
 * Kubernetes API server under `fieldValidation=Strict` reads it (what `kubectl apply` asks for):
 * Knative kinds against Knative's own CRD schemas (test/fixtures/upstream-schemas/knative/), built-in kinds
 * (Namespace, ServiceAccount, ConfigMap, RBAC, ...) against the embedded API server's schemas
 * (@landscape/kube-apiserver's builtinResources). Objects that list their properties are closed (an unknown field
 * is a problem) unless the schema keeps unknown fields; `metadata` is checked as ObjectMeta.
 * The ajv is set up with the project's Kubernetes vocabulary (int-or-string, OpenAPI formats).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parseAllDocuments } from 'yaml';
import { builtinResources } from '@landscape/kube-apiserver';
import type { JSONSchemaProps } from '@landscape/kube-apiserver';
import { addKubernetesVocabulary } from '@landscape/kube-apiserver';
import { isRecord, label, record, refOf, text, type ManifestDoc } from './model.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const ANNOTATION_KEYWORDS = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-validations',
  'x-kubernetes-group-version-kind',
] as const;

/** A schema per `apiVersion` and `kind`. */
export type KindSchemas = ReadonlyMap<string, JSONSchemaProps>;

export function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}|${kind}`;
}

/** The schema as a strict server reads it: objects that list properties are closed. */
export function closed(node: JSONSchemaProps): JSONSchemaProps {
  const out: JSONSchemaProps = { ...node };
  if (node.properties) {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, closed(v)]));
    if (node.additionalProperties === undefined && node['x-kubernetes-preserve-unknown-fields'] !== true)
      out.additionalProperties = false;
  }
  if (node.items) out.items = closed(node.items);
  if (isRecord(node.additionalProperties)) out.additionalProperties = closed(node.additionalProperties);
  return out;
}

function objectMetaSchema(): JSONSchemaProps {
  const ns = builtinResources().find((d) => d.kind === 'Namespace');
  const meta = ns?.schema.properties?.['metadata'];
  if (meta === undefined) throw new Error('kube-apiserver builtins: Namespace has no metadata schema');
  return meta;
}

/** The built-in kinds of the embedded API server, by apiVersion and kind. */
export function builtinSchemas(): Map<string, JSONSchemaProps> {
  const out = new Map<string, JSONSchemaProps>();
  for (const def of builtinResources()) {
    const apiVersion = def.group === '' ? def.version : `${def.group}/${def.version}`;
    out.set(kindKey(apiVersion, def.kind), def.schema);
  }
  return out;
}

/** Every served version of the CustomResourceDefinitions in a YAML text, by apiVersion and kind. */
export function crdSchemas(yamlText: string): Map<string, JSONSchemaProps> {
  const out = new Map<string, JSONSchemaProps>();
  const meta = objectMetaSchema();
  for (const doc of parseAllDocuments(yamlText)) {
    const crd = record(doc.toJS());
    if (crd['kind'] !== 'CustomResourceDefinition') continue;
    const spec = record(crd['spec']);
    const kind = text(record(spec['names'])['kind']) ?? '';
    for (const v of Array.isArray(spec['versions']) ? (spec['versions'] as unknown[]) : []) {
      const version = record(v);
      const schema = record(record(version['schema'])['openAPIV3Schema']) as JSONSchemaProps;
      // apiVersion, kind and metadata are the server's envelope, whatever the CRD lists.
      const envelope = { apiVersion: { type: 'string' as const }, kind: { type: 'string' as const } };
      const properties = { ...envelope, ...(schema.properties ?? {}), metadata: meta };
      out.set(kindKey(`${text(spec['group']) ?? ''}/${text(version['name']) ?? ''}`, kind), {
        ...schema,
        properties,
      });
    }
  }
  return out;
}

/** The CRD schemas of every `*.yaml` in a folder (e.g. test/fixtures/upstream-schemas/knative). */
export async function crdSchemasIn(dir: string): Promise<Map<string, JSONSchemaProps>> {
  const out = new Map<string, JSONSchemaProps>();
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  for (const file of files)
    for (const [k, v] of crdSchemas(await readFile(join(dir, file), 'utf8'))) out.set(k, v);
  return out;
}

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false, validateFormats: true });
  addFormats(ajv);
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  return addKubernetesVocabulary(ajv);
}

function describeError(e: ErrorObject): string {
  const path = e.instancePath === '' ? '(root)' : e.instancePath.slice(1).replace(/\//g, '.');
  if (e.keyword === 'additionalProperties')
    return `${path}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  return `${path}: ${e.message ?? e.keyword}`;
}

/** A validator of documents by their kind's schema. */
export interface KindValidator {
  /** The problems of one document ([] when valid). */
  (doc: ManifestDoc): string[];
}

export function kindValidator(schemas: KindSchemas): KindValidator {
  const ajv = newAjv();
  const compiled = new Map<string, ValidateFunction>();
  return (doc) => {
    const r = refOf(doc);
    const key = kindKey(r.apiVersion, r.kind);
    const schema = schemas.get(key);
    if (schema === undefined) return [`${label(doc)}: no schema for ${r.apiVersion} ${r.kind}`];
    let fn = compiled.get(key);
    if (fn === undefined) {
      fn = ajv.compile(closed(schema));
      compiled.set(key, fn);
    }
    if (fn(structuredClone(doc.object))) return [];
    const lines = (fn.errors ?? []).filter((e) => e.keyword !== 'if').map(describeError);
    return [...new Set(lines)].map((l) => `${label(doc)}: ${l}`);
  };
}

/** Every schema problem of the documents. */
export function schemaProblems(docs: readonly ManifestDoc[], validate: KindValidator): string[] {
  return docs.flatMap((d) => validate(d));
}
