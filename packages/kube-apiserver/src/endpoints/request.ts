/**
 * Parsing of API requests: the URL into (group, version, namespace, resource, name,
 * subresource), query options, content negotiation and bodies.
 */
import type { IncomingMessage } from 'node:http';
import { badRequest, invalid, resourceNotFound, StatusError } from '../api/errors.js';
import { isFieldValidation, type FieldValidation } from './decode.js';
import { requestBodyText } from './protobuf/index.js';
import type { Registry } from '../registry/kinds.js';
import type { ResourceDef } from '../api/types.js';
import type { WatchOptions } from '../storage/watch.js';

export interface ResourceRequest {
  def: ResourceDef;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** True for the legacy `/watch/` path prefix. */
  watchPath: boolean;
}

export interface ApiPath {
  group: string;
  version: string;
  rest: string[];
}

/**
 * The non-empty segments of a URL path, each decoded (decodeURIComponent, which throws on a bad
 * escape; a segment without `%` is its own decoding and is not passed through it).
 */
function pathSegments(pathname: string): string[] {
  const parts: string[] = [];
  for (const segment of pathname.split('/'))
    if (segment) parts.push(segment.includes('%') ? decodeURIComponent(segment) : segment);
  return parts;
}

/** Splits `/api/v1/...` and `/apis/<group>/<version>/...`; undefined for other paths. */
export function parseApiPath(
  pathname: string,
): ApiPath | { discovery: 'api' | 'apis' | 'group'; group?: string } | undefined {
  const parts = pathSegments(pathname);
  if (parts[0] === 'api') {
    if (parts.length === 1) return { discovery: 'api' };
    return { group: '', version: parts[1], rest: parts.slice(2) };
  }
  if (parts[0] !== 'apis') return undefined;
  if (parts.length === 1) return { discovery: 'apis' };
  if (parts.length === 2) return { discovery: 'group', group: parts[1] };
  return { group: parts[1], version: parts[2], rest: parts.slice(3) };
}

/** What `namespaces/<name>/<x>` may name besides a namespaced kind. */
const NAMESPACE_SUBRESOURCES = ['status', 'finalize'];

/** `namespaces/<ns>/<plural>[/<name>[/<sub>]]` */
function namespacedForm(rest: string[]): boolean {
  return rest[0] === 'namespaces' && rest.length >= 3 && rest.length <= 5;
}

/**
 * `namespaces/<ns>/<plural>` of a kind not served is that, not a subresource of the Namespace
 * (else a protobuf body would be decoded, and refused, before the 404).
 */
function unservedInNamespace(rest: string[]): boolean {
  return namespacedForm(rest) && rest.length === 3 && !NAMESPACE_SUBRESOURCES.includes(rest[2]);
}

/** Resolves the resource part of an API path against the registry (404 for unknown kinds). */
export function resolveResource(registry: Registry, path: ApiPath): ResourceRequest {
  const watchPath = path.rest[0] === 'watch';
  const rest = watchPath ? path.rest.slice(1) : path.rest;
  const lookup = (plural: string | undefined): ResourceDef | undefined =>
    plural ? registry.lookup(path.group, path.version, plural) : undefined;
  const inNamespace = namespacedForm(rest) ? lookup(rest[2]) : undefined;
  if (inNamespace?.namespaced)
    return { def: inNamespace, namespace: rest[1], name: rest[3], subresource: rest[4], watchPath };
  if (unservedInNamespace(rest)) throw resourceNotFound();
  const def = lookup(rest[0]);
  // A namespaced resource is reached without a namespace only as a collection (list/watch across namespaces).
  const fits = def && rest.length <= 3 && !(def.namespaced && rest.length > 1);
  if (!fits) throw resourceNotFound();
  return { def, name: rest[1], subresource: rest[2], watchPath };
}

function flag(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === 'true' || v === '1';
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid value for ${name}: ${v}`);
  return n;
}

export function isWatch(q: URLSearchParams, req: ResourceRequest): boolean {
  return req.watchPath || flag(q, 'watch');
}

export function watchOptions(
  q: URLSearchParams,
  metadataOnly: boolean,
): WatchOptions & { timeoutSeconds?: number } {
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    allowWatchBookmarks: flag(q, 'allowWatchBookmarks'),
    sendInitialEvents: flag(q, 'sendInitialEvents'),
    timeoutSeconds: intParam(q, 'timeoutSeconds'),
    metadataOnly,
  };
}

export function listOptions(q: URLSearchParams): {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
} {
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit: intParam(q, 'limit'),
    continue: q.get('continue') ?? undefined,
  };
}

export function fieldValidation(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  if (!isFieldValidation(v)) throw badRequest(`fieldValidation parameter unsupported: ${v}`);
  return v;
}

const OPTIONS_KINDS: Record<string, string> = {
  POST: 'CreateOptions',
  PUT: 'UpdateOptions',
  PATCH: 'PatchOptions',
  DELETE: 'DeleteOptions',
};

/** `dryRun=All` from the query or the DeleteOptions body; any other value is 422 as on a real server. */
export function dryRun(q: URLSearchParams, method: string | undefined, body?: { dryRun?: unknown }): boolean {
  const values = [...q.getAll('dryRun'), ...(Array.isArray(body?.dryRun) ? (body.dryRun as string[]) : [])];
  const bad = values.find((v) => v !== 'All');
  if (bad !== undefined) {
    throw invalid(OPTIONS_KINDS[method ?? ''] ?? 'CreateOptions', 'meta.k8s.io', '', [
      { type: 'FieldValueNotSupported', field: 'dryRun', value: bad, detail: 'supported values: "All"' },
    ]);
  }
  return values.length > 0;
}

export const OUTPUT_KINDS = ['full', 'metadata', 'metadata-list', 'table'] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];

const JSON_TYPES = ['application/json', '*/*', 'application/*'] as const;
const AS_KINDS: Record<string, OutputKind> = {
  PartialObjectMetadata: 'metadata',
  PartialObjectMetadataList: 'metadata-list',
};

function clauseKind(clause: string): OutputKind | undefined {
  const [type, ...params] = clause.split(';').map((s) => s.trim());
  if (!(JSON_TYPES as readonly string[]).includes(type)) return undefined;
  const as = params.find((p) => p.startsWith('as='))?.slice(3);
  if (!as) return 'full';
  if (as === 'Table') return isTableClause(params) ? 'table' : undefined;
  return AS_KINDS[as];
}

/** `as=Table` is served for g=meta.k8s.io and v=v1 or v1beta1. */
function isTableClause(params: string[]): boolean {
  const g = params.find((p) => p.startsWith('g='))?.slice(2);
  const v = params.find((p) => p.startsWith('v='))?.slice(2);
  return g === 'meta.k8s.io' && (v === 'v1' || v === 'v1beta1');
}

/** Content negotiation on Accept: the first acceptable media type wins. */
export function outputKind(accept: string | undefined): OutputKind {
  if (!accept) return 'full';
  for (const clause of accept.split(',')) {
    const kind = clauseKind(clause);
    if (kind) return kind;
  }
  if (/application\/json|\*\/\*/.test(accept)) return 'full';
  throw new StatusError(
    406,
    'NotAcceptable',
    'only the following media types are accepted: application/json',
  );
}

/** The Go type a real server names when a metadata transform does not fit the answer. */
function goTypeName(def: ResourceDef, list: boolean): string {
  if (!def.builtin) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  return `*${def.version}.${def.kind}${list ? 'List' : ''}`;
}

/**
 * The metadata-only form asked for an object or a list: PartialObjectMetadata fits an object
 * (and each watch event), PartialObjectMetadataList a list; the other way round is 406.
 */
export function metadataOnly(
  accept: string | undefined,
  def: ResourceDef,
  answer: 'object' | 'list' | 'watch',
): boolean {
  const kind = outputKind(accept);
  if (kind !== 'metadata' && kind !== 'metadata-list') return false;
  if (answer === 'list' && kind === 'metadata') {
    throw new StatusError(
      406,
      'NotAcceptable',
      `you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(def, true)})`,
    );
  }
  if (answer === 'object' && kind === 'metadata-list') {
    throw new StatusError(
      406,
      'NotAcceptable',
      `you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(def, false)})`,
    );
  }
  return true;
}

const MAX_BODY = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY)
      throw new StatusError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    chunks.push(chunk as Buffer);
  }
  return requestBodyText(Buffer.concat(chunks), req.headers['content-type']);
}
