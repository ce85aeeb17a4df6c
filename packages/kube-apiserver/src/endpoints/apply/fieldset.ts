/**
 * A set of field paths as a trie (fieldpath.Set): at each node, the elements that are members
 * (paths in the set) and the child sets below elements. Set algebra, ordered iteration, and the
 * fieldsV1 encoding of managedFields entries.
 */
import { compareElements, parseElement, serializeElement, type Path, type PathElement } from './path.js';

interface Child {
  pe: PathElement;
  set: FieldSet;
}

function byElement<T extends { pe: PathElement }>(a: T, b: T): number {
  return compareElements(a.pe, b.pe);
}

export class FieldSet {
  private readonly members = new Map<string, PathElement>();
  private readonly children = new Map<string, Child>();

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    const last = path[path.length - 1];
    FieldSet.nodeAt(this, path.slice(0, -1), true)!.members.set(serializeElement(last), last);
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    const node = FieldSet.nodeAt(this, path.slice(0, -1), false);
    return node?.members.has(serializeElement(path[path.length - 1])) ?? false;
  }

  /** The set below `prefix` (created on the way when `create`). */
  private static nodeAt(root: FieldSet, prefix: Path, create: boolean): FieldSet | undefined {
    let node = root;
    for (const pe of prefix) {
      const k = serializeElement(pe);
      let child = node.children.get(k);
      if (!child) {
        if (!create) return undefined;
        child = { pe, set: new FieldSet() };
        node.children.set(k, child);
      }
      node = child.set;
    }
    return node;
  }

  hasMember(pe: PathElement): boolean {
    return this.members.has(serializeElement(pe));
  }

  /** The paths below `pe` (WithPrefix), undefined when there are none. */
  child(pe: PathElement): FieldSet | undefined {
    return this.children.get(serializeElement(pe))?.set;
  }

  isEmpty(): boolean {
    if (this.members.size > 0) return false;
    for (const c of this.children.values()) if (!c.set.isEmpty()) return false;
    return true;
  }

  private addChild(k: string, pe: PathElement, set: FieldSet): void {
    if (!set.isEmpty()) this.children.set(k, { pe, set });
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of [...this.members, ...other.members]) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      out.addChild(k, c.pe, o ? c.set.union(o.set) : c.set);
    }
    for (const [k, c] of other.children) if (!this.children.has(k)) out.addChild(k, c.pe, c.set);
    return out;
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      out.addChild(k, c.pe, o ? c.set.difference(o.set) : c.set);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      if (o) out.addChild(k, c.pe, c.set.intersection(o.set));
    }
    return out;
  }

  /** Removes every path of `other` and everything below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (other.members.has(k)) continue;
      const o = other.children.get(k);
      out.addChild(k, c.pe, o ? c.set.recursiveDifference(o.set) : c.set);
    }
    return out;
  }

  /** Every path, in structured-merge-diff's order: a node's members first, then its children. */
  paths(prefix: Path = []): Path[] {
    const out: Path[] = [...this.members.values()].sort(compareElements).map((pe) => [...prefix, pe]);
    for (const c of [...this.children.values()].sort(byElement)) out.push(...c.set.paths([...prefix, c.pe]));
    return out;
  }

  /** The fieldsV1 object: keys in element order, `.` first where a path is a member and has children. */
  toFieldsV1(): Record<string, unknown> {
    const entries = new Map<string, { pe: PathElement; member: boolean; set?: FieldSet }>();
    for (const [k, pe] of this.members) entries.set(k, { pe, member: true });
    for (const [k, c] of this.children) {
      if (c.set.isEmpty()) continue;
      entries.set(k, { pe: c.pe, member: this.members.has(k), set: c.set });
    }
    const out: Record<string, unknown> = {};
    for (const [k, e] of [...entries].sort((a, b) => compareElements(a[1].pe, b[1].pe))) {
      const inner = e.set ? e.set.toFieldsV1() : {};
      out[k] = e.member && e.set ? { '.': {}, ...inner } : inner;
    }
    return out;
  }

  /** Decodes fieldsV1; throws on a malformed document. */
  static fromFieldsV1(doc: unknown): FieldSet {
    const set = new FieldSet();
    FieldSet.read(doc, set);
    return set;
  }

  /** Reads one fieldsV1 object into `into`; true when the node is (also) a member of its parent. */
  private static read(doc: unknown, into: FieldSet): boolean {
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
      throw new Error('fieldsV1 nodes must be objects');
    }
    let member = false;
    let hasChildren = false;
    for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
      if (k === '.') {
        member = true;
        continue;
      }
      const pe = parseElement(k);
      if (!pe) continue;
      hasChildren = true;
      const sub = new FieldSet();
      const key = serializeElement(pe);
      if (FieldSet.read(v, sub)) into.members.set(key, pe);
      into.addChild(key, pe, sub);
    }
    return member || !hasChildren;
  }
}
