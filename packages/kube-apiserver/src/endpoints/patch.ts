/**
 * Patch application: RFC 6902 JSON patch, RFC 7386 merge patch, and strategic merge patch
 * (patch strategies and merge keys from the kind's OpenAPI schema, `$patch`, `$retainKeys`,
 * `$setElementOrder`, `$deleteFromPrimitiveList`).
 */
import fastJsonPatch from 'fast-json-patch';
import { isRecord } from '@landscape/apimachinery';
import { badRequest, StatusError, unsupportedMediaType } from '../api/errors.js';
import { parseJson } from './decode.js';
import type { JSONSchemaProps } from '../api/types.js';

const { applyPatch } = fastJsonPatch;

export const PATCH_TYPES = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
} as const;
export type PatchType = (typeof PATCH_TYPES)[keyof typeof PATCH_TYPES];

export function patchTypeOf(contentType: string | undefined): PatchType {
  const base = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const type = (PATCH_TYPES as Record<string, PatchType>)[base];
  if (!type) throw unsupportedMediaType(base || '(none)');
  return type;
}

type Json = unknown;
type JsonObject = Record<string, unknown>;

/** RFC 7386. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isRecord(patch)) return patch;
  const out: JsonObject = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

export function jsonPatch(target: Json, patchText: string): Json {
  const ops = parseJson(patchText);
  if (!Array.isArray(ops))
    throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  try {
    return applyPatch(structuredClone(target), ops as fastJsonPatch.Operation[], true, false).newDocument;
  } catch {
    throw new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request');
  }
}

function propSchema(schema: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  if (!schema) return undefined;
  return (
    schema.properties?.[key] ??
    (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined)
  );
}

function strategyOf(schema: JSONSchemaProps | undefined): {
  merge: boolean;
  retainKeys: boolean;
  key?: string;
} {
  const strategy = schema?.['x-kubernetes-patch-strategy'] ?? '';
  return {
    merge: strategy.split(',').includes('merge'),
    retainKeys: strategy.includes('retainKeys'),
    key: schema?.['x-kubernetes-patch-merge-key'],
  };
}

function mergeByKey(
  target: unknown[],
  patch: unknown[],
  key: string,
  itemSchema: JSONSchemaProps | undefined,
): unknown[] {
  let out = [...target];
  for (const item of patch.filter(isRecord)) {
    const idx = out.findIndex((t) => isRecord(t) && t[key] === item[key]);
    if (item.$patch === 'delete') out = out.filter((_, i) => i !== idx);
    else if (idx >= 0) out[idx] = strategicMerge(out[idx], item, itemSchema);
    else out.push(strategicMerge({}, item, itemSchema));
  }
  return out;
}

function mergeList(target: unknown[], patch: unknown[], schema: JSONSchemaProps | undefined): unknown[] {
  const { merge, key } = strategyOf(schema);
  const replace = patch.some((p) => isRecord(p) && p.$patch === 'replace');
  if (!merge || replace) return patch.filter((p) => !(isRecord(p) && p.$patch));
  if (!key)
    return [...target, ...patch.filter((p) => !target.some((t) => JSON.stringify(t) === JSON.stringify(p)))];
  return mergeByKey(target, patch, key, schema?.items);
}

function orderBy(list: unknown[], order: unknown[], key: string | undefined): unknown[] {
  const id = (v: unknown): string => JSON.stringify(key && isRecord(v) ? v[key] : v);
  const ranks = new Map(order.map((o, i) => [id(o), i]));
  const known = list.filter((v) => ranks.has(id(v))).sort((a, b) => ranks.get(id(a))! - ranks.get(id(b))!);
  return [...known, ...list.filter((v) => !ranks.has(id(v)))];
}

const LIST_DIRECTIVES: Record<
  string,
  (list: unknown[], arg: unknown[], schema: JSONSchemaProps | undefined) => unknown[]
> = {
  '$setElementOrder/': (list, order, schema) => orderBy(list, order, strategyOf(schema).key),
  '$deleteFromPrimitiveList/': (list, remove) => list.filter((x) => !remove.includes(x)),
};

function applyDirectives(out: JsonObject, patch: JsonObject, schema: JSONSchemaProps | undefined): void {
  for (const [k, v] of Object.entries(patch)) {
    const prefix = Object.keys(LIST_DIRECTIVES).find((p) => k.startsWith(p));
    if (!prefix) continue;
    const field = k.slice(prefix.length);
    const list = out[field];
    if (Array.isArray(list) && Array.isArray(v))
      out[field] = LIST_DIRECTIVES[prefix](list, v, propSchema(schema, field));
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys as string[]);
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
}

/** Strategic merge patch of `patch` onto `target`, following `schema`'s patch metadata. */
export function strategicMerge(target: Json, patch: Json, schema: JSONSchemaProps | undefined): Json {
  if (!isRecord(patch)) return patch;
  if (patch.$patch === 'delete') return undefined;
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return rest;
  }
  const out: JsonObject = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    const merged = mergeField(out[key], value, propSchema(schema, key));
    if (merged === undefined) delete out[key];
    else out[key] = merged;
  }
  applyDirectives(out, patch, schema);
  return out;
}

function mergeField(current: Json, value: Json, schema: JSONSchemaProps | undefined): Json {
  if (value === null) return undefined;
  if (Array.isArray(value)) return mergeList(Array.isArray(current) ? current : [], value, schema);
  if (isRecord(value)) return strategicMerge(current, value, schema);
  return value;
}
