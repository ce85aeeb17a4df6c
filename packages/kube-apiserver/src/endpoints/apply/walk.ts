/**
 * Reading values through their schema: the field set of an object (ToFieldSet, with the
 * validation errors the type converter raises for an apply configuration) and the comparison
 * of two objects (Compare: added, modified and removed paths).
 */
import { deepEqual } from '../../api/objects.js';
import { FieldSet } from './fieldset.js';
import { field, pathString, serializeElement, type Path, type PathElement } from './path.js';
import {
  entrySchema,
  itemElement,
  resolve,
  type ListType,
  type MapType,
  type Schema,
  type TypeContext,
} from './schema.js';
import { isRecord } from '@landscape/apimachinery';

class SetWalker {
  readonly set = new FieldSet();

  constructor(
    private readonly ctx: TypeContext,
    private readonly errors?: string[],
  ) {}

  walk(v: unknown, schema: Schema, path: Path): void {
    const t = resolve(this.ctx, schema, v);
    if (t.kind === 'scalar') this.set.insert(path);
    else if (t.kind === 'map') this.walkMap(t, v, path);
    else this.walkList(t, v, path);
  }

  private walkMap(t: MapType, v: unknown, path: Path): void {
    if (t.atomic) {
      this.set.insert(path);
      return;
    }
    if (!isRecord(v)) return;
    for (const [k, child] of Object.entries(v)) {
      if (child === undefined) continue;
      const entry = entrySchema(t, k);
      const p = [...path, field(k)];
      if (!entry.known && this.errors) {
        this.errors.push(`${pathString(p)}: field not declared in schema`);
        continue;
      }
      this.walk(child, entry.schema, p);
      if (!entry.declared) this.set.insert(p);
    }
  }

  private walkList(t: ListType, v: unknown, path: Path): void {
    if (t.listType === 'atomic') {
      this.set.insert(path);
      return;
    }
    if (!Array.isArray(v)) return;
    const seen = new Set<string>();
    for (const [i, item] of v.entries()) {
      const pe = itemElement(t, item);
      if (typeof pe === 'string') {
        if (!this.errors) continue;
        this.errors.push(`${pathString(path)}: element ${i}: ${pe}`);
        return;
      }
      this.checkDuplicate(seen, pe, path);
      this.walk(item, t.items, [...path, pe]);
      this.set.insert([...path, pe]);
    }
  }

  private checkDuplicate(seen: Set<string>, pe: PathElement, path: Path): void {
    const k = serializeElement(pe);
    if (seen.has(k) && this.errors) {
      this.errors.push(`${pathString(path)}: duplicate entries for key ${pathString([pe])}`);
    }
    seen.add(k);
  }
}

/**
 * Every leaf, list item and map entry of `value` (ToFieldSet). With `errors`, also validates as
 * the apply configuration is validated: undeclared fields, list items without their keys,
 * duplicate keys.
 */
export function fieldSetOf(ctx: TypeContext, value: unknown, schema: Schema, errors?: string[]): FieldSet {
  const w = new SetWalker(ctx, errors);
  w.walk(value, schema, []);
  return w.set;
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

function isEmptyish(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isRecord(v) && Object.values(v).every((x) => x === undefined);
}

function holds(kind: 'map' | 'list', v: unknown): boolean {
  if (v === undefined || v === null) return true;
  return kind === 'list' ? Array.isArray(v) : isRecord(v);
}

/**
 * Whether a node is walked into, by the comparison and by the merge of an apply: a granular map or
 * list, the right shape on both sides, with content on one side at least. Otherwise the node is a
 * whole (the applied configuration's replaces the live one).
 */
export function granular(t: MapType | ListType, l: unknown, r: unknown): boolean {
  const atomic = t.kind === 'map' ? t.atomic : t.listType === 'atomic';
  if (atomic || !holds(t.kind, l) || !holds(t.kind, r)) return false;
  return !(isEmptyish(l) && isEmptyish(r));
}

/** Items of a non-atomic list by element (first occurrence wins, unkeyable items skipped). */
export function indexItems(t: ListType, list: unknown): Map<string, { pe: PathElement; item: unknown }> {
  const out = new Map<string, { pe: PathElement; item: unknown }>();
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    const pe = itemElement(t, item);
    if (typeof pe === 'string') continue;
    const k = serializeElement(pe);
    if (!out.has(k)) out.set(k, { pe, item });
  }
  return out;
}

class CompareWalker {
  readonly result: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };

  constructor(private readonly ctx: TypeContext) {}

  walk(l: unknown, r: unknown, schema: Schema, path: Path): void {
    const t = resolve(this.ctx, schema, r !== undefined && r !== null ? r : l);
    if (t.kind === 'scalar' || !granular(t, l, r)) {
      this.leaf(l, r, path);
      return;
    }
    if (t.kind === 'map') this.walkMap(t, l, r, path);
    else this.walkList(t, l, r, path);
    if (l === undefined) this.result.added.insert(path);
    else if (r === undefined) this.result.removed.insert(path);
  }

  private leaf(l: unknown, r: unknown, path: Path): void {
    if (l === undefined) {
      if (r !== undefined) this.result.added.insert(path);
    } else if (r === undefined) this.result.removed.insert(path);
    else if (!deepEqual(l, r)) this.result.modified.insert(path);
  }

  private walkMap(t: MapType, l: unknown, r: unknown, path: Path): void {
    const lm = isRecord(l) ? l : {};
    const rm = isRecord(r) ? r : {};
    const keys = new Set([...Object.keys(lm), ...Object.keys(rm)]);
    for (const k of keys) {
      if (lm[k] === undefined && rm[k] === undefined) continue;
      this.walk(lm[k], rm[k], entrySchema(t, k).schema, [...path, field(k)]);
    }
  }

  private walkList(t: ListType, l: unknown, r: unknown, path: Path): void {
    const li = indexItems(t, l);
    const ri = indexItems(t, r);
    for (const [k, { pe, item }] of li) this.walk(item, ri.get(k)?.item, t.items, [...path, pe]);
    for (const [k, { pe, item }] of ri) if (!li.has(k)) this.walk(undefined, item, t.items, [...path, pe]);
  }
}

/** Compare(lhs, rhs): paths rhs added, changed, or removed. */
export function compareObjects(ctx: TypeContext, lhs: unknown, rhs: unknown, schema: Schema): Comparison {
  const w = new CompareWalker(ctx);
  w.walk(lhs, rhs, schema, []);
  return w.result;
}

/** Comparison.ExcludeFields: drops ignored (reset) fields and everything below them. */
export function excludeFields(c: Comparison, ignored: FieldSet): Comparison {
  if (ignored.isEmpty()) return c;
  return {
    added: c.added.recursiveDifference(ignored),
    modified: c.modified.recursiveDifference(ignored),
    removed: c.removed.recursiveDifference(ignored),
  };
}

export function isSame(c: Comparison): boolean {
  return c.added.isEmpty() && c.modified.isEmpty() && c.removed.isEmpty();
}
