/**
 * The verbs on one cluster's objects with the API server's semantics: create, get, list,
 * update (main resource and status/scale subresources), delete with finalizers. HTTP-free:
 * the server layer parses requests into these calls.
 */
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  invalid,
  MODIFIED_CONFLICT,
  notFound,
  StatusError,
  type GroupResource,
} from '../api/errors.js';
import { decodeObject, type FieldValidation } from '../endpoints/decode.js';
import { validateMeta, validateMetaUpdate } from '../api/meta.js';
import {
  carryServerMeta,
  deepEqual,
  generateName,
  newUid,
  sameContent,
  specChanged,
  timestamp,
  toScale,
  tracksGeneration,
  withFields,
  writePath,
} from '../api/objects.js';
import { resourceKey } from './kinds.js';
import { requirementsMatch } from '@landscape/apimachinery';
import { matchesFields, parseFieldSelector, parseLabelSelector } from '../api/selectors.js';
import type { Store } from '../storage/store.js';
import { strategyFor } from './strategies.js';
import {
  checkDeletePreconditions,
  hasFinalizers,
  withPolicyFinalizer,
  type DeleteOptions,
} from './deletion.js';
import { trackUpdate } from '../endpoints/apply/index.js';
import { fieldLabels, objectFieldValues } from './fields.js';
import { prepareShootBinding, type SeedLookup } from './shoot-binding.js';
import { listPage, type ListOptions, type ListResult } from '../storage/list.js';
import type { KubeObject, ObjectMeta, ResourceDef } from '../api/types.js';

export type Subresource = 'status' | 'scale' | 'binding' | undefined;

export interface Scope {
  def: ResourceDef;
  namespace?: string;
  name?: string;
  subresource?: Subresource;
}

export interface WriteOptions {
  fieldValidation: FieldValidation;
  dryRun: boolean;
  /** The field manager of a create/update/patch (recorded as an Update); undefined leaves managedFields as they are. */
  fieldManager?: string;
  /** The body is a server-side apply result: store its managedFields as they are. */
  applied?: boolean;
}

export interface WriteResult {
  object: KubeObject;
  warnings: string[];
  created?: boolean;
}

export type { ListOptions, ListResult } from '../storage/list.js';
export {
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
  PROPAGATION_POLICIES,
  hasFinalizers,
  isPropagationPolicy,
  type DeleteOptions,
  type PropagationPolicy,
} from './deletion.js';

export { NAMESPACE_FINALIZER } from './core-strategy.js';

export function groupResource(def: ResourceDef): GroupResource {
  return { group: def.group, resource: def.plural };
}

/** A spec change raises the generation; a status write never does (the status strategies keep the spec). */
function raisesGeneration(
  def: ResourceDef,
  prev: KubeObject,
  next: KubeObject,
  subresource?: string,
): boolean {
  return subresource !== 'status' && tracksGeneration(def) && specChanged(def, prev, next);
}

export class Operations {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** What the strategies may read of this cluster (./rest-strategy.ts StrategyContext). */
  private readonly strategyContext = { list: (resource: string) => this.store.list(resource) };

  get(scope: Scope): KubeObject {
    const obj = this.store.get(resourceKey(scope.def), scope.namespace, scope.name!);
    if (!obj) throw notFound(groupResource(scope.def), scope.name!);
    return scope.subresource === 'scale' ? toScale(scope.def, obj) : obj;
  }

  /** A matcher for the list/watch selectors of a request (throws 400 on a bad selector). */
  matcher(def: ResourceDef, opts: ListOptions): (obj: KubeObject) => boolean {
    const labels = parseLabelSelector(opts.labelSelector);
    const legacy = strategyFor(def).legacyFieldLabelErrors;
    const fields = parseFieldSelector(opts.fieldSelector, fieldLabels(def), legacy);
    // a list or watch without selectors (the common case) reads nothing of its objects
    if (labels.length === 0 && fields.length === 0) return () => true;
    if (fields.length === 0) return (obj) => requirementsMatch(labels, obj.metadata.labels);
    return (obj) =>
      requirementsMatch(labels, obj.metadata.labels) && matchesFields(fields, objectFieldValues(def, obj));
  }

  list(scope: Scope, opts: ListOptions): ListResult {
    return listPage(this.store, resourceKey(scope.def), scope.namespace, opts, this.matcher(scope.def, opts));
  }

  /** The namespace an object to be created goes to (checked to exist and not be terminating). */
  private createNamespace(scope: Scope, meta: ObjectMeta): string | undefined {
    if (!scope.def.namespaced) return undefined;
    if (meta.namespace && meta.namespace !== scope.namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    this.checkNamespaceWritable(scope.def, scope.namespace!, meta.name ?? meta.generateName ?? '');
    return scope.namespace;
  }

  /** Metadata of an object to be created: namespace, name, uid, timestamps, generation. */
  private createMeta(scope: Scope, incoming: ObjectMeta): ObjectMeta {
    const { def } = scope;
    const meta: ObjectMeta = { ...incoming };
    for (const serverOwned of [
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
      'namespace',
    ] as const) {
      delete meta[serverOwned];
    }
    const namespace = this.createNamespace(scope, incoming);
    if (namespace) meta.namespace = namespace;
    if (meta.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    const errors = validateMeta(def, meta);
    if (errors.length) throw invalid(def.kind, def.group, meta.name ?? '', errors);
    const out = withFields(meta, { uid: newUid(), creationTimestamp: timestamp(this.now()) });
    if (tracksGeneration(def)) out.generation = 1;
    return out;
  }

  create(scope: Scope, body: unknown, opts: WriteOptions): WriteResult {
    const { def } = scope;
    const decoded = decodeObject(def, body, { fieldValidation: opts.fieldValidation });
    this.checkCrdServing(def);
    const meta = this.createMeta(scope, decoded.object.metadata);
    const key = resourceKey(def);
    if (this.store.get(key, meta.namespace, meta.name!)) throw alreadyExists(groupResource(def), meta.name!);
    const strategy = strategyFor(def);
    const stored = strategy.prepareForCreate(
      def,
      { ...decoded.object, metadata: meta },
      this.strategyContext,
    );
    strategy.validateCreate(def, stored);
    this.trackManagedFields(def, undefined, stored, opts);
    if (opts.dryRun) return { object: stored, warnings: decoded.warnings, created: true };
    stored.metadata.resourceVersion = String(this.store.nextRV());
    this.store.put(key, stored, 'ADDED');
    return { object: stored, warnings: decoded.warnings, created: true };
  }

  /** PUT of the main resource or of the status subresource. */
  update(scope: Scope, body: unknown, opts: WriteOptions): WriteResult {
    const { def } = scope;
    const prev = this.get({ ...scope, subresource: undefined });
    const decoded = decodeObject(def, body, { fieldValidation: opts.fieldValidation, name: scope.name });
    const incoming = decoded.object;
    checkUpdateTarget(scope, prev, incoming);
    const strategy = strategyFor(def);
    let next: KubeObject;
    if (scope.subresource === 'status') {
      next = strategy.prepareForStatusUpdate(def, prev, incoming);
      if (opts.applied) next.metadata = { ...prev.metadata, managedFields: incoming.metadata.managedFields };
      strategy.validateStatusUpdate(def, prev, next);
    } else if (scope.subresource === 'binding') {
      const merged = { ...incoming, metadata: carryServerMeta(incoming.metadata, prev.metadata) };
      next = prepareShootBinding(prev, merged, this.seedLookup());
    } else {
      const merged = { ...incoming, metadata: carryServerMeta(incoming.metadata, prev.metadata) };
      next = strategy.prepareForUpdate(def, prev, merged, this.strategyContext);
      strategy.validateUpdate(def, prev, next);
    }
    if (next.status === undefined) delete next.status;
    return { ...this.commit(def, prev, next, opts, scope.subresource), warnings: decoded.warnings };
  }

  /** The stored Seeds and Shoots, for the checks of `shoots/binding` (./shoot-binding.ts). */
  private seedLookup(): SeedLookup {
    return {
      seed: (name) => this.store.get('core.gardener.cloud/seeds', undefined, name),
      shoots: () => this.store.list('core.gardener.cloud/shoots'),
    };
  }

  /** PUT of the scale subresource: only spec.replicas of the parent changes. */
  updateScale(scope: Scope, body: unknown, opts: WriteOptions): WriteResult {
    const { def } = scope;
    const prev = this.get({ ...scope, subresource: undefined });
    const scale = body as { metadata?: { resourceVersion?: string }; spec?: { replicas?: unknown } };
    const replicas = scale?.spec?.replicas;
    strategyFor(def).validateScaleUpdate(def, scope.name!, replicas);
    this.checkPrecondition(def, prev, scale?.metadata?.resourceVersion);
    const next = writePath(prev, def.subresources.scale!.specReplicasPath, replicas ?? 0);
    const result = this.commit(def, prev, next, opts, 'scale');
    return { object: toScale(def, result.object), warnings: [] };
  }

  delete(scope: Scope, opts: DeleteOptions): { object: KubeObject; deleted: boolean } {
    const { def } = scope;
    const stored = this.get({ ...scope, subresource: undefined });
    checkDeletePreconditions(def, stored, opts.preconditions);
    if (stored.metadata.deletionTimestamp) return { object: stored, deleted: false };
    const prev = withPolicyFinalizer(stored, opts.propagationPolicy);
    if (hasFinalizers(def, prev)) {
      let next: KubeObject = {
        ...prev,
        metadata: {
          ...prev.metadata,
          deletionTimestamp: timestamp(this.now()),
          deletionGracePeriodSeconds: 0,
          // rest.BeforeDelete: marking an object deleted is a change of its desired state
          generation: prev.metadata.generation ? prev.metadata.generation + 1 : prev.metadata.generation,
        },
      };
      next = strategyFor(def).prepareForDelete(def, next);
      if (!opts.dryRun) this.store.put(resourceKey(def), this.withNewRV(next), 'MODIFIED', stored);
      return { object: next, deleted: false };
    }
    if (opts.dryRun) return { object: prev, deleted: true };
    const last = this.withNewRV(prev);
    this.store.remove(resourceKey(def), last);
    return { object: last, deleted: true };
  }

  private withNewRV(obj: KubeObject): KubeObject {
    return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(this.store.nextRV()) } };
  }

  private checkPrecondition(def: ResourceDef, prev: KubeObject, rv: string | undefined): void {
    if (rv && rv !== prev.metadata.resourceVersion)
      throw conflict(groupResource(def), prev.metadata.name!, MODIFIED_CONFLICT);
  }

  /** Stores an updated object (or finishes a deletion whose last finalizer went away). */
  /** managedFields after a non-apply write (creates: prev undefined). */
  private trackManagedFields(
    def: ResourceDef,
    prev: KubeObject | undefined,
    next: KubeObject,
    opts: WriteOptions,
    subresource?: string,
  ): void {
    if (opts.applied || opts.fieldManager === undefined) return;
    const entries = trackUpdate(def, prev, next, {
      manager: opts.fieldManager,
      operation: 'Update',
      now: this.now(),
      subresource,
    });
    if (entries.length) next.metadata.managedFields = entries;
    else delete next.metadata.managedFields;
  }

  private commit(
    def: ResourceDef,
    prev: KubeObject,
    candidate: KubeObject,
    opts: WriteOptions,
    subresource?: string,
  ): WriteResult {
    const next = { ...candidate, metadata: { ...candidate.metadata } };
    const errors = [...validateMeta(def, next.metadata), ...validateMetaUpdate(next.metadata, prev.metadata)];
    if (errors.length) throw invalid(def.kind, def.group, prev.metadata.name!, errors);
    if (raisesGeneration(def, prev, next, subresource))
      next.metadata.generation = (prev.metadata.generation ?? 0) + 1;
    next.metadata.resourceVersion = prev.metadata.resourceVersion;
    this.trackManagedFields(def, prev, next, opts, subresource);
    if (sameContent(prev, next) && deepEqual(prev.metadata.managedFields, next.metadata.managedFields))
      return { object: prev, warnings: [] };
    if (opts.dryRun) return { object: next, warnings: [] };
    const stored = this.withNewRV(next);
    const key = resourceKey(def);
    if (stored.metadata.deletionTimestamp && !hasFinalizers(def, stored)) this.store.remove(key, stored);
    else this.store.put(key, stored, 'MODIFIED', prev);
    return { object: stored, warnings: [] };
  }

  /** Objects of a CRD that is being deleted cannot be created any more. */
  private checkCrdServing(def: ResourceDef): void {
    if (def.builtin) return;
    const crd = this.store.get(
      'apiextensions.k8s.io/customresourcedefinitions',
      undefined,
      `${def.plural}.${def.group}`,
    );
    if (crd?.metadata.deletionTimestamp) {
      throw new StatusError(
        405,
        'MethodNotAllowed',
        'create not allowed while custom resource definition is terminating',
      );
    }
  }

  private checkNamespaceWritable(def: ResourceDef, namespace: string, name: string): void {
    const ns = this.store.get('/namespaces', undefined, namespace);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
    if (ns.metadata.deletionTimestamp) {
      const err = forbidden(
        groupResource(def),
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
      err.details!.causes = [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ];
      throw err;
    }
  }
}

/** An update body must name the object of the URL and may carry resourceVersion and uid preconditions. */
function checkUpdateTarget(scope: Scope, prev: KubeObject, incoming: KubeObject): void {
  const { def } = scope;
  const { name, namespace, resourceVersion, uid } = incoming.metadata;
  if (name && name !== scope.name) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${scope.name})`);
  }
  if (def.namespaced && namespace && namespace !== scope.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (resourceVersion && resourceVersion !== prev.metadata.resourceVersion) {
    throw conflict(groupResource(def), prev.metadata.name!, MODIFIED_CONFLICT);
  }
  if (uid && uid !== prev.metadata.uid) {
    throw conflict(
      groupResource(def),
      scope.name!,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${prev.metadata.uid}`,
    );
  }
}
