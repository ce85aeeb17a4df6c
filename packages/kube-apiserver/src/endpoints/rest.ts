/**
 * The REST verbs on a resolved resource: get/list/watch, create, update, patch, delete,
 * deletecollection, and the status, scale, namespace-finalize and shoots/binding subresources.
 */
import {
  badRequest,
  invalid,
  methodNotAllowed,
  resourceNotFound,
  StatusError,
  unsupportedMediaType,
} from '../api/errors.js';
import { toPartialMetadata, toScale } from '../api/objects.js';
import {
  isPropagationPolicy,
  type DeleteOptions,
  type PropagationPolicy,
  type Scope,
  type Subresource,
  type WriteOptions,
  type WriteResult,
} from '../registry/operations.js';
import {
  applyOptionsOf,
  applyPatch,
  checkApplyName,
  fieldManagerOf,
  parseApplyBody,
  type WriteVerb,
} from './apply/index.js';
import { jsonPatch, mergePatch, patchTypeOf, strategicMerge, type PatchType } from './patch.js';
import { PROTOBUF_CONTENT_TYPE } from './protobuf/index.js';
import { apiVersionOf } from '../registry/kinds.js';
import {
  dryRun,
  fieldValidation,
  isWatch,
  listOptions,
  metadataOnly,
  type ResourceRequest,
} from './request.js';
import { jsonBody, send, type RestCall, type ServerContext } from './context.js';
import type { KubeObject } from '../api/types.js';
import { wantsTable, watch } from './rest-watch.js';
import { decodeObject } from './decode.js';
import { createTokenRequest, storeLookup, tokenRequestDef } from '../auth/rbac/index.js';
import { parseIncludeObject, tableGroupVersion, toTable } from './table/index.js';
import { BINDING_SUBRESOURCE } from '../registry/shoot-binding.js';
import { servesSubresource } from '../registry/strategies.js';
import { isPodStream, refusePodStream } from './pod-streams.js';

const SUBRESOURCES = ['status', 'scale'] as const;

function scopeOf(target: ResourceRequest): Scope {
  const sub = target.subresource;
  if (sub !== undefined && !(SUBRESOURCES as readonly string[]).includes(sub) && sub !== 'finalize')
    throw resourceNotFound();
  if (sub && sub !== 'finalize' && !target.def.subresources[sub as 'status' | 'scale'])
    throw resourceNotFound();
  if (sub === 'finalize' && !servesSubresource(target.def, sub)) throw resourceNotFound();
  return { def: target.def, namespace: target.namespace, name: target.name, subresource: sub as Subresource };
}

function warningHeaders(result: WriteResult): Record<string, string> {
  if (!result.warnings.length) return {};
  return { Warning: result.warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}

function view(call: RestCall, obj: KubeObject): KubeObject {
  return metadataOnly(call.req.headers.accept, call.target.def, 'object') ? toPartialMetadata(obj) : obj;
}

interface TableMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

function tableOf(
  call: RestCall,
  scope: Scope,
  items: KubeObject[],
  meta: TableMeta,
): Record<string, unknown> {
  return toTable(scope.def, items, {
    now: new Date(),
    includeObject: parseIncludeObject(call.url.searchParams.get('includeObject')),
    groupVersion: tableGroupVersion(call.req.headers.accept),
    ...meta,
  });
}

function list(ctx: ServerContext, call: RestCall, scope: Scope): void {
  const result = ctx.ops.list(scope, listOptions(call.url.searchParams));
  if (wantsTable(call)) {
    const { resourceVersion, continue: cont, remainingItemCount } = result;
    return send(
      call.res,
      200,
      tableOf(call, scope, result.items, { resourceVersion, continue: cont, remainingItemCount }),
    );
  }
  const asMetadata = metadataOnly(call.req.headers.accept, scope.def, 'list');
  const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue) metadata.continue = result.continue;
  if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
  const body = asMetadata
    ? {
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata,
        items: result.items.map(toPartialMetadata),
      }
    : { kind: scope.def.listKind, apiVersion: apiVersionOf(scope.def), metadata, items: result.items };
  send(call.res, 200, body);
}

function get(ctx: ServerContext, call: RestCall, scope: Scope): void {
  if (!scope.name) {
    if (isWatch(call.url.searchParams, call.target)) return watch(ctx, call, scope);
    return list(ctx, call, scope);
  }
  if (isWatch(call.url.searchParams, call.target)) {
    // watch of a single object by name: a watch with a metadata.name field selector
    const q = call.url.searchParams;
    q.set('fieldSelector', [q.get('fieldSelector'), `metadata.name=${scope.name}`].filter(Boolean).join(','));
    return watch(ctx, call, { ...scope, name: undefined });
  }
  const obj = ctx.ops.get(scope);
  if (wantsTable(call) && !scope.subresource) {
    return send(
      call.res,
      200,
      tableOf(call, scope, [obj], { resourceVersion: obj.metadata.resourceVersion }),
    );
  }
  send(call.res, 200, view(call, obj));
}

function writeOpts(call: RestCall, verb?: WriteVerb, body?: { dryRun?: unknown }): WriteOptions {
  return {
    fieldValidation: fieldValidation(call.url.searchParams),
    dryRun: dryRun(call.url.searchParams, call.req.method, body),
    fieldManager: verb
      ? fieldManagerOf(verb, call.url.searchParams, call.req.headers['user-agent'])
      : undefined,
  };
}

/** Object bodies: JSON, or protobuf (already turned into JSON text when the body was read). */
const OBJECT_CONTENT_TYPES = ['application/json', '*/*', '', PROTOBUF_CONTENT_TYPE] as const;

function requireJson(call: RestCall): void {
  const type = (call.req.headers['content-type'] ?? 'application/json').split(';')[0].trim();
  if (!(OBJECT_CONTENT_TYPES as readonly string[]).includes(type)) throw unsupportedMediaType(type);
}

function create(ctx: ServerContext, call: RestCall, scope: Scope): void {
  if (scope.name) throw methodNotAllowed();
  requireJson(call);
  const result = ctx.ops.create(scope, jsonBody(call.body, scope), writeOpts(call, 'create'));
  send(call.res, 201, view(call, result.object), warningHeaders(result));
}

function update(ctx: ServerContext, call: RestCall, scope: Scope): void {
  if (!scope.name) throw methodNotAllowed();
  requireJson(call);
  const body = jsonBody(call.body, scope);
  const result = putTo(ctx, scope, body, writeOpts(call, 'update'));
  send(call.res, 200, view(call, result.object), warningHeaders(result));
}

function putTo(ctx: ServerContext, scope: Scope, body: unknown, opts: WriteOptions): WriteResult {
  if (scope.subresource === 'scale') return ctx.ops.updateScale(scope, body, opts);
  if ((scope.subresource as string) === 'finalize') {
    const current = ctx.ops.get({ ...scope, subresource: undefined });
    const finalizers = ((body as { spec?: { finalizers?: unknown } }).spec?.finalizers ?? []) as unknown;
    return ctx.ops.update(
      { ...scope, subresource: undefined },
      { ...current, spec: { ...(current.spec as object), finalizers } },
      opts,
    );
  }
  return ctx.ops.update(scope, body, opts);
}

/** Custom resources have no patch strategies: a real server refuses strategic merge patches for them. */
const CR_PATCH_TYPES =
  'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

function applyPatchBody(type: PatchType, current: KubeObject, call: RestCall, scope: Scope): unknown {
  if (type === 'json') return jsonPatch(current, call.body);
  const patchDoc = jsonBody(call.body, scope);
  if (typeof patchDoc !== 'object' || patchDoc === null || Array.isArray(patchDoc)) {
    throw badRequest('the patch must be a JSON object');
  }
  return type === 'merge'
    ? mergePatch(current, patchDoc)
    : strategicMerge(current, patchDoc, scope.def.schema);
}

function patch(ctx: ServerContext, call: RestCall, scope: Scope): void {
  if (!scope.name) throw methodNotAllowed();
  const type = patchTypeOf(call.req.headers['content-type']);
  if (type === 'apply') return applyRequest(ctx, call, scope);
  const scale = scope.subresource === 'scale';
  if (type === 'strategic' && !scope.def.builtin && !scale) {
    throw unsupportedMediaType('application/strategic-merge-patch+json', CR_PATCH_TYPES);
  }
  const stored = ctx.ops.get({ ...scope, subresource: undefined });
  const patched = applyPatchBody(type, scale ? toScale(scope.def, stored) : stored, call, scope);
  const result = putTo(ctx, scope, patched, writeOpts(call, 'patch'));
  send(call.res, 200, view(call, result.object), warningHeaders(result));
}

/** PATCH with application/apply-patch+yaml: server-side apply (creates the object when it is missing). */
function applyRequest(ctx: ServerContext, call: RestCall, scope: Scope): void {
  if (scope.subresource === 'scale') throw unsupportedMediaType('application/apply-patch+yaml');
  const { manager, force } = applyOptionsOf(call.url.searchParams);
  const config = parseApplyBody(call.body);
  let current: KubeObject | undefined;
  try {
    current = ctx.ops.get({ ...scope, subresource: undefined });
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 404)) throw e;
  }
  const subresource = scope.subresource === 'status' ? 'status' : undefined;
  const { object } = applyPatch(scope.def, current, config, { manager, force, now: new Date(), subresource });
  checkApplyName(object, scope.name!);
  const opts: WriteOptions = { ...writeOpts(call), applied: true };
  if (!current) {
    const created = ctx.ops.create({ ...scope, name: undefined }, object, opts);
    send(call.res, 201, view(call, created.object), warningHeaders(created));
    return;
  }
  const result = putTo(ctx, scope, object, opts);
  send(call.res, 200, view(call, result.object), warningHeaders(result));
}

interface DeleteBody {
  dryRun?: unknown;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: unknown;
  orphanDependents?: unknown;
}

/** propagationPolicy from the body or the query (or the legacy orphanDependents); 422 for an unknown one. */
function propagation(call: RestCall, body: DeleteBody): PropagationPolicy | undefined {
  const value = body.propagationPolicy ?? call.url.searchParams.get('propagationPolicy') ?? undefined;
  if (value === undefined || value === '') {
    const orphan = body.orphanDependents ?? call.url.searchParams.get('orphanDependents');
    return orphan === true || orphan === 'true' ? 'Orphan' : undefined;
  }
  if (isPropagationPolicy(value)) return value;
  throw invalid('DeleteOptions', 'meta.k8s.io', '', [
    {
      type: 'FieldValueNotSupported',
      field: 'propagationPolicy',
      value,
      detail: 'supported values: "Foreground", "Background", "Orphan"',
    },
  ]);
}

function deleteBody(call: RestCall): DeleteBody {
  if (!call.body.trim()) return {};
  const body = jsonBody(call.body);
  if (typeof body !== 'object' || body === null) throw badRequest('DeleteOptions must be an object');
  return body;
}

function remove(ctx: ServerContext, call: RestCall, scope: Scope): void {
  if (scope.subresource) throw methodNotAllowed();
  const opts = deleteBody(call);
  const dry = dryRun(call.url.searchParams, call.req.method, opts);
  if (!scope.name)
    return removeCollection(ctx, call, scope, { dryRun: dry, propagationPolicy: propagation(call, opts) });
  const { object, deleted } = ctx.ops.delete(scope, {
    dryRun: dry,
    preconditions: opts.preconditions,
    propagationPolicy: propagation(call, opts),
  });
  if (deleted && scope.def.builtin) {
    const { group, plural } = scope.def;
    send(call.res, 200, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: scope.name, group, kind: plural, uid: object.metadata.uid },
    });
    return;
  }
  send(call.res, 200, view(call, object));
}

function removeCollection(ctx: ServerContext, call: RestCall, scope: Scope, opts: DeleteOptions): void {
  const { items } = ctx.ops.list(scope, {
    ...listOptions(call.url.searchParams),
    limit: undefined,
    continue: undefined,
  });
  const out = items.map(
    (o) => ctx.ops.delete({ ...scope, namespace: o.metadata.namespace, name: o.metadata.name }, opts).object,
  );
  send(call.res, 200, {
    kind: scope.def.listKind,
    apiVersion: apiVersionOf(scope.def),
    metadata: { resourceVersion: String(ctx.store.currentRV) },
    items: out,
  });
}

const VERBS: Record<string, (ctx: ServerContext, call: RestCall, scope: Scope) => void> = {
  GET: get,
  POST: create,
  PUT: update,
  PATCH: patch,
  DELETE: remove,
};

/** POST serviceaccounts/<name>/token: a TokenRequest answered with a signed ServiceAccount token. */
function isTokenRequest(target: ResourceRequest): boolean {
  return target.subresource === 'token' && target.def.kind === 'ServiceAccount' && !target.def.group;
}

function tokenRequest(ctx: ServerContext, call: RestCall): void {
  const { target } = call;
  if (call.req.method !== 'POST' || !target.name) throw methodNotAllowed();
  const def = tokenRequestDef();
  const { object } = decodeObject(def, jsonBody(call.body, { def }), {
    fieldValidation: fieldValidation(call.url.searchParams),
  });
  const issued = createTokenRequest({
    namespace: target.namespace!,
    name: target.name,
    body: object,
    key: ctx.tokenKey,
    lookup: storeLookup(ctx.store),
  });
  send(call.res, 201, issued);
}

export function handleResource(ctx: ServerContext, call: RestCall): Promise<void> {
  if (isPodStream(call.target)) refusePodStream(ctx.ops, call.target);
  if (isTokenRequest(call.target)) {
    tokenRequest(ctx, call);
    return Promise.resolve();
  }
  const verb = VERBS[call.req.method ?? ''];
  if (!verb) throw methodNotAllowed();
  const { target } = call;
  const binding =
    target.subresource === BINDING_SUBRESOURCE && servesSubresource(target.def, BINDING_SUBRESOURCE);
  verb(ctx, call, binding ? { ...target, subresource: 'binding' } : scopeOf(target));
  return Promise.resolve();
}
