/**
 * The validation of core/v1 ConfigMap and Secret (k8s.io/kubernetes
 * pkg/registry/core/configmap/strategy.go, pkg/registry/core/secret/strategy.go;
 * pkg/apis/core/validation/validation.go ValidateConfigMap, ValidateConfigMapUpdate,
 * ValidateSecret, ValidateSecretUpdate): data keys are config keys, a ConfigMap key is in data or
 * binaryData but not both, a Secret of type kubernetes.io/tls carries tls.crt and tls.key (and
 * kubernetes.io/dockerconfigjson its .dockerconfigjson); a Secret's `type` never changes; an object
 * marked `immutable: true` keeps its data and stays immutable. The Secret's write defaults
 * (stringData, type Opaque) are ./core-strategy.ts's SECRET_STRATEGY, which uses these checks.
 */
import { invalid, type FieldError } from '../api/errors.js';
import { deepEqual } from '../api/objects.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { forbiddenField, immutable, invalidField, record, required } from './field-rules.js';
import type { KindStrategy } from './rest-strategy.js';

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
const IMMUTABLE_SET = 'field is immutable when `immutable` is set';

/** IsConfigMapKey for every key of a map. */
function configKeys(map: unknown, field: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of Object.keys(record(map) ?? {})) {
    const at = `${field}[${key}]`;
    if (key.length > 253) errors.push(invalidField(at, key, 'must be no more than 253 characters'));
    if (!CONFIG_KEY.test(key)) errors.push(invalidField(at, key, CONFIG_KEY_MSG));
    if (key === '.' || key === '..') errors.push(invalidField(at, key, `must not be '${key}'`));
    else if (key.startsWith('..')) errors.push(invalidField(at, key, "must not start with '..'"));
  }
  return errors;
}

/** ValidateConfigMap's data rules. */
export function configMapErrors(obj: KubeObject): FieldError[] {
  const errors = [...configKeys(obj.data, 'data'), ...configKeys(obj.binaryData, 'binaryData')];
  const data = record(obj.data) ?? {};
  for (const key of Object.keys(record(obj.binaryData) ?? {}))
    if (key in data) errors.push(invalidField(`data[${key}]`, key, 'duplicate of key present in binaryData'));
  return errors;
}

/** The data keys a Secret type requires (ValidateSecret). */
const REQUIRED_KEYS: Record<string, readonly string[]> = {
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/dockercfg': ['.dockercfg'],
};

/** ValidateSecret's data rules. */
export function secretErrors(obj: KubeObject): FieldError[] {
  const errors = configKeys(obj.data, 'data');
  const data = record(obj.data) ?? {};
  for (const key of REQUIRED_KEYS[obj.type as string] ?? [])
    if (!(key in data)) errors.push(required(`data[${key}]`));
  return errors;
}

/** The `immutable: true` lock of ValidateConfigMapUpdate / ValidateSecretUpdate. */
function immutableLock(next: KubeObject, prev: KubeObject, fields: readonly string[]): FieldError[] {
  if (prev.immutable !== true) return [];
  const errors: FieldError[] = [];
  if (next.immutable !== true) errors.push(forbiddenField('immutable', IMMUTABLE_SET));
  for (const field of fields)
    if (!deepEqual(next[field], prev[field])) errors.push(forbiddenField(field, IMMUTABLE_SET));
  return errors;
}

/** ValidateSecretUpdate: type immutable, the immutable lock, then ValidateSecret. */
export function secretUpdateErrors(next: KubeObject, prev: KubeObject): FieldError[] {
  return [
    ...immutable('type', next.type, prev.type),
    ...immutableLock(next, prev, ['data']),
    ...secretErrors(next),
  ];
}

/** ValidateConfigMapUpdate: the immutable lock, then ValidateConfigMap. */
export function configMapUpdateErrors(next: KubeObject, prev: KubeObject): FieldError[] {
  return [...immutableLock(next, prev, ['data', 'binaryData']), ...configMapErrors(next)];
}

export function check(def: ResourceDef, obj: KubeObject, errors: FieldError[]): void {
  if (errors.length) throw invalid(def.kind, def.group, obj.metadata.name ?? '', errors);
}

/** core/v1 ConfigMap. */
export const CONFIGMAP_STRATEGY: KindStrategy = {
  validateCreate: (def, obj) => check(def, obj, configMapErrors(obj)),
  validateUpdate: (def, prev, next) => check(def, next, configMapUpdateErrors(next, prev)),
};
