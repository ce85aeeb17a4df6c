/**
 * @landscape/apimachinery: the one home of Kubernetes and Go semantics, pure TypeScript, no I/O
 * (the role k8s.io/apimachinery plays for Go): meta/v1 types and times, label selectors, JSONPath, Go durations,
 * resource quantities, object guards, Go quoting, ...
 */
export * from './duration.js';
export * from './guards.js';
export * from './jsonpath.js';
export * from './labels.js';
export * from './meta.js';
export * from './metatime.js';
export * from './quantity.js';
export * from './quote.js';
export * from './validation.js';
