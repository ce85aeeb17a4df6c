/**
 * Object guards for decoded JSON/YAML: what Go gets from a type assertion to
 * `map[string]interface{}` (k8s.io/apimachinery/pkg/runtime/converter.go,
 * unstructured.NestedMap): a plain object, not null, not an array.
 */

/** A decoded JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a plain object (not null, not an array). */
export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value when it is a plain object, else `{}` (a missing map reads as empty, as in Go). */
export function asRecord(value: unknown): JsonObject {
  return isRecord(value) ? value : {};
}

/** A guard for a closed set of strings (Go's `sets.New(...).Has`): true for a member of `values`. */
export function isOneOf<const T extends readonly string[]>(
  values: T,
): (value: unknown) => value is T[number] {
  return (value: unknown): value is T[number] => typeof value === 'string' && values.includes(value);
}
