/**
 * The per-kind strategy of the registry: what one kind's rules do to an object on each write, as
 * kube-apiserver asks a resource's strategy (k8s.io/apiserver pkg/registry/rest create.go
 * RESTCreateStrategy, update.go RESTUpdateStrategy, delete.go RESTDeleteStrategy; one
 * pkg/registry/<group>/<kind>/strategy.go per resource, with its status and scale strategies).
 *
 * The generic verbs (./operations.ts) call the hooks in a fixed order — create: PrepareForCreate,
 * then Validate; update of the main resource: PrepareForUpdate, then ValidateUpdate; status write:
 * PrepareForStatusUpdate, then ValidateStatusUpdate; scale write: ValidateScaleUpdate; marking an
 * object deleted: PrepareForDelete. Every hook takes the resource definition, so one strategy can
 * serve several kinds (the RBAC kinds, the seedmanagement kinds). ./strategies.ts holds the
 * table: the generic strategy every kind gets, and the kinds that differ.
 */
import type { KubeObject, ResourceDef } from '../api/types.js';

/** What a strategy may read of its cluster: the stored objects of a resource (`<group>/<plural>`). */
export interface StrategyContext {
  list(resource: string): readonly KubeObject[];
}

export interface RestStrategy {
  /** PrepareForCreate: server-set fields and defaults of an object about to be created (allocations read `ctx`). */
  prepareForCreate(def: ResourceDef, obj: KubeObject, ctx?: StrategyContext): KubeObject;
  /** Validate: throws a 422 Invalid Status when an object about to be created breaks a rule. */
  validateCreate(def: ResourceDef, obj: KubeObject): void;
  /** PrepareForUpdate of the main resource: the object to store (`next` carries the server's metadata). */
  prepareForUpdate(def: ResourceDef, prev: KubeObject, next: KubeObject, ctx?: StrategyContext): KubeObject;
  /** ValidateUpdate of the main resource: throws a 422 Invalid Status when the update breaks a rule. */
  validateUpdate(def: ResourceDef, prev: KubeObject, next: KubeObject): void;
  /** The status strategy's PrepareForUpdate: the stored object with the incoming status. */
  prepareForStatusUpdate(def: ResourceDef, prev: KubeObject, incoming: KubeObject): KubeObject;
  /** The status strategy's ValidateUpdate. */
  validateStatusUpdate(def: ResourceDef, prev: KubeObject, next: KubeObject): void;
  /** The scale strategy's validation of an autoscaling/v1 Scale body's spec.replicas (`name`: the object's). */
  validateScaleUpdate(def: ResourceDef, name: string, replicas: unknown): void;
  /** BeforeDelete: the object as it is stored once marked for deletion (deletionTimestamp set already). */
  prepareForDelete(def: ResourceDef, obj: KubeObject): KubeObject;
  /** Finalizers beyond metadata.finalizers that hold a deletion (a Namespace's spec.finalizers). */
  pendingFinalizers(obj: KubeObject): readonly string[];
  /** Subresources of this kind beyond status and scale (namespaces/finalize, shoots/binding). */
  readonly subresources: readonly string[];
  /**
   * GetAttrs: the field labels a fieldSelector may use beyond metadata.name and
   * metadata.namespace, each with its path in the object (`status.phase` → `.status.phase`).
   */
  readonly fieldLabels: Readonly<Record<string, string>>;
  /** Whether the kind's field label conversion words an unknown label "field label not supported" (core kinds). */
  readonly legacyFieldLabelErrors: boolean;
}

/** A kind's strategy as written in the table: only what differs from the generic strategy. */
export type KindStrategy = Partial<RestStrategy>;
