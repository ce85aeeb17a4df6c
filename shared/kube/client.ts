/**
 * The client factory: one KubeClient per cluster per function instance, built lazily from a
 * KubeConfig. Generated client-node APIs and KubernetesObjectApi for what they do well; raw JSON
 * helpers (GVK-table URLs, no discovery round-trip) for metadata-only reads, patches with exact
 * content types, and subresources.
 */
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { ApiConstructor, ApiType, KubeConfig } from '@kubernetes/client-node';
import type { GroupVersionKind } from '../api/gvk.js';
import { GVK } from '../api/gvk.js';
import type { ObjectList, PartialObjectMetadata, PartialObjectMetadataList } from '@landscape/apimachinery';
import { isNotFound, KubeRequestError } from './errors.js';
import { ContentTypes, KeepAliveAgents, kubeRequest, kubeRequestJson } from './http.js';
import { DEFAULT_TRANSIENT_RETRY, type TransientRetry } from './transient.js';
import type { HttpMethod, KubeHttpRequest, KubeHttpResponse } from './http.js';
import { resourcePath } from './paths.js';
import type { QueryValue, Subresource } from './paths.js';
import type { ReadSecret, SecretPayload } from './target.js';

/**
 * What the raw helpers need of an object. Loose on purpose: both the product's JSON types
 * (shared/api, string timestamps) and client-node's models (Date timestamps) fit. The helpers
 * return JSON as the server sent it, whatever T says.
 */
export interface ObjectLike {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

export interface ObjectRef {
  /** Omitted for cluster-scoped kinds. */
  namespace?: string;
  name: string;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface WriteOptions {
  /** Default: the client's fieldManager. */
  fieldManager?: string;
  dryRun?: boolean;
}

export interface PatchOptions extends WriteOptions {
  subresource?: Subresource;
}

/** A PUT of the main resource, or of a subresource that takes the whole object (`binding`, `status`). */
export interface ReplaceOptions extends WriteOptions {
  subresource?: Subresource;
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export const JSON_PATCH_OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
export type JsonPatchOp = (typeof JSON_PATCH_OPS)[number];

/** One RFC 6902 operation (what fast-json-patch's `compare` produces). */
export interface JsonPatchOperation {
  op: JsonPatchOp;
  path: string;
  value?: unknown;
  from?: string;
}

export interface KubeClientOptions {
  /** Sent as `fieldManager` on writes unless a call names one. */
  fieldManager?: string;
  /** Socket inactivity limit per request; default 30 s. */
  timeoutMs?: number;
  /**
   * Keep connections alive and reuse them (one agent per client) for `request`, `get`, `list`,
   * the patches and the other raw helpers; default false: a new connection per request, as
   * client-node does. The generated clients of `api()` / `objects()` are not affected.
   */
  keepAlive?: boolean;
  /**
   * Retry as client-go's rest client does (./transient.ts): an answer with `Retry-After` after
   * that wait, a GET whose connection failed after a short pause; `true` for the defaults. For the
   * functions' own cluster; default off (a probe must see the first answer).
   */
  retryTransient?: boolean | TransientRetry;
}

export interface KubeClient {
  readonly kubeConfig: KubeConfig;
  /** A generated API client (CoreV1Api, AppsV1Api, ...), made once per client. */
  api<T extends ApiType>(ctor: ApiConstructor<T>): T;
  /** client-node's generic object API (does discovery per apiVersion, cached per instance). */
  objects(): KubernetesObjectApi;
  request(request: KubeHttpRequest): Promise<KubeHttpResponse>;
  /** The object's metadata only (`as=PartialObjectMetadata`): the cost does not grow with the object. */
  getMetadata(
    gvk: GroupVersionKind,
    namespace: string | undefined,
    name: string,
  ): Promise<PartialObjectMetadata>;
  /** One page of metadata; across all namespaces when namespace is omitted for a namespaced kind. */
  listMetadata(
    gvk: GroupVersionKind,
    namespace?: string,
    options?: ListOptions,
  ): Promise<PartialObjectMetadataList>;
  get<T extends ObjectLike>(gvk: GroupVersionKind, namespace: string | undefined, name: string): Promise<T>;
  list<T extends ObjectLike>(
    gvk: GroupVersionKind,
    namespace?: string,
    options?: ListOptions,
  ): Promise<ObjectList<T>>;
  create<T extends ObjectLike>(gvk: GroupVersionKind, object: T, options?: WriteOptions): Promise<T>;
  /**
   * PUT; optimistic when `metadata.resourceVersion` is set (409 Conflict when stale). With
   * `subresource`, a PUT of the object to it, as client-go's `SubResource(name).Update(ctx, obj)`
   * (e.g. gardener-scheduler's `SubResource("binding").Update` of a Shoot).
   */
  replace<T extends ObjectLike>(gvk: GroupVersionKind, object: T, options?: ReplaceOptions): Promise<T>;
  /** PUT of the status subresource. */
  replaceStatus<T extends ObjectLike>(gvk: GroupVersionKind, object: T, options?: WriteOptions): Promise<T>;
  delete(gvk: GroupVersionKind, ref: ObjectRef, options?: DeleteOptions): Promise<void>;
  /** RFC 7386 JSON merge patch (`null` deletes a key; lists are replaced whole). */
  mergePatch<T extends ObjectLike>(
    gvk: GroupVersionKind,
    ref: ObjectRef,
    patch: unknown,
    options?: PatchOptions,
  ): Promise<T>;
  /** RFC 6902 JSON patch; add a `test` of /metadata/resourceVersion for optimistic locking. */
  jsonPatch<T extends ObjectLike>(
    gvk: GroupVersionKind,
    ref: ObjectRef,
    operations: readonly JsonPatchOperation[],
    options?: PatchOptions,
  ): Promise<T>;
  /** Patch of the status subresource: merge patch for an object, JSON patch for an operation list. */
  patchStatus<T extends ObjectLike>(
    gvk: GroupVersionKind,
    ref: ObjectRef,
    patch: Record<string, unknown> | readonly JsonPatchOperation[],
    options?: WriteOptions,
  ): Promise<T>;
  /** A ReadSecret (for Targets) over this client: NotFound gives undefined. */
  secretReader(): ReadSecret;
}

function refOf(gvk: GroupVersionKind, object: ObjectLike): ObjectRef {
  const name = object.metadata?.name;
  if (!name) throw new KubeRequestError(`${gvk.kind}: metadata.name is required`);
  return { namespace: gvk.namespaced ? object.metadata?.namespace : undefined, name };
}

class DefaultKubeClient implements KubeClient {
  private readonly apis = new Map<unknown, unknown>();
  private objectApi: KubernetesObjectApi | undefined;
  private readonly agents: KeepAliveAgents | undefined;
  private readonly retry: TransientRetry | undefined;

  constructor(
    readonly kubeConfig: KubeConfig,
    private readonly options: KubeClientOptions,
  ) {
    this.agents = options.keepAlive ? new KeepAliveAgents() : undefined;
    this.retry =
      options.retryTransient === true ? DEFAULT_TRANSIENT_RETRY : options.retryTransient || undefined;
  }

  api<T extends ApiType>(ctor: ApiConstructor<T>): T {
    let api = this.apis.get(ctor) as T | undefined;
    if (!api) {
      api = this.kubeConfig.makeApiClient(ctor);
      this.apis.set(ctor, api);
    }
    return api;
  }

  objects(): KubernetesObjectApi {
    this.objectApi ??= KubernetesObjectApi.makeApiClient(this.kubeConfig);
    return this.objectApi;
  }

  request(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    return kubeRequest(
      this.kubeConfig,
      { timeoutMs: this.options.timeoutMs, ...request },
      this.agents,
      this.retry,
    );
  }

  private json<T>(method: HttpMethod, path: string, extra: Partial<KubeHttpRequest> = {}): Promise<T> {
    return kubeRequestJson<T>(
      this.kubeConfig,
      { method, path, timeoutMs: this.options.timeoutMs, ...extra },
      this.agents,
      this.retry,
    );
  }

  private writeQuery(options: WriteOptions = {}): Record<string, QueryValue> {
    return {
      fieldManager: options.fieldManager ?? this.options.fieldManager,
      dryRun: options.dryRun ? 'All' : undefined,
    };
  }

  getMetadata(
    gvk: GroupVersionKind,
    namespace: string | undefined,
    name: string,
  ): Promise<PartialObjectMetadata> {
    const path = resourcePath(gvk, { namespace, name });
    return this.json('GET', path, { accept: ContentTypes.partialObjectMetadata });
  }

  listMetadata(
    gvk: GroupVersionKind,
    namespace?: string,
    options: ListOptions = {},
  ): Promise<PartialObjectMetadataList> {
    const path = resourcePath(gvk, { namespace });
    return this.json('GET', path, { accept: ContentTypes.partialObjectMetadataList, query: { ...options } });
  }

  get<T extends ObjectLike>(gvk: GroupVersionKind, namespace: string | undefined, name: string): Promise<T> {
    return this.json('GET', resourcePath(gvk, { namespace, name }));
  }

  list<T extends ObjectLike>(
    gvk: GroupVersionKind,
    namespace?: string,
    options: ListOptions = {},
  ): Promise<ObjectList<T>> {
    return this.json('GET', resourcePath(gvk, { namespace }), { query: { ...options } });
  }

  create<T extends ObjectLike>(gvk: GroupVersionKind, object: T, options?: WriteOptions): Promise<T> {
    const { namespace } = refOf(gvk, object);
    const body = { apiVersion: gvk.apiVersion, kind: gvk.kind, ...object };
    return this.json('POST', resourcePath(gvk, { namespace }), { body, query: this.writeQuery(options) });
  }

  replace<T extends ObjectLike>(gvk: GroupVersionKind, object: T, options: ReplaceOptions = {}): Promise<T> {
    const body = { apiVersion: gvk.apiVersion, kind: gvk.kind, ...object };
    const path = resourcePath(gvk, { ...refOf(gvk, object), subresource: options.subresource });
    return this.json('PUT', path, { body, query: this.writeQuery(options) });
  }

  replaceStatus<T extends ObjectLike>(gvk: GroupVersionKind, object: T, options?: WriteOptions): Promise<T> {
    const body = { apiVersion: gvk.apiVersion, kind: gvk.kind, ...object };
    const path = resourcePath(gvk, { ...refOf(gvk, object), subresource: 'status' });
    return this.json('PUT', path, { body, query: this.writeQuery(options) });
  }

  async delete(gvk: GroupVersionKind, ref: ObjectRef, options: DeleteOptions = {}): Promise<void> {
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', ...options };
    await this.request({ method: 'DELETE', path: resourcePath(gvk, ref), body });
  }

  private patch<T>(
    gvk: GroupVersionKind,
    ref: ObjectRef,
    body: unknown,
    type: string,
    o: PatchOptions,
  ): Promise<T> {
    const path = resourcePath(gvk, { ...ref, subresource: o.subresource });
    return this.json('PATCH', path, { body, contentType: type, query: this.writeQuery(o) });
  }

  mergePatch<T extends ObjectLike>(
    gvk: GroupVersionKind,
    ref: ObjectRef,
    patch: unknown,
    options: PatchOptions = {},
  ): Promise<T> {
    return this.patch(gvk, ref, patch, ContentTypes.mergePatch, options);
  }

  jsonPatch<T extends ObjectLike>(
    gvk: GroupVersionKind,
    ref: ObjectRef,
    operations: readonly JsonPatchOperation[],
    options: PatchOptions = {},
  ): Promise<T> {
    return this.patch(gvk, ref, operations, ContentTypes.jsonPatch, options);
  }

  patchStatus<T extends ObjectLike>(
    gvk: GroupVersionKind,
    ref: ObjectRef,
    patch: Record<string, unknown> | readonly JsonPatchOperation[],
    options: WriteOptions = {},
  ): Promise<T> {
    const type = Array.isArray(patch) ? ContentTypes.jsonPatch : ContentTypes.mergePatch;
    return this.patch(gvk, ref, patch, type, { ...options, subresource: 'status' });
  }

  secretReader(): ReadSecret {
    return async ({ namespace, name }) => {
      try {
        return await this.get<ObjectLike & SecretPayload>(GVK.Secret, namespace, name);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    };
  }
}

/** A client over a KubeConfig. Cheap: nothing is connected until the first call. */
export function createKubeClient(kubeConfig: KubeConfig, options: KubeClientOptions = {}): KubeClient {
  return new DefaultKubeClient(kubeConfig, options);
}
