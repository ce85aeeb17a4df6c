/**
 * The guard that keeps secrets out of Redis (DESIGN: secrets are never cached). Pure.
 *
 * A value is refused when, anywhere inside it, a non-empty field has a key that names a secret
 * (`isSecretKey`: kubeconfig, token, password, ...; references such as `secretRef` are fine),
 * a string looks like a secret (`looksSecret`: kubeconfig, PEM private key, JWT), or an object
 * is a Kubernetes Secret (`kind: Secret`) with data.
 */
import { isSecretKey, looksSecret } from '../log/index.js';
import { SecretValueError } from './errors.js';

const MAX_DEPTH = 32;

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

function childPath(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`;
}

function findInObject(value: Record<string, unknown>, path: string, depth: number): string | undefined {
  const secretObject = value['kind'] === 'Secret';
  for (const [k, v] of Object.entries(value)) {
    const p = childPath(path, k);
    if (isEmpty(v)) continue;
    if (isSecretKey(k) || (secretObject && (k === 'data' || k === 'stringData'))) return p;
    const found = findSecret(v, p, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function findInArray(value: readonly unknown[], path: string, depth: number): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const found = findSecret(value[i], childPath(path, i), depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The path of the first secret-looking part of `value`, or undefined when it may be cached. */
export function findSecret(value: unknown, path = '$', depth = 0): string | undefined {
  if (typeof value === 'string') return looksSecret(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= MAX_DEPTH) return path;
  if (Array.isArray(value)) return findInArray(value, path, depth);
  return findInObject(value as Record<string, unknown>, path, depth);
}

/** Throws {@link SecretValueError} (naming the path, never the value) when `value` looks secret. */
export function assertCacheable(value: unknown): void {
  const path = findSecret(value);
  if (path !== undefined) throw new SecretValueError(path);
}
