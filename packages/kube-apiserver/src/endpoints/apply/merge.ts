/**
 * Writing values through their schema: the merge of an apply configuration into the live object
 * (TypedValue.Merge: the configuration wins on leaves, maps merge by key, list-maps by item key,
 * sets by value, atomic nodes are replaced) and the removal of a set of paths (RemoveItems).
 */
import type { FieldSet } from './fieldset.js';
import { field, type PathElement } from './path.js';
import {
  entrySchema,
  itemElement,
  resolve,
  type ListType,
  type MapType,
  type Schema,
  type TypeContext,
} from './schema.js';
import { granular, indexItems } from './walk.js';
import { isRecord } from '@landscape/apimachinery';

function isEmptyish(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isRecord(v) && Object.keys(v).length === 0;
}

function mergeMap(ctx: TypeContext, t: MapType, l: unknown, r: unknown): unknown {
  const lm = isRecord(l) ? l : {};
  const rm = isRecord(r) ? r : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(lm)) out[k] = mergeValues(ctx, v, rm[k], entrySchema(t, k).schema);
  for (const [k, v] of Object.entries(rm)) if (!(k in lm)) out[k] = v;
  return out;
}

interface Indexed {
  order: string[];
  items: Map<string, { pe: PathElement; item: unknown }>;
}

function indexed(t: ListType, list: unknown): Indexed {
  const items = indexItems(t, list);
  return { order: [...items.keys()], items };
}

/**
 * A merged list keeps the live order when the configuration does not reorder shared items, and
 * follows the configuration's order for the items it names; live-only items stay in place.
 */
class ListMerge {
  private li = 0;
  private ri = 0;
  private readonly out: unknown[] = [];
  private readonly shared: string[];
  private next: string | undefined;

  constructor(
    private readonly ctx: TypeContext,
    private readonly t: ListType,
    private readonly lhs: Indexed,
    private readonly rhs: Indexed,
  ) {
    this.shared = rhs.order.filter((k) => lhs.items.has(k));
    this.next = this.shared.shift();
  }

  run(): unknown[] {
    while (this.li < this.lhs.order.length || this.ri < this.rhs.order.length) this.step();
    return this.out;
  }

  private emit(k: string): void {
    const l = this.lhs.items.get(k)?.item;
    this.out.push(mergeValues(this.ctx, l, this.rhs.items.get(k)?.item, this.t.items));
  }

  private step(): void {
    const lk = this.lhs.order[this.li];
    const rk = this.rhs.order[this.ri];
    if (lk !== undefined && rk !== undefined && this.pairStep(lk, rk)) return;
    if (lk !== undefined && !this.rhs.items.has(lk)) {
      this.emit(lk);
      this.li++;
      return;
    }
    if (rk === undefined) {
      this.li++; // a shared item the configuration already placed
      return;
    }
    this.emit(rk);
    this.ri++;
    if (this.next === rk) this.next = this.shared.shift();
  }

  /** Both sides have items left: take a shared item in step, or pass one the configuration moved. */
  private pairStep(lk: string, rk: string): boolean {
    if (lk === rk) {
      this.emit(lk);
      this.li++;
      this.ri++;
      this.next = this.shared.shift();
      return true;
    }
    if (this.rhs.items.has(lk) && this.next !== undefined && this.next !== lk) {
      this.li++;
      return true;
    }
    return false;
  }
}

export function mergeValues(ctx: TypeContext, l: unknown, r: unknown, schema: Schema): unknown {
  if (r === undefined) return l;
  if (l === undefined) return r;
  const t = resolve(ctx, schema, r !== null ? r : l);
  if (t.kind === 'scalar' || !granular(t, l, r)) return r;
  if (t.kind === 'map') return mergeMap(ctx, t, l, r);
  return new ListMerge(ctx, t, indexed(t, l), indexed(t, r)).run();
}

function removeFromMap(ctx: TypeContext, t: MapType, v: Record<string, unknown>, set: FieldSet): unknown {
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    const pe = field(k);
    if (val === undefined || set.hasMember(pe)) continue;
    const sub = set.child(pe);
    out[k] = sub ? removeItems(ctx, val, sub, entrySchema(t, k).schema) : val;
  }
  return Object.keys(out).length > 0 ? out : null;
}

function removeFromList(ctx: TypeContext, t: ListType, v: unknown[], set: FieldSet): unknown {
  const out: unknown[] = [];
  for (const item of v) {
    const pe = itemElement(t, item);
    if (typeof pe !== 'string' && set.hasMember(pe)) continue;
    const sub = typeof pe === 'string' ? undefined : set.child(pe);
    out.push(sub ? removeItems(ctx, item, sub, t.items) : item);
  }
  return out.length > 0 ? out : null;
}

/**
 * RemoveItems: the value without the paths of `set`. A map or list emptied on the way becomes
 * null, as structured-merge-diff leaves it (the server drops such nulls when it decodes).
 */
export function removeItems(ctx: TypeContext, v: unknown, set: FieldSet, schema: Schema): unknown {
  const t = resolve(ctx, schema, v);
  if (t.kind === 'scalar') return v;
  if (t.kind === 'map') {
    if (t.atomic || !isRecord(v) || isEmptyish(v)) return null;
    return removeFromMap(ctx, t, v, set);
  }
  if (t.listType === 'atomic' || !Array.isArray(v) || v.length === 0) return null;
  return removeFromList(ctx, t, v, set);
}
