/**
 * What the REST layer needs around server-side apply and managedFields: the field manager of a
 * write (the `fieldManager` query parameter, else derived from the User-Agent), the options an
 * apply patch requires, and the apply body (YAML or JSON) — all validated and worded as the
 * Kubernetes 1.32 API server does.
 */
import { parse } from 'yaml';
import { badRequest, invalid, type FieldError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { isRecord } from '@landscape/apimachinery';

/** validation.FieldManagerMaxLength. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;

/**
 * prefixFromUserAgent: the User-Agent up to its first `/`, without unprintable characters,
 * cut to 128 bytes (`kubectl/v1.32.0 (linux/amd64) kubernetes/abc` → `kubectl`).
 */
export function defaultManager(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0];
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    if (!PRINTABLE.test(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}

function fieldManagerErrors(manager: string): FieldError[] {
  const errors: FieldError[] = [];
  if (manager.length > FIELD_MANAGER_MAX_LENGTH) {
    errors.push({
      type: 'FieldValueTooLong',
      field: 'fieldManager',
      detail: `may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`,
    });
  }
  let i = 0;
  for (const ch of manager) {
    if (!PRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errors.push({
        type: 'FieldValueInvalid',
        field: 'fieldManager',
        value: manager,
        detail: `invalid character U+${code} (at position ${i})`,
      });
    }
    i += Buffer.byteLength(ch);
  }
  return errors;
}

export type WriteVerb = 'create' | 'update' | 'patch';

const OPTIONS_KIND: Record<WriteVerb, string> = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
};

/**
 * The manager a create, update or non-apply patch records (managerOrUserAgent); a malformed
 * `fieldManager` parameter is a 422 on `<Verb>Options.meta.k8s.io ""`.
 */
export function fieldManagerOf(
  verb: WriteVerb,
  query: URLSearchParams,
  userAgent: string | undefined,
): string {
  const given = query.get('fieldManager') ?? '';
  const errors = fieldManagerErrors(given);
  if (query.has('force') && verb === 'patch') {
    errors.unshift({
      type: 'FieldValueForbidden',
      field: 'force',
      detail: 'may not be specified for non-apply patch',
    });
  }
  if (errors.length) throw invalid(OPTIONS_KIND[verb], 'meta.k8s.io', '', errors);
  return given || defaultManager(userAgent);
}

export interface ApplyOptions {
  manager: string;
  force: boolean;
}

/** The options of an apply patch: `fieldManager` is required (422), `force` is `true` or not. */
export function applyOptionsOf(query: URLSearchParams): ApplyOptions {
  const manager = query.get('fieldManager') ?? '';
  const errors = fieldManagerErrors(manager);
  if (!manager) {
    errors.unshift({
      type: 'FieldValueRequired',
      field: 'fieldManager',
      detail: 'is required for apply patch',
    });
  }
  if (errors.length) throw invalid('PatchOptions', 'meta.k8s.io', '', errors);
  return { manager, force: query.get('force') === 'true' };
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'string' ? 'string' : typeof v;
}

/** The apply configuration of an `application/apply-patch+yaml` body (YAML, or JSON, which is YAML). */
export function parseApplyBody(text: string): KubeObject {
  let doc: unknown;
  try {
    doc = parse(text) as unknown;
  } catch (e) {
    throw badRequest(`error decoding YAML: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return {} as KubeObject;
  if (!isRecord(doc)) {
    throw badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(doc)} into Go value of type map[string]interface {}`,
    );
  }
  return doc as KubeObject;
}

/** checkName of the patch handler: the applied object must name the object of the URL (else 400). */
export function checkApplyName(object: KubeObject, urlName: string): void {
  const name = object.metadata?.name;
  if (!name) {
    throw badRequest(
      `the name of the object (${urlName} based on URL) was undeterminable: name must be provided`,
    );
  }
  if (name !== urlName) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${urlName})`);
  }
}
