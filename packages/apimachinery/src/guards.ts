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
