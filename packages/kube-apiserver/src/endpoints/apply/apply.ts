/**
 * Server-side apply and managedFields tracking, as the Kubernetes 1.32 field manager chain does
 * them (version check, last-applied upgrade and sync for `kubectl`, tracking from the first
 * write, the cap of ten Update managers, timestamps, metadata stripping, structured merge).
 *
 * - applyPatch: the object an apply patch produces, with its managedFields, or a Status error
 *   (409 conflicts, 400 bad requests, 500 for configurations the type converter refuses).
 * - trackUpdate: the managedFields after any other write (create, update, patch).
 */
import { notFound } from '../../api/errors.js';
import { timestamp } from '../../api/objects.js';
import { apiVersionOf } from '../../registry/kinds.js';
import type { KubeObject, ResourceDef } from '../../api/types.js';
import {
  ApplyConflictError,
  invalidObjectType,
  managedFieldsMustBeNil,
  PlainServerError,
  typedPatchError,
} from './errors.js';
import { FieldSet } from './fieldset.js';
import { allowedFromLastApplied, KUBECTL_MANAGER, syncLastApplied } from './lastapplied.js';
import {
  capUpdateManagers,
  decodeManaged,
  emptyManaged,
  encodeManaged,
  managerId,
  stripMeta,
  tryDecodeManaged,
  type Managed,
  type ManagedFieldsEntry,
} from './managed.js';
import { field } from './path.js';
import {
  contextOf,
  entrySchema,
  gvkString,
  resolve,
  rootSchema,
  type Schema,
  type TypeContext,
} from './schema.js';
import { applyOwnership, Conflicts, updateOwnership, type Typed } from './updater.js';
import { fieldSetOf } from './walk.js';
import { zeroObject } from './zero.js';
import { isRecord } from '@landscape/apimachinery';

export interface ApplyPatchOptions {
  manager: string;
  force: boolean;
  now: Date;
  subresource?: 'status';
}

export interface TrackUpdateOptions {
  manager: string;
  operation: 'Update';
  now: Date;
  /** 'status', 'scale', ...: recorded on the entry; a status write owns only status. */
  subresource?: string;
}

/** The manager the field manager uses internally to see what an update changed. */
const CURRENT_OPERATION = 'current-operation';
const BEFORE_FIRST_APPLY = 'before-first-apply';

function withoutManagedFields(obj: KubeObject): KubeObject {
  const { managedFields: _m, ...metadata } = obj.metadata ?? {};
  return { ...obj, metadata };
}

/** Reset fields: what a write to this endpoint may not change (status, or all but status). */
function ignoredFields(def: ResourceDef, subresource: string | undefined, objects: unknown[]): FieldSet {
  if (subresource === 'status') {
    const names = new Set(Object.keys(rootSchema(def).properties ?? {}));
    for (const o of objects) if (isRecord(o)) for (const k of Object.keys(o)) names.add(k);
    names.delete('status');
    return FieldSet.of(...[...names].map((n) => [field(n)]));
  }
  return def.subresources.status ? FieldSet.of([field('status')]) : new FieldSet();
}

function typedFor(def: ResourceDef, subresource: string | undefined, objects: unknown[]): Typed {
  return {
    ctx: contextOf(def),
    schema: rootSchema(def),
    version: apiVersionOf(def),
    ignored: ignoredFields(def, subresource, objects),
  };
}

function copyManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

/** managedFieldsUpdater + stripMeta around Updater.Update: the writer's entry gains what changed. */
function recordUpdate(
  typed: Typed,
  live: unknown,
  next: unknown,
  managed: Managed,
  id: string,
  now: Date,
): void {
  updateOwnership(typed, live, next, managed, CURRENT_OPERATION);
  stripMeta(managed, CURRENT_OPERATION);
  const taken = managed.fields.get(CURRENT_OPERATION);
  if (!taken) return;
  managed.fields.delete(CURRENT_OPERATION);
  const previous = managed.fields.get(id);
  managed.fields.set(id, {
    set: previous ? taken.set.union(previous.set) : taken.set,
    apiVersion: taken.apiVersion,
    applied: false,
  });
  managed.times.set(id, timestamp(now));
}

/** decodeLiveOrNew: the request's managedFields (an empty list or `[{}]` resets them), else the live ones. */
function baseManaged(
  prev: KubeObject | undefined,
  next: KubeObject,
  subresource: string | undefined,
): Managed {
  const live = (): Managed => tryDecodeManaged(prev?.metadata.managedFields) ?? emptyManaged();
  if (subresource) return live();
  const given = next.metadata.managedFields;
  if (isReset(given)) return emptyManaged();
  const decoded = tryDecodeManaged(given);
  return decoded && decoded.fields.size > 0 ? decoded : live();
}

function isReset(given: unknown): boolean {
  if (!Array.isArray(given)) return false;
  if (given.length === 0) return true;
  if (given.length > 1 || !isRecord(given[0])) return false;
  return Object.values(given[0]).every((v) => v === undefined || v === null || v === '');
}

/**
 * managedFields after a create (`prev` undefined), update or non-apply patch by `opts.manager`.
 * An empty result means the object has none (omit `metadata.managedFields`).
 */
export function trackUpdate(
  def: ResourceDef,
  prev: KubeObject | undefined,
  next: KubeObject,
  opts: TrackUpdateOptions,
): ManagedFieldsEntry[] {
  const managed = copyManaged(baseManaged(prev, next, opts.subresource));
  // tracking starts at creation: an existing object without managedFields stays without
  if (managed.fields.size === 0 && prev?.metadata.uid) return [];
  const live = prev ? withoutManagedFields(prev) : zeroObject(def);
  const after = withoutManagedFields(next);
  const typed = typedFor(def, opts.subresource, [live, after]);
  const id = managerId({
    manager: opts.manager,
    operation: 'Update',
    apiVersion: typed.version,
    subresource: opts.subresource,
  });
  recordUpdate(typed, live, after, managed, id, opts.now);
  capUpdateManagers(managed);
  return encodeManaged(managed);
}

function checkApplied(def: ResourceDef, applied: KubeObject): void {
  if (applied.apiVersion !== apiVersionOf(def) || applied.kind !== def.kind) {
    throw invalidObjectType(gvkString(String(applied.apiVersion ?? ''), String(applied.kind ?? '')));
  }
  const given = applied.metadata?.managedFields as unknown;
  if (given !== undefined && given !== null) throw managedFieldsMustBeNil();
}

function gvknn(applied: KubeObject): string {
  const { namespace = '', name = '' } = applied.metadata ?? {};
  return `${namespace}/${name}; ${gvkString(applied.apiVersion, applied.kind)}`;
}

function liveManaged(current: KubeObject | undefined): Managed {
  if (!current) return emptyManaged();
  try {
    return decodeManaged(current.metadata.managedFields);
  } catch (e) {
    throw new PlainServerError(`failed to decode managed fields: ${(e as Error).message}`);
  }
}

/** What the registry strategy keeps from the live object: its status, or all but status. */
function resetter(
  def: ResourceDef,
  live: KubeObject,
  subresource: string | undefined,
): (o: unknown) => unknown {
  const withStatus = (base: KubeObject, status: unknown): KubeObject => {
    const { status: _s, ...rest } = base;
    return status === undefined ? rest : { ...rest, status };
  };
  if (subresource === 'status') return (o) => withStatus(live, (o as KubeObject).status);
  if (def.subresources.status) return (o) => withStatus(o as KubeObject, live.status);
  return (o) => o;
}

interface ApplyRun {
  def: ResourceDef;
  typed: Typed;
  live: KubeObject;
  applied: KubeObject;
  applier: string;
  opts: ApplyPatchOptions;
}

/** managedFieldsUpdater + stripMeta + capManagers around Updater.Apply. */
function applyOnce(run: ApplyRun, base: Managed, force: boolean): { object: KubeObject; managed: Managed } {
  const managed = copyManaged(base);
  const reset = resetter(run.def, run.live, run.opts.subresource);
  const outcome = applyOwnership(run.typed, run.live, run.applied, managed, run.applier, force, reset);
  stripMeta(managed, run.applier);
  if (outcome.object !== undefined) managed.times.set(run.applier, timestamp(run.opts.now));
  capUpdateManagers(managed);
  return { object: (outcome.object ?? run.live) as KubeObject, managed };
}

/** lastAppliedManager: `kubectl` may take over fields it last applied with client-side apply. */
function applyAllowingUpgrade(run: ApplyRun, base: Managed): { object: KubeObject; managed: Managed } {
  try {
    return applyOnce(run, base, run.opts.force);
  } catch (e) {
    if (!(e instanceof Conflicts)) throw e;
    const allowed =
      run.opts.manager === KUBECTL_MANAGER ? allowedFromLastApplied(run.def, run.live) : undefined;
    const remaining = allowed ? e.conflicts.filter((c) => !allowed.has(c.path)) : e.conflicts;
    if (remaining.length > 0) throw new ApplyConflictError(remaining);
    return applyOnce(run, base, true);
  }
}

/**
 * The object a server-side apply of `applied` by `opts.manager` produces from `current`
 * (undefined: the apply creates it), with metadata.managedFields set. The result still needs
 * the server's decoding (defaults, validation) and write-time metadata, and must be stored with
 * these managedFields as they are (no trackUpdate for applies).
 */
export function applyPatch(
  def: ResourceDef,
  current: KubeObject | undefined,
  applied: KubeObject,
  opts: ApplyPatchOptions,
): { object: KubeObject } {
  checkApplied(def, applied);
  if (!current && opts.subresource) {
    throw notFound({ group: def.group, resource: def.plural }, applied.metadata?.name ?? '');
  }
  const live = current ? withoutManagedFields(current) : ({} as KubeObject);
  let managed = liveManaged(current);
  const typed = typedFor(def, opts.subresource, [live, applied]);
  const errors: string[] = [];
  fieldSetOf(typed.ctx, applied, typed.schema, errors);
  if (errors.length > 0) throw typedPatchError(gvknn(applied), errors);
  if (current && managed.fields.size === 0) {
    managed = copyManaged(managed);
    const id = managerId({
      manager: BEFORE_FIRST_APPLY,
      operation: 'Update',
      apiVersion: typed.version,
      subresource: opts.subresource,
    });
    recordUpdate(typed, zeroObject(def), live, managed, id, opts.now);
    capUpdateManagers(managed);
  }
  const applier = managerId({ manager: opts.manager, operation: 'Apply', subresource: opts.subresource });
  const run: ApplyRun = { def, typed, live, applied: structuredClone(applied), applier, opts };
  const result = applyAllowingUpgrade(run, managed);
  const object = dropNulls(
    typed.ctx,
    syncLastApplied(opts.manager, result.object, applied),
    typed.schema,
  ) as KubeObject;
  const entries = encodeManaged(result.managed);
  if (entries.length > 0) object.metadata = { ...object.metadata, managedFields: entries };
  return { object };
}

/** Nulls the merge left where the schema does not allow them go away, as decoding drops them. */
function dropNulls(ctx: TypeContext, v: unknown, schema: Schema): unknown {
  if (Array.isArray(v)) {
    const t = resolve(ctx, schema, v);
    const items = t.kind === 'list' ? t.items : undefined;
    return v.map((item) => dropNulls(ctx, item, items));
  }
  if (!isRecord(v)) return v;
  const t = resolve(ctx, schema, v);
  const out: Record<string, unknown> = {};
  for (const [k, child] of Object.entries(v)) {
    const s = t.kind === 'map' ? entrySchema(t, k).schema : undefined;
    if (child === null && !s?.nullable) continue;
    out[k] = dropNulls(ctx, child, s);
  }
  return out;
}
