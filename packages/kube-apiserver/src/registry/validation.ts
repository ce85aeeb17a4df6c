/**
 * Schema validation of incoming objects: prune, default, then check types and required fields
 * with ajv against the kind's OpenAPI v3 schema. Errors come back in Kubernetes' field-error
 * form; the caller decides between 422 Invalid (CRDs) and 400 BadRequest (built-in decoding).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldError } from '../api/errors.js';
import type { JSONSchemaProps, ResourceDef } from '../api/types.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const EXTENSION_KEYWORDS = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-validations',
  'x-kubernetes-group-version-kind',
  'example',
  'externalDocs',
] as const;

/**
 * What Kubernetes schemas need beyond JSON Schema: the int-or-string keyword and the OpenAPI
 * formats the API server checks (int32, int64, byte, MicroTime, ...). Shared with the tests
 * that compile CRD and built-in schemas on their own ajv.
 */
export function addKubernetesVocabulary(ajv: Ajv): Ajv {
  ajv.addKeyword({
    keyword: 'x-kubernetes-int-or-string',
    schemaType: 'boolean',
    validate: (enabled: boolean, data: unknown) =>
      !enabled || typeof data === 'string' || Number.isInteger(data),
    errors: false,
  });
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -2147483648 && n <= 2147483647,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('byte', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  ajv.addFormat('int-or-string', () => true);
  // metav1.MicroTime parses with the layout 2006-01-02T15:04:05.000000Z07:00: exactly six fraction digits.
  ajv.addFormat('micro-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/);
  ajv.addFormat('quantity', () => true);
  return ajv;
}

function newAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    useDefaults: true,
    logger: false,
    validateFormats: true,
  });
  addFormats(ajv);
  for (const keyword of EXTENSION_KEYWORDS) ajv.addKeyword({ keyword });
  addKubernetesVocabulary(ajv);
  return ajv;
}

let shared: Ajv | undefined;
const compiled = new WeakMap<JSONSchemaProps, ValidateFunction>();

/** The schema validated by ajv: the kind's schema with metadata left to the server's own checks. */
function validatorFor(schema: JSONSchemaProps): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    shared ??= newAjv();
    const props = { ...(schema.properties ?? {}), metadata: { type: 'object' as const } };
    fn = shared.compile({ ...schema, properties: props });
    compiled.set(schema, fn);
  }
  return fn;
}

function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) parts.push(extra);
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function valueAt(root: unknown, instancePath: string): unknown {
  let cur: unknown = root;
  for (const part of instancePath.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}

type ErrorMapper = (e: ErrorObject, field: string, value: unknown) => FieldError | undefined;

const SKIPPED: ErrorMapper = () => undefined;

/** ajv keywords → Kubernetes field errors (others become FieldValueInvalid). */
const MAPPERS: Record<string, ErrorMapper> = {
  required: (e) => ({
    type: 'FieldValueRequired',
    field: fieldPath(e.instancePath, (e.params as { missingProperty: string }).missingProperty),
  }),
  type: (e, field, value) => ({
    type: 'FieldValueTypeInvalid',
    field,
    value: typeName(value),
    detail: `${field} in body must be of type ${(e.params as { type: string }).type}: "${typeName(value)}"`,
  }),
  enum: (e, field, value) => ({
    type: 'FieldValueNotSupported',
    field,
    value,
    detail: `supported values: ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`,
  }),
  format: (e, field, value) =>
    (e.params as { format: string }).format === 'micro-time'
      ? {
          type: 'FieldValueTypeInvalid',
          field,
          value: JSON.stringify(value),
          detail: `${field} in body must be of type MicroTime: "string"`,
        }
      : {
          type: 'FieldValueInvalid',
          field,
          value,
          detail: `${field} in body must be of type ${(e.params as { format: string }).format}: ${JSON.stringify(value)}`,
        },
  if: SKIPPED,
  anyOf: SKIPPED,
  oneOf: SKIPPED,
};

function toFieldError(e: ErrorObject, root: unknown): FieldError | undefined {
  const value = valueAt(root, e.instancePath);
  const field = fieldPath(e.instancePath);
  const mapper = MAPPERS[e.keyword];
  if (mapper) return mapper(e, field, value);
  return { type: 'FieldValueInvalid', field, value, detail: `${field} in body ${e.message ?? 'is invalid'}` };
}

/**
 * Validates (and defaults, in place) an already pruned object. Returns the field errors, in
 * document order, without duplicates.
 */
export function validateAgainstSchema(def: ResourceDef, object: unknown): FieldError[] {
  const fn = validatorFor(def.schema);
  if (fn(object)) return [];
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of fn.errors ?? []) {
    const fe = toFieldError(e, object);
    if (!fe) continue;
    const key = `${fe.type}:${fe.field}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(fe);
  }
  return out;
}
