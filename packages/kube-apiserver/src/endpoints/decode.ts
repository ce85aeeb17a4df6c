/**
 * Turns a request body into an object of the requested kind, the way the API server's decoder
 * and validation do: kind and apiVersion checks, unknown fields (Strict → 400, Warn → warning,
 * Ignore), pruning, defaulting, type and required-field checks.
 */
import { badRequest, invalid, type FieldError } from '../api/errors.js';
import { goDecodeError, malformedBody, strictDecodingError } from './goerrors.js';
import { prune } from '../registry/prune.js';
import { apiVersionOf } from '../registry/kinds.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { validateAgainstSchema } from '../registry/validation.js';

export const FIELD_VALIDATION_MODES = ['Strict', 'Warn', 'Ignore'] as const;
export type FieldValidation = (typeof FIELD_VALIDATION_MODES)[number];

export function isFieldValidation(v: unknown): v is FieldValidation {
  return typeof v === 'string' && (FIELD_VALIDATION_MODES as readonly string[]).includes(v);
}

export interface Decoded {
  object: KubeObject;
  warnings: string[];
}

export function parseJson(text: string, def?: ResourceDef): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw malformedBody(text, e as Error, def);
  }
}

function checkKind(def: ResourceDef, body: Record<string, unknown>): void {
  const expected = apiVersionOf(def);
  if (body.kind === undefined || body.kind === '') {
    if (!def.builtin) throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body).slice(0, 200)}'`);
    body.kind = def.kind;
  }
  if (body.apiVersion === undefined || body.apiVersion === '') {
    if (!def.builtin)
      throw badRequest(`Object 'apiVersion' is missing in '${JSON.stringify(body).slice(0, 200)}'`);
    body.apiVersion = expected;
  }
  if (body.apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${expected})`,
    );
  }
  if (body.kind !== def.kind) {
    throw badRequest(
      `the kind in the data (${String(body.kind)}) does not match the expected kind (${def.kind})`,
    );
  }
}

const isString = (v: unknown): boolean => typeof v === 'string';
const isStringMap = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(isString);
const isStringList = (v: unknown): boolean => Array.isArray(v) && v.every(isString);

/** The Go types of ObjectMeta's fields that requests most often get wrong. */
const META_TYPES: [string, (v: unknown) => boolean, string][] = [
  ...(['name', 'generateName', 'namespace', 'resourceVersion', 'uid'] as const).map(
    (f): [string, (v: unknown) => boolean, string] => [f, isString, 'string'],
  ),
  ['labels', isStringMap, 'map[string]string'],
  ['annotations', isStringMap, 'map[string]string'],
  ['finalizers', isStringList, '[]string'],
];

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  return v === null ? 'null' : typeof v;
}

function checkMetadataTypes(meta: unknown): FieldError[] {
  if (meta === undefined) return [];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    return [
      {
        type: 'FieldValueTypeInvalid',
        field: 'metadata',
        value: jsonType(meta),
        detail: 'metadata in body must be of type object',
      },
    ];
  }
  const m = meta as Record<string, unknown>;
  return META_TYPES.filter(([f, ok]) => m[f] !== undefined && !ok(m[f])).map(([f, , type]) => ({
    type: 'FieldValueTypeInvalid',
    field: `metadata.${f}`,
    value: jsonType(m[f]),
    detail: `metadata.${f} in body must be of type ${type}: "${jsonType(m[f])}"`,
  }));
}

export interface DecodeOptions {
  fieldValidation: FieldValidation;
  /** The object's name for messages (from the URL when the body has none). */
  name?: string;
}

/** Built-in kinds fail wrongly typed fields while decoding (400); CRDs in validation (422). */
function failOn(def: ResourceDef, name: string, errors: FieldError[]): void {
  if (!errors.length) return;
  const typeError = errors.find((e) => e.type === 'FieldValueTypeInvalid');
  if (def.builtin && typeError) throw goDecodeError(def, typeError);
  throw invalid(def.kind, def.group, name, errors);
}

function nameIn(body: Record<string, unknown>): string {
  const name = (body.metadata as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : '';
}

/** Decodes and validates a whole object of kind `def`. The input is not mutated. */
export function decodeObject(def: ResourceDef, body: unknown, opts: DecodeOptions): Decoded {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${def.kind}): json: cannot unmarshal ${jsonType(body)} into Go value of type struct`,
    );
  }
  const copy = { ...(body as Record<string, unknown>) };
  checkKind(def, copy);
  const name = opts.name ?? nameIn(copy);
  failOn(def, name, checkMetadataTypes(copy.metadata));
  const { value, unknown } = prune(copy, def.schema);
  if (unknown.length && opts.fieldValidation === 'Strict') {
    throw strictDecodingError(def, unknown);
  }
  const object = value as KubeObject;
  object.metadata ??= {};
  failOn(def, name, validateAgainstSchema(def, object));
  const warnings = opts.fieldValidation === 'Warn' ? unknown.map((u) => `unknown field "${u}"`) : [];
  return { object, warnings };
}
