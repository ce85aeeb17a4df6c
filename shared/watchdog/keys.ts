/**
 * Case-insensitive keys, as upstream reads its config files (sigs.k8s.io/yaml → encoding/json:
 * struct fields match regardless of case, the last spelling wins; map keys stay exact). The
 * shapes name the struct fields of the prober and weeder configs; `canonicalKeys` rewrites a
 * parsed document to the canonical spelling and reports a key given twice in different case.
 */
import { isRecord } from '@landscape/apimachinery';

/**
 * Which keys are struct fields (folded), where maps and lists are, and which leaves are Go strings
 * (`'string'`: a YAML number or boolean there becomes its text, as sigs.k8s.io/yaml does); `null` is
 * any other leaf.
 */
export type Shape =
  { fields: Readonly<Record<string, Shape>> } | { items: Shape } | { values: Shape } | 'string' | null;

const S = 'string';
const SCALE_SHAPE: Shape = { fields: { level: null, initialDelay: null, timeout: null } };
const FLAG_SHAPE = { kubeApiQps: null, kubeApiBurst: null, concurrentReconciles: null };
export const PROBER_SHAPE: Shape = {
  fields: {
    kubeConfigSecretName: S,
    probeInterval: null,
    initialDelay: null,
    probeTimeout: null,
    backoffJitterFactor: null,
    kcmNodeMonitorGraceDuration: null,
    nodeLeaseFailureFraction: null,
    dependentResourceInfos: {
      items: {
        fields: {
          ref: { fields: { apiVersion: S, kind: S, name: S } },
          optional: null,
          scaleUp: SCALE_SHAPE,
          scaleDown: SCALE_SHAPE,
        },
      },
    },
    ...FLAG_SHAPE,
  },
};
const SELECTOR_SHAPE: Shape = {
  fields: {
    matchLabels: { values: S },
    matchExpressions: { items: { fields: { key: S, operator: S, values: { items: S } } } },
  },
};
export const WEEDER_SHAPE: Shape = {
  fields: {
    watchDuration: null,
    servicesAndDependantSelectors: { values: { fields: { podSelectors: { items: SELECTOR_SHAPE } } } },
    ...FLAG_SHAPE,
  },
};

/** encoding/json's key folding for ASCII field names: `K` (U+212A) lowercases to `k`; `ſ` folds to `s`. */
export function foldKey(key: string): string {
  return key.toLowerCase().replace(/\u017f/g, 's');
}

export const at = (path: string, key: string | number): string => (path === '' ? `${key}` : `${path}.${key}`);

function setKey(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Renames folded struct keys to their canonical spelling and drops `null` values; never mutates. */
export function canonicalKeys(value: unknown, shape: Shape, path: string, problems: string[]): unknown {
  if (shape === null) return value;
  if (shape === 'string') {
    return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
  }
  if ('items' in shape) {
    return Array.isArray(value)
      ? value.map((v, i) => canonicalKeys(v, shape.items, at(path, i), problems))
      : value;
  }
  if (!isRecord(value)) return value;
  return 'values' in shape
    ? canonicalMap(value, shape.values, path, problems)
    : canonicalStruct(value, shape.fields, path, problems);
}

/** A Go map: keys exact. */
function canonicalMap(
  value: Record<string, unknown>,
  shape: Shape,
  path: string,
  problems: string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    setKey(out, k, canonicalKeys(v, shape, at(path, k), problems));
  }
  return out;
}

/** A Go struct: keys folded; two spellings of one field are a problem. */
function canonicalStruct(
  value: Record<string, unknown>,
  fields: Readonly<Record<string, Shape>>,
  path: string,
  problems: string[],
): Record<string, unknown> {
  const canonical = new Map(Object.keys(fields).map((k) => [foldKey(k), k]));
  const seen = new Map<string, string>();
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null) continue;
    const name = canonical.get(foldKey(key)) ?? key;
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      problems.push(`${at(path, key)}: same field as ${at(path, earlier)} (keys match case-insensitively)`);
    }
    seen.set(name, key);
    const sub = Object.hasOwn(fields, name) ? fields[name] : null;
    setKey(out, name, canonicalKeys(v, sub, at(path, name), problems));
  }
  return out;
}
