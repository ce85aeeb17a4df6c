/** Small pure helpers over JSON objects and Kubernetes type information. */
import { isRecord, type JsonObject } from '@landscape/apimachinery';

/** The API group of an apiVersion (`''` for the core group `v1`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The version part of an apiVersion. */
export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_KIND = 'CustomResourceDefinition';

export function isCrd(apiVersion: string, kind: string): boolean {
  return groupOf(apiVersion) === CRD_GROUP && kind === CRD_KIND;
}

function arraysEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
}

function recordsEqual(a: JsonObject, b: JsonObject): boolean {
  const keys = Object.keys(a).filter((k) => a[k] !== undefined);
  const other = Object.keys(b).filter((k) => b[k] !== undefined);
  return keys.length === other.length && keys.every((k) => deepEqual(a[k], b[k]));
}

/** Equality of JSON data (key order and undefined members do not matter, prototypes neither). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && arraysEqual(a, b);
  return isRecord(a) && isRecord(b) && recordsEqual(a, b);
}

/** A deep copy of JSON data. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
