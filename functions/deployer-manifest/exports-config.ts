/**
 * `exports` of the manifest provider configuration (pure), as upstream
 * (apis/deployer/utils/managedresource/types.go `Exports`, validation.ValidateManifestExport):
 * `exports.exports[] {key, jsonPath, fromResource {apiVersion, kind, name, namespace},
 * fromObjectRef {apiVersion, kind, jsonPath}}`. `key` must be a dotted field path (upstream's
 * jsonpath.Construct accepts only field nodes); an export without `fromResource` is skipped as
 * upstream does. `targetName` (exports read from another Target) is refused by name.
 */
import * as z from '../../shared/config/zod.js';
import { parsePath } from './jsonpath.js';
import type { TypedObjectReference } from './readiness-config.js';
import { isRecord } from '@landscape/apimachinery';

export interface FromObjectReference {
  apiVersion: string;
  kind: string;
  jsonPath: string;
}

export interface ManifestExport {
  key: string;
  jsonPath: string;
  fromResource?: TypedObjectReference;
  fromObjectRef?: FromObjectReference;
}

const nonEmpty = z.string({ error: 'must not be empty' }).min(1, { error: 'must not be empty' });

const exportSchema = z.object({
  key: nonEmpty,
  jsonPath: nonEmpty,
  fromResource: z
    .object({ apiVersion: nonEmpty, kind: nonEmpty, name: nonEmpty, namespace: z.string().optional() })
    .optional(),
  fromObjectRef: z.object({ apiVersion: nonEmpty, kind: nonEmpty, jsonPath: nonEmpty }).optional(),
  targetName: z.string().optional(),
});

export const exportsSchema = z.object({ exports: z.array(exportSchema).optional() }).optional();

/** The field names of a key (`a.b` → [a, b]); undefined when it is not a plain field path. */
export function keyFields(key: string): string[] | undefined {
  try {
    const path = parsePath(key);
    if (path.length === 0 || path.some((s) => s.t !== 'field')) return undefined;
    return path.map((s) => (s as { name: string }).name);
  } catch {
    return undefined;
  }
}

function jsonPathProblem(path: string): string | undefined {
  try {
    parsePath(path);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function exportProblems(e: Record<string, unknown>, i: number): string[] {
  const at = `exports.exports[${i}]`;
  const out: string[] = [];
  if (e.targetName !== undefined)
    out.push(`${at}.targetName: exports from other targets are not supported by this deployer`);
  if (typeof e.key === 'string' && e.key !== '' && !keyFields(e.key))
    out.push(`${at}.key: must be a field path (a.b.c)`);
  for (const [where, path] of [
    ['jsonPath', e.jsonPath],
    ['fromObjectRef.jsonPath', isRecord(e.fromObjectRef) ? e.fromObjectRef.jsonPath : undefined],
  ] as const) {
    const p = typeof path === 'string' && path !== '' ? jsonPathProblem(path) : undefined;
    if (p) out.push(`${at}.${where}: ${p}`);
  }
  return out;
}

/** Problems the schema does not see (target names, keys, JSON paths). */
export function exportsProblems(config: Record<string, unknown>): string[] {
  const list = isRecord(config.exports) ? config.exports.exports : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((e, i) => (isRecord(e) ? exportProblems(e, i) : []));
}

/** The parsed exports (schema-checked input). */
export function exportsOf(raw: z.output<typeof exportsSchema>): ManifestExport[] {
  return (raw?.exports ?? []).map((e) => ({
    key: e.key,
    jsonPath: e.jsonPath,
    ...(e.fromResource ? { fromResource: e.fromResource } : {}),
    ...(e.fromObjectRef ? { fromObjectRef: e.fromObjectRef } : {}),
  }));
}
