/**
 * Small pure helpers over stored objects: deep equality, clones, server-owned metadata,
 * generation rules, the scale and metadata-only views.
 */
import { randomUUID } from 'node:crypto';
import { labelSelectorAsSelector } from '@landscape/apimachinery';
import type { KubeObject, ObjectMeta, ResourceDef } from './types.js';

const NOTHING_SKIPPED: ReadonlySet<string> = new Set();

/**
 * Whether two objects have the same members, undefined members counting as absent, and the
 * members named in `skip` as well.
 */
function sameMembers(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  skip: ReadonlySet<string> = NOTHING_SKIPPED,
): boolean {
  let defined = 0;
  for (const k of Object.keys(a)) {
    const v = a[k];
    if (v === undefined || skip.has(k)) continue;
    defined++;
    if (!deepEqual(v, b[k])) return false;
  }
  for (const k of Object.keys(b)) if (b[k] !== undefined && !skip.has(k)) defined--;
  return defined === 0;
}

/** Structural equality as JSON sees it: undefined members are absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (!Array.isArray(a)) return sameMembers(a as Record<string, unknown>, b as Record<string, unknown>);
  return sameItems(a, b as unknown[]);
}

function sameItems(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
  return true;
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export { formatTime as timestamp } from '@landscape/apimachinery';

export function newUid(): string {
  return randomUUID();
}

const GENERATE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

export function generateName(prefix: string, rand: () => number = Math.random): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_CHARS[Math.floor(rand() * GENERATE_CHARS.length)];
  return `${prefix}${suffix}`;
}

/** Built-in kinds that keep metadata.generation (the others, Services among them, never set it). */
const BUILTIN_GENERATION_KINDS = [
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'ReplicationController',
  'HorizontalPodAutoscaler',
  'CustomResourceDefinition',
] as const;

export function tracksGeneration(def: ResourceDef): boolean {
  return !def.builtin || (BUILTIN_GENERATION_KINDS as readonly string[]).includes(def.kind);
}

/**
 * Whether an update changes the desired state, which bumps generation: everything but metadata
 * (and status, where status is a subresource of its own); a Deployment's annotations count too,
 * as its registry strategy compares them.
 */
export function specChanged(def: ResourceDef, prev: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject): Record<string, unknown> => {
    const { metadata: _m, ...rest } = o;
    if (def.subresources.status) delete rest.status;
    return rest;
  };
  if (!deepEqual(strip(prev), strip(next))) return true;
  const annotationsCount = def.builtin && def.group === 'apps' && def.kind === 'Deployment';
  return annotationsCount && !deepEqual(prev.metadata.annotations ?? {}, next.metadata.annotations ?? {});
}

const METADATA: ReadonlySet<string> = new Set(['metadata']);
const SERVER_WRITTEN_EVERY_TIME: ReadonlySet<string> = new Set(['resourceVersion', 'managedFields']);

/** Equality that ignores the fields only the server sets on every write. */
export function sameContent(prev: KubeObject, next: KubeObject): boolean {
  const meta = (o: KubeObject): Record<string, unknown> => (o.metadata ?? {}) as Record<string, unknown>;
  return sameMembers(prev, next, METADATA) && sameMembers(meta(prev), meta(next), SERVER_WRITTEN_EVERY_TIME);
}

/**
 * `{ ...base, ...fields }`, the same keys in the same order. Node 20's V8 takes a slow path (about
 * 1–2 µs a call) for an object literal that spreads an object and then adds keys it lacks, as
 * `{ ...body.metadata, uid }` does on every write; copying first and assigning after does not.
 */
export function withFields<T extends object>(base: T, fields: Partial<T>): T {
  return Object.assign({}, base, fields);
}

/** Metadata an update may not change: carried over from the stored object. */
export function carryServerMeta(next: ObjectMeta, prev: ObjectMeta): ObjectMeta {
  const out = withFields(next, {
    uid: prev.uid,
    creationTimestamp: prev.creationTimestamp,
    name: prev.name,
    namespace: prev.namespace,
  });
  if (prev.deletionTimestamp) {
    out.deletionTimestamp = prev.deletionTimestamp;
    out.deletionGracePeriodSeconds = prev.deletionGracePeriodSeconds;
  } else {
    delete out.deletionTimestamp;
    delete out.deletionGracePeriodSeconds;
  }
  if (prev.generation !== undefined) out.generation = prev.generation;
  else delete out.generation;
  if (!prev.namespace) delete out.namespace;
  return out;
}

export function readPath(obj: unknown, jsonPath: string): unknown {
  let cur: unknown = obj;
  for (const part of jsonPath.replace(/^\./, '').split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Returns a copy of `obj` with the value at a `.a.b.c` path set (intermediate objects created). */
export function writePath<T extends object>(obj: T, jsonPath: string, value: unknown): T {
  const parts = jsonPath.replace(/^\./, '').split('.');
  const root = { ...(obj as Record<string, unknown>) };
  let cur = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const child = cur[parts[i]];
    const copy = typeof child === 'object' && child !== null ? { ...(child as Record<string, unknown>) } : {};
    cur[parts[i]] = copy;
    cur = copy;
  }
  cur[parts[parts.length - 1]] = value;
  return root as T;
}

/** Scale.status.selector from spec.selector: a LabelSelector, or a ReplicationController's label map (labels.SelectorFromSet). */
function specSelectorText(def: ResourceDef, obj: KubeObject): string | undefined {
  let specSelector = readPath(obj, '.spec.selector');
  if (def.group === '' && def.kind === 'ReplicationController') specSelector = { matchLabels: specSelector };
  const converted =
    specSelector && typeof specSelector === 'object' ? labelSelectorAsSelector(specSelector) : undefined;
  return converted?.ok ? converted.text : undefined;
}

/** The autoscaling/v1 Scale view of an object with a scale subresource. */
export function toScale(def: ResourceDef, obj: KubeObject): KubeObject {
  const scale = def.subresources.scale!;
  const m = obj.metadata;
  let selector = scale.labelSelectorPath ? readPath(obj, scale.labelSelectorPath) : undefined;
  if (typeof selector !== 'string') selector = specSelectorText(def, obj);
  const status: Record<string, unknown> = { replicas: Number(readPath(obj, scale.statusReplicasPath) ?? 0) };
  if (selector) status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: Number(readPath(obj, scale.specReplicasPath) ?? 0) },
    status,
  };
}

export function toPartialMetadata(obj: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}
