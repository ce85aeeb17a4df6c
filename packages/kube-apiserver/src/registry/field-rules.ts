/**
 * The field errors of kube-apiserver's validation as small constructors, worded as
 * k8s.io/apimachinery pkg/util/validation/field/errors.go (Required, Invalid, NotSupported,
 * Forbidden, Duplicate) and the common checks of k8s.io/kubernetes pkg/apis/core/validation
 * (ValidateNonnegativeField, ValidateImmutableField) and k8s.io/apimachinery
 * pkg/util/validation/validation.go (IsDNS1123Label, IsValidPortNum, IsValidPortName).
 * Pure; the per-kind strategies (./apps-strategy.ts, ./pod-strategy.ts, …) use them.
 */
import type { FieldError } from '../api/errors.js';
import { deepEqual } from '../api/objects.js';

export const required = (field: string, detail?: string): FieldError => ({
  type: 'FieldValueRequired',
  field,
  ...(detail ? { detail } : {}),
});

export const invalidField = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'FieldValueInvalid',
  field,
  value,
  detail,
});

export const forbiddenField = (field: string, detail: string): FieldError => ({
  type: 'FieldValueForbidden',
  field,
  detail,
});

export const duplicate = (field: string, value: unknown): FieldError => ({
  type: 'FieldValueDuplicate',
  field,
  value,
});

/** NotSupported: `Unsupported value: "x": supported values: "A", "B"`. */
export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  return {
    type: 'FieldValueNotSupported',
    field,
    value,
    detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  };
}

/** ValidateNonnegativeField (absent values pass). */
export function nonNegative(field: string, value: unknown): FieldError[] {
  return typeof value === 'number' && value < 0
    ? [invalidField(field, value, 'must be greater than or equal to 0')]
    : [];
}

/** ValidateImmutableField: `<field>: Invalid value: <new>: field is immutable`. */
export function immutable(field: string, next: unknown, prev: unknown): FieldError[] {
  return deepEqual(next, prev) ? [] : [invalidField(field, next, 'field is immutable')];
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/** IsDNS1123Label as a list of field errors (length, then format). */
export function dns1123Label(field: string, value: string): FieldError[] {
  const errors: FieldError[] = [];
  if (value.length > 63) errors.push(invalidField(field, value, 'must be no more than 63 characters'));
  if (!DNS1123_LABEL.test(value)) errors.push(invalidField(field, value, DNS1123_LABEL_MSG));
  return errors;
}

/** IsValidPortNum: 1..65535. */
export function portNumber(field: string, value: unknown): FieldError[] {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535
    ? []
    : [invalidField(field, value, 'must be between 1 and 65535, inclusive')];
}

/** IsValidPortName (an IANA_SVC_NAME): every problem as its own error, as upstream lists them. */
export function portName(field: string, name: string): FieldError[] {
  const problems: string[] = [];
  if (name.length > 15) problems.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name))
    problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) problems.push('must contain at least one letter (a-z)');
  if (name.includes('--')) problems.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) problems.push('must not begin or end with a hyphen');
  return problems.map((p) => invalidField(field, name, p));
}

/** A JSON object field, or undefined when absent or not an object. */
export function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A JSON array of objects, [] when absent. */
export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map((v) => record(v) ?? {}) : [];
}
