/**
 * structured-merge-diff's Updater over one API version: who owns what after an update (the
 * writer takes what it changed; others lose it, and lose what was removed) and after an apply
 * (merge, re-own exactly the applied fields, prune what the applier stopped applying, then the
 * same ownership moves, refused as conflicts unless forced).
 */
import type { FieldSet } from './fieldset.js';
import type { Managed, VersionedSet } from './managed.js';
import { removeItems, mergeValues } from './merge.js';
import type { Path } from './path.js';
import type { Schema, TypeContext } from './schema.js';
import { compareObjects, excludeFields, fieldSetOf, isSame, type Comparison } from './walk.js';

export interface Conflict {
  /** The manager identifier (see managerId). */
  manager: string;
  path: Path;
}

/** merge.Conflicts: fields another manager owns that the operation would change. */
export class Conflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(`${conflicts.length} conflicts`);
    this.name = 'Conflicts';
  }
}

/** The schema-aware context every step needs. */
export interface Typed {
  ctx: TypeContext;
  schema: Schema;
  /** The API version sets are recorded at. */
  version: string;
  /** Reset fields: never owned, never conflicting (status on the main resource, and so on). */
  ignored: FieldSet;
}

function sortedIds(fields: Map<string, VersionedSet>): string[] {
  return [...fields.keys()].sort();
}

/** The fields each other manager owns among those the operation changes. */
function findConflicts(managed: Managed, workflow: string, changed: FieldSet): Map<string, FieldSet> {
  const conflicts = new Map<string, FieldSet>();
  for (const id of sortedIds(managed.fields)) {
    if (id === workflow) continue;
    const owned = managed.fields.get(id)!.set.intersection(changed);
    if (!owned.isEmpty()) conflicts.set(id, owned);
  }
  return conflicts;
}

/**
 * Updater.update: other managers lose the fields `workflow` changed (a conflict unless forced)
 * and the fields it removed; empty managers disappear.
 */
function moveOwnership(
  typed: Typed,
  live: unknown,
  next: unknown,
  managed: Managed,
  workflow: string,
  force: boolean,
): Comparison {
  const compare = excludeFields(compareObjects(typed.ctx, live, next, typed.schema), typed.ignored);
  const conflicts = findConflicts(managed, workflow, compare.modified.union(compare.added));
  if (!force && conflicts.size > 0) {
    throw new Conflicts(
      [...conflicts].flatMap(([manager, set]) => set.paths().map((path) => ({ manager, path }))),
    );
  }
  for (const [id, vs] of managed.fields) {
    if (id === workflow) continue;
    const lost = conflicts.get(id);
    const set = (lost ? vs.set.difference(lost) : vs.set).difference(compare.removed);
    if (set.isEmpty()) managed.fields.delete(id);
    else managed.fields.set(id, { ...vs, set });
  }
  return compare;
}

/** Updater.Update: `manager` gains what changed between live and next, minus what was removed. */
export function updateOwnership(
  typed: Typed,
  live: unknown,
  next: unknown,
  managed: Managed,
  manager: string,
): void {
  const compare = moveOwnership(typed, live, next, managed, manager, true);
  const prev = managed.fields.get(manager)?.set;
  let set = compare.modified.union(compare.added);
  if (prev) set = prev.union(set);
  set = set.difference(compare.removed).recursiveDifference(typed.ignored);
  if (set.isEmpty()) managed.fields.delete(manager);
  else managed.fields.set(manager, { set, apiVersion: typed.version, applied: false });
}

/**
 * Updater.prune: drops what the applier applied last time and not now, unless any manager
 * (including the applier's new configuration) owns it.
 */
function prune(typed: Typed, merged: unknown, managed: Managed, lastSet: FieldSet | undefined): unknown {
  if (!lastSet || lastSet.isEmpty()) return merged;
  const { ctx, schema } = typed;
  const mergedSet = fieldSetOf(ctx, merged, schema);
  let owned: FieldSet | undefined;
  for (const vs of managed.fields.values()) owned = owned ? owned.union(vs.set) : vs.set;
  const firstCut = removeItems(ctx, merged, lastSet, schema);
  const keep = fieldSetOf(ctx, firstCut, schema);
  const withOwned = removeItems(ctx, merged, mergedSet.difference(owned ? keep.union(owned) : keep), schema);
  const prunedSet = fieldSetOf(ctx, withOwned, schema);
  return removeItems(ctx, merged, mergedSet.difference(prunedSet).intersection(lastSet), schema);
}

export interface ApplyOutcome {
  /** The new object, or undefined when the apply changes nothing in it. */
  object: unknown;
}

/**
 * Updater.Apply: merges `config` into `live`, makes the applier's set exactly the configuration's
 * fields, prunes, and moves ownership (throws Conflicts unless `force`). `reset` puts back what
 * the registry strategy would reset (status, or all but status) before ownership is computed.
 */
export function applyOwnership(
  typed: Typed,
  live: unknown,
  config: unknown,
  managed: Managed,
  applier: string,
  force: boolean,
  reset: (merged: unknown) => unknown,
): ApplyOutcome {
  const merged = mergeValues(typed.ctx, live, config, typed.schema);
  const lastSet = managed.fields.get(applier)?.set;
  const set = fieldSetOf(typed.ctx, config, typed.schema).recursiveDifference(typed.ignored);
  managed.fields.set(applier, { set, apiVersion: typed.version, applied: true });
  const next = reset(prune(typed, merged, managed, lastSet));
  const compare = moveOwnership(typed, live, next, managed, applier, force);
  return { object: isSame(compare) ? undefined : next };
}
