/**
 * The request → authorizer attributes mapping of the API server's RequestInfoFactory
 * (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go), independent of routing:
 *
 * - `/api/<v>/...` and `/apis/<g>/<v>/...` with a resource are resource requests; everything else
 *   (`/api`, `/apis/<g>/<v>`, `/version`, `/openapi/v3`) is a non-resource request whose verb is
 *   the lower-cased HTTP method;
 * - GET with a name → get; GET without → list, or watch when `watch` is set to anything but
 *   `false`/`0`; `/watch/` (and `/proxy/`) path prefixes set the verb; POST → create, PUT →
 *   update, PATCH → patch, DELETE with a name → delete, without → deletecollection;
 * - `/namespaces/<ns>/<resource>/...` sets the namespace; `/namespaces/<ns>` itself (and its
 *   `status`/`finalize`) is the namespaces resource named `<ns>` *in* namespace `<ns>`;
 * - a list/watch with a `metadata.name=<x>` field selector is attributed the name `<x>`, so
 *   resourceNames rules can allow it.
 */
import type { Attributes, UserInfo } from './types.js';

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The (decoded) URL path. */
  path: string;
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Set when the path cannot be parsed (a real server answers 500 "failed to create RequestInfo"). */
  error?: string;
}

const API_PREFIXES = ['api', 'apis'] as const;
const GROUPLESS_PREFIXES = ['api'] as const;
const SPECIAL_VERBS = ['proxy', 'watch'] as const;
const SPECIAL_VERBS_NO_SUBRESOURCES = ['proxy'] as const;
const NAMESPACE_SUBRESOURCES = ['status', 'finalize'] as const;

const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

const SLASH = 0x2f;

const has = (list: readonly string[], v: string | undefined): boolean => v !== undefined && list.includes(v);

function decodePath(pathname: string): string {
  // nothing to decode without an escape (decodeURIComponent would return the same string)
  if (!pathname.includes('%')) return pathname;
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** strings.Split(strings.Trim(path, "/"), "/"), without the empty path's one empty segment. */
function splitPath(path: string): string[] {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === SLASH) start++;
  while (end > start && path.charCodeAt(end - 1) === SLASH) end--;
  return start < end ? path.slice(start, end).split('/') : [];
}

/** Convert_Slice_string_To_bool: present and not `0`/`false` (any case) is true, even empty. */
function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null) return false;
  return v !== '0' && v.toLowerCase() !== 'false';
}

/** Splits a field selector on commas that are not escaped with a backslash. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** fields.UnescapeValue: `\\`, `\,` and `\=` only; undefined for any other escape. */
function unescapeValue(s: string): string | undefined {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\') {
      out += s[i];
      continue;
    }
    const next = s[++i];
    if (next !== '\\' && next !== ',' && next !== '=') return undefined;
    out += next;
  }
  return out;
}

interface Term {
  field: string;
  op: '!=' | '==' | '=';
  value: string;
}

function parseTerm(term: string): Term | undefined {
  for (let i = 0; i < term.length; i++) {
    const op = (['!=', '==', '='] as const).find((o) => term.startsWith(o, i));
    if (!op) continue;
    const value = unescapeValue(term.slice(i + op.length));
    return value === undefined ? undefined : { field: term.slice(0, i), op, value };
  }
  return undefined;
}

/** The name a field selector requires exactly (`metadata.name=x` or `==`), undefined if none or unparsable. */
export function selectedName(selector: string | null): string | undefined {
  if (!selector) return undefined;
  let name: string | undefined;
  for (const raw of splitTerms(selector)) {
    if (raw === '') continue;
    const term = parseTerm(raw);
    if (!term) return undefined; // a parse error: the real server drops the whole ListOptions
    if (name === undefined && term.op !== '!=' && term.field === 'metadata.name') name = term.value;
  }
  return name;
}

/** path.IsValidPathSegmentName: not `.` or `..`, no `/` or `%`. */
export function pathSegmentProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

function nonResource(path: string, method: string): RequestInfo {
  return {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
}

/** Reads namespace, resource, name and subresource from the parts after the version (and special verb). */
/** The namespace, resource, name and subresource from `parts[at:]` (read in place, not sliced). */
function readParts(info: RequestInfo, parts: string[], from: number): void {
  let at = from;
  if (parts[at] === 'namespaces' && parts.length - at > 1) {
    info.namespace = parts[at + 1];
    if (parts.length - at > 2 && !has(NAMESPACE_SUBRESOURCES, parts[at + 2])) at += 2;
  }
  const left = parts.length - at;
  if (left >= 3 && !has(SPECIAL_VERBS_NO_SUBRESOURCES, info.verb)) info.subresource = parts[at + 2];
  if (left >= 2) info.name = parts[at + 1];
  if (left >= 1) info.resource = parts[at];
}

/** get without a name is list or watch (with the name a field selector requires); delete without one is deletecollection. */
function collectionVerb(info: RequestInfo, query: URLSearchParams): void {
  if (!info.name && info.verb === 'get') {
    info.verb = boolParam(query, 'watch') ? 'watch' : 'list';
    const name = selectedName(query.get('fieldSelector'));
    if (name !== undefined && pathSegmentProblems(name).length === 0) info.name = name;
  }
  if (!info.name && info.verb === 'delete') info.verb = 'deletecollection';
}

/** RequestInfoFactory.NewRequestInfo for a method and URL (absolute or path with query). */
export function requestInfo(method: string, url: URL | string): RequestInfo {
  const parsed = typeof url === 'string' ? new URL(url, 'http://localhost') : url;
  const path = decodePath(parsed.pathname);
  const info = nonResource(path, method);
  // the parts are read from an index that moves on (upstream re-slices; the same values, no copies)
  const parts = splitPath(path);
  if (parts.length < 3 || !has(API_PREFIXES, parts[0])) return info;
  info.apiPrefix = parts[0];
  let at = 1;
  if (!has(GROUPLESS_PREFIXES, info.apiPrefix)) {
    if (parts.length - at < 3) return info;
    info.apiGroup = parts[at++];
  }
  info.isResourceRequest = true;
  info.apiVersion = parts[at++];
  if (has(SPECIAL_VERBS, parts[at])) {
    if (parts.length - at < 2)
      return { ...info, error: `unable to determine kind and namespace from url, ${path}` };
    info.verb = parts[at++];
  } else info.verb = METHOD_VERBS[method.toUpperCase()] ?? '';
  readParts(info, parts, at);
  collectionVerb(info, parsed.searchParams);
  return info;
}

/** The authorizer attributes of a request by `user`. */
export function attributesFor(user: UserInfo, info: RequestInfo): Attributes {
  if (!info.isResourceRequest) return { user, verb: info.verb, path: info.path };
  return {
    user,
    verb: info.verb,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource || undefined,
    name: info.name || undefined,
    namespace: info.namespace || undefined,
    path: info.path,
  };
}
