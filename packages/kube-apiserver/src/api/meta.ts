/**
 * ObjectMeta rules of apimachinery's ValidateObjectMeta: name formats, label and annotation
 * syntax, finalizer names, and what an update may not change.
 */
import type { FieldError } from './errors.js';
import type { ObjectMeta } from './types.js';
import { validateRbacName } from '../auth/rbac/validation.js';
import { RBAC_GROUP } from '../auth/rbac/types.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** Kinds whose names must be DNS labels (63 characters) rather than subdomains (a Service's: DNS-1035). */
export const LABEL_NAMED_KINDS = ['Namespace', 'Service'] as const;

/** The kind of an object for name rules: core Namespace/Service names are labels, RBAC names path segments. */
export interface NamedKind {
  kind: string;
  group: string;
}

/** The name format of a kind: a DNS-1035 label (Service), a DNS-1123 label (Namespace), else a subdomain. */
function nameRule(of: NamedKind): { pattern: RegExp; detail: string; max: number } {
  const asLabel = of.group === '' && (LABEL_NAMED_KINDS as readonly string[]).includes(of.kind);
  if (!asLabel) return { pattern: DNS1123_SUBDOMAIN, detail: SUBDOMAIN_MSG, max: 253 };
  if (of.kind === 'Service') return { pattern: DNS1035_LABEL, detail: DNS1035_MSG, max: 63 };
  return { pattern: DNS1123_LABEL, detail: LABEL_MSG, max: 63 };
}

export function validateName(of: NamedKind, name: string, field = 'metadata.name'): FieldError[] {
  if (of.group === RBAC_GROUP) {
    return validateRbacName(name).map((detail) => ({
      type: 'FieldValueInvalid',
      field,
      value: name,
      detail,
    }));
  }
  const rule = nameRule(of);
  const errors: FieldError[] = [];
  if (name.length > rule.max)
    errors.push({
      type: 'FieldValueInvalid',
      field,
      value: name,
      detail: `must be no more than ${rule.max} characters`,
    });
  if (!rule.pattern.test(name))
    errors.push({ type: 'FieldValueInvalid', field, value: name, detail: rule.detail });
  return errors;
}

/** A qualified name (`prefix/name`) as label keys, annotation keys and finalizers use. */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2)
    return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  const [prefix, name] = parts.length === 2 ? parts : ['', parts[0]];
  if (parts.length === 2 && (!prefix || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) {
    return `prefix part ${SUBDOMAIN_MSG}`;
  }
  if (!name || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') and must be no more than 63 characters";
  }
  return undefined;
}

function validateStringMap(map: unknown, field: string, checkValues: boolean): FieldError[] {
  if (map === undefined) return [];
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(map as Record<string, unknown>)) {
    const problem = qualifiedNameProblem(key);
    if (problem) errors.push({ type: 'FieldValueInvalid', field, value: key, detail: problem });
    if (checkValues && typeof value === 'string' && (value.length > 63 || !LABEL_VALUE.test(value))) {
      errors.push({
        type: 'FieldValueInvalid',
        field: `${field}`,
        value,
        detail:
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      });
    }
  }
  return errors;
}

const MAX_ANNOTATIONS_BYTES = 256 * 1024;

function validateAnnotations(annotations: Record<string, string> | undefined): FieldError[] {
  const errors = validateStringMap(annotations, 'metadata.annotations', false);
  const size = Object.entries(annotations ?? {}).reduce((n, [k, v]) => n + k.length + String(v).length, 0);
  if (size > MAX_ANNOTATIONS_BYTES) {
    errors.push({
      type: 'FieldValueTooLong',
      field: 'metadata.annotations',
      detail: `may not be more than ${MAX_ANNOTATIONS_BYTES} bytes`,
    });
  }
  return errors;
}

function validateFinalizers(finalizers: string[] | undefined): FieldError[] {
  const errors: FieldError[] = [];
  (finalizers ?? []).forEach((f, i) => {
    const problem = qualifiedNameProblem(f);
    if (problem)
      errors.push({
        type: 'FieldValueInvalid',
        field: `metadata.finalizers[${i}]`,
        value: f,
        detail: problem,
      });
  });
  return errors;
}

function validateOwnerReferences(meta: ObjectMeta): FieldError[] {
  const errors: FieldError[] = [];
  let controllers = 0;
  (meta.ownerReferences ?? []).forEach((ref, i) => {
    const field = `metadata.ownerReferences[${i}]`;
    if (!ref.apiVersion)
      errors.push({
        type: 'FieldValueInvalid',
        field: `${field}.apiVersion`,
        value: ref.apiVersion ?? '',
        detail: 'version must not be empty',
      });
    if (!ref.kind)
      errors.push({
        type: 'FieldValueInvalid',
        field: `${field}.kind`,
        value: ref.kind ?? '',
        detail: 'kind must not be empty',
      });
    if (!ref.name)
      errors.push({
        type: 'FieldValueInvalid',
        field: `${field}.name`,
        value: ref.name ?? '',
        detail: 'name must not be empty',
      });
    if (!ref.uid)
      errors.push({
        type: 'FieldValueInvalid',
        field: `${field}.uid`,
        value: ref.uid ?? '',
        detail: 'uid must not be empty',
      });
    if (ref.controller) controllers++;
  });
  if (controllers > 1) {
    errors.push({
      type: 'FieldValueInvalid',
      field: 'metadata.ownerReferences',
      value: meta.ownerReferences,
      detail: 'Only one reference can have Controller set to true',
    });
  }
  return errors;
}

/** Checks the metadata of an object about to be stored (name already resolved from generateName). */
export function validateMeta(of: NamedKind, meta: ObjectMeta): FieldError[] {
  const errors: FieldError[] = [];
  if (!meta.name)
    errors.push({
      type: 'FieldValueRequired',
      field: 'metadata.name',
      detail: 'name or generateName is required',
    });
  else errors.push(...validateName(of, meta.name));
  errors.push(...validateStringMap(meta.labels, 'metadata.labels', true));
  errors.push(...validateAnnotations(meta.annotations));
  errors.push(...validateFinalizers(meta.finalizers));
  errors.push(...validateOwnerReferences(meta));
  return errors;
}

/** What an update may not do to metadata (apimachinery's ValidateObjectMetaUpdate). */
export function validateMetaUpdate(next: ObjectMeta, prev: ObjectMeta): FieldError[] {
  const errors: FieldError[] = [];
  if (prev.deletionTimestamp) {
    const added = (next.finalizers ?? []).filter((f) => !(prev.finalizers ?? []).includes(f));
    if (added.length) {
      errors.push({
        type: 'FieldValueForbidden',
        field: 'metadata.finalizers',
        detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${[
          ...added,
        ]
          .sort()
          .map((f) => JSON.stringify(f))
          .join(', ')}}`,
      });
    }
  }
  return errors;
}
