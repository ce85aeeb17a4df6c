/**
 * Patch application: RFC 6902 JSON patch, RFC 7386 merge patch, and strategic merge patch
 * (patch strategies and merge keys from the kind's OpenAPI schema, `$patch`, `$retainKeys`,
 * `$setElementOrder`, `$deleteFromPrimitiveList`).
 */
import fastJsonPatch from 'fast-json-patch';
import { badRequest, StatusError, unsupportedMediaType } from './errors.js';
import { parseJson } from './decode.js';
import type { JSONSchemaProps } from './types.js';

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

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7386. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

export function jsonPatch(target: Json, patchText: string): Json {
  const ops = parseJson(patchText);
  if (!Array.isArray(ops)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  try {
    return applyPatch(structuredClone(target), ops as fastJsonPatch.Operation[], true, false).newDocument;
  } catch (e) {
    const message = (e as Error).message.split('\n')[0];
    throw new StatusError(422, 'Invalid', `the server rejected our request due to an error in our request: ${message}`);
  }
}

function propSchema(schema: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  if (!schema) return undefined;
  return schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
}

function strategyOf(schema: JSONSchemaProps | undefined): { merge: boolean; retainKeys: boolean; key?: string } {
  const strategy = schema?.['x-kubernetes-patch-strategy'] ?? '';
  return { merge: strategy.split(',').includes('merge'), retainKeys: strategy.includes('retainKeys'), key: schema?.['x-kubernetes-patch-merge-key'] };
}

function mergeList(target: unknown[], patch: unknown[], schema: JSONSchemaProps | undefined): unknown[] {
  const { merge, key } = strategyOf(schema);
  if (!merge) return patch.filter((p) => !(isObject(p) && p.$patch));
  if (!key) return [...target, ...patch.filter((p) => !target.some((t) => JSON.stringify(t) === JSON.stringify(p)))];
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p.$patch === 'replace'));
  }
  let out = [...target];
  for (const item of patch) {
    if (!isObject(item)) continue;
    const idx = out.findIndex((t) => isObject(t) && t[key] === item[key]);
    if (item.$patch === 'delete') {
      if (idx >= 0) out = out.filter((_, i) => i !== idx);
      continue;
    }
    if (idx >= 0) out[idx] = strategicMerge(out[idx], item, schema?.items);
    else out.push(strategicMerge({}, item, schema?.items));
  }
  return out;
}

function orderBy(list: unknown[], order: unknown[], key: string | undefined): unknown[] {
  const id = (v: unknown): string => JSON.stringify(key && isObject(v) ? v[key] : v);
  const ranks = new Map(order.map((o, i) => [id(o), i]));
  const known = list.filter((v) => ranks.has(id(v))).sort((a, b) => ranks.get(id(a))! - ranks.get(id(b))!);
  return [...known, ...list.filter((v) => !ranks.has(id(v)))];
}

function applyDirectives(out: JsonObject, patch: JsonObject, schema: JSONSchemaProps | undefined): void {
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$setElementOrder/')) {
      const field = k.slice('$setElementOrder/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) {
        out[field] = orderBy(out[field] as unknown[], v, strategyOf(propSchema(schema, field)).key);
      }
    } else if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = (out[field] as unknown[]).filter((x) => !v.includes(x));
    }
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys as string[]);
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
}

/** Strategic merge patch of `patch` onto `target`, following `schema`'s patch metadata. */
export function strategicMerge(target: Json, patch: Json, schema: JSONSchemaProps | undefined): Json {
  if (!isObject(patch)) return patch;
  if (patch.$patch === 'delete') return undefined;
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return rest;
  }
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    const sub = propSchema(schema, key);
    if (value === null) delete out[key];
    else if (Array.isArray(value)) out[key] = mergeList(Array.isArray(out[key]) ? (out[key] as unknown[]) : [], value, sub);
    else if (isObject(value)) {
      const merged = strategicMerge(out[key], value, sub);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    } else out[key] = value;
  }
  applyDirectives(out, patch, schema);
  return out;
}
