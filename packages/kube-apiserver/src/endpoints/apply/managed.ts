/**
 * managedFields in both forms: the wire entries of `metadata.managedFields` and the decoded
 * per-manager field sets keyed by manager identifier (the entry without time and fields, and
 * without apiVersion for appliers, as JSON), with their timestamps. Decoding, encoding and
 * sorting as k8s.io/apimachinery's managedfields package does, and the cap on Update managers.
 */
import { timestamp } from '../../api/objects.js';
import { FieldSet } from './fieldset.js';
import { field, type Path } from './path.js';

export type Operation = 'Apply' | 'Update';

/** metav1.ManagedFieldsEntry on the wire (key order as Go marshals it). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

export interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
}

export interface ManagerInfo {
  manager: string;
  operation: Operation;
  apiVersion?: string;
  subresource?: string;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

/** BuildManagerIdentifier: the JSON of the entry's identity (omitempty fields left out). */
export function managerId(info: ManagerInfo): string {
  const id: Record<string, string> = {};
  if (info.manager) id.manager = info.manager;
  id.operation = info.operation;
  if (info.operation === 'Update' && info.apiVersion) id.apiVersion = info.apiVersion;
  if (info.subresource) id.subresource = info.subresource;
  return JSON.stringify(id);
}

/** Parsed identifiers: a server sees few managers, and every write encodes each entry again. */
const parsedIds = new Map<string, Readonly<ManagerInfo>>();

/** The identity an identifier spells (the same object for the same text: do not modify it). */
export function parseManagerId(id: string): Readonly<ManagerInfo> {
  let info = parsedIds.get(id);
  if (info === undefined) {
    info = JSON.parse(id) as ManagerInfo;
    if (parsedIds.size >= 256) parsedIds.clear();
    parsedIds.set(id, info);
  }
  return info;
}

const ENTRY_CHECKS: ((e: Record<string, unknown>, i: number) => string | undefined)[] = [
  (e) =>
    e.operation === 'Apply' || e.operation === 'Update' ? undefined : 'operation must be `Apply` or `Update`',
  (e) =>
    typeof e.apiVersion === 'string' && e.apiVersion !== '' ? undefined : 'apiVersion must not be empty',
  (e, i) =>
    e.fieldsType === undefined || e.fieldsType === ''
      ? `missing fieldsType in managed fields entry ${i}`
      : undefined,
  (e, i) =>
    e.fieldsType === 'FieldsV1'
      ? undefined
      : `invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`,
];

function entryError(raw: unknown, i: number): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return 'managed fields entries must be objects';
  for (const check of ENTRY_CHECKS) {
    const err = check(raw as Record<string, unknown>, i);
    if (err) return err;
  }
  return undefined;
}

/** DecodeManagedFields; throws an Error worded as the Go function's on an invalid entry. */
export function decodeManaged(entries: unknown): Managed {
  const managed = emptyManaged();
  if (!Array.isArray(entries)) return managed;
  entries.forEach((raw: unknown, i) => {
    const err = entryError(raw, i);
    if (err) throw new Error(err);
    const e = raw as ManagedFieldsEntry;
    const id = managerId({
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: typeof e.subresource === 'string' ? e.subresource : undefined,
    });
    managed.fields.set(id, {
      set: FieldSet.fromFieldsV1(e.fieldsV1 ?? {}),
      apiVersion: e.apiVersion,
      applied: e.operation === 'Apply',
    });
    managed.times.set(id, normalizeTime(e.time, i));
  });
  return managed;
}

/** The last time normalized (none yet): the entries a server decodes mostly carry the times it wrote. */
let lastTime: { given?: string; normalized: string } = { normalized: '' };

/** metav1.Time as Go reads and writes it: any RFC 3339 time, written back in UTC to the second. */
function normalizeTime(time: unknown, i: number): string | undefined {
  if (time === undefined || time === null) return undefined;
  if (time === lastTime.given) return lastTime.normalized;
  const ms = typeof time === 'string' ? Date.parse(time) : Number.NaN;
  if (Number.isNaN(ms)) throw new Error(`invalid time in managed fields entry ${i}`);
  lastTime = { given: time as string, normalized: timestamp(new Date(ms)) };
  return lastTime.normalized;
}

/** decodeManaged, or nothing when the entries do not decode. */
export function tryDecodeManaged(entries: unknown): Managed | undefined {
  try {
    return decodeManaged(entries);
  } catch {
    return undefined;
  }
}

function seconds(time: string | undefined): number {
  if (!time) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** sortEncodedManagedFields: operation, then time, manager, apiVersion, subresource. */
export function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  return (
    compareStrings(p.operation, q.operation) ||
    seconds(p.time) - seconds(q.time) ||
    compareStrings(p.manager ?? '', q.manager ?? '') ||
    compareStrings(p.apiVersion, q.apiVersion) ||
    compareStrings(p.subresource ?? '', q.subresource ?? '')
  );
}

function encodeEntry(id: string, vs: VersionedSet, time: string | undefined): ManagedFieldsEntry {
  const info = parseManagerId(id);
  const entry: ManagedFieldsEntry = {
    manager: info.manager,
    operation: vs.applied ? 'Apply' : info.operation,
    apiVersion: vs.apiVersion,
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: vs.set.toFieldsV1(),
    subresource: info.subresource,
  };
  for (const k of ['manager', 'time', 'subresource'] as const) if (entry[k] === undefined) delete entry[k];
  return entry;
}

/** The wire entries, sorted; empty when no manager owns anything. */
export function encodeManaged(managed: Managed): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) out.push(encodeEntry(id, vs, managed.times.get(id)));
  return out.sort(compareEntries);
}

const md = (name: string): Path => [field('metadata'), field(name)];

/** Fields the stripMeta manager never records as owned. */
const STRIPPED = FieldSet.of(
  [field('apiVersion')],
  [field('kind')],
  [field('metadata')],
  md('name'),
  md('namespace'),
  md('creationTimestamp'),
  md('selfLink'),
  md('uid'),
  md('clusterName'),
  md('generation'),
  md('managedFields'),
  md('resourceVersion'),
);

/** stripMetaManager: the manager's set without server-owned metadata; dropped when it empties. */
export function stripMeta(managed: Managed, id: string): void {
  const vs = managed.fields.get(id);
  if (!vs) return;
  const set = vs.set.difference(STRIPPED);
  if (set.isEmpty()) managed.fields.delete(id);
  else managed.fields.set(id, { ...vs, set });
}

export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT = 'ancient-changes';

/** capManagersManager: beyond ten Update managers, the oldest merge into `ancient-changes` per version. */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort(
    (a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || compareStrings(a, b),
  );
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i];
    const vs = managed.fields.get(id)!;
    const bucket = managerId({ manager: ANCIENT, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      managed.fields.set(bucket, managed.fields.get(first)!);
      managed.fields.delete(first);
    }
    const into = managed.fields.get(bucket)!;
    managed.fields.set(bucket, {
      set: vs.set.union(into.set),
      apiVersion: vs.apiVersion,
      applied: vs.applied,
    });
    managed.fields.delete(id);
    managed.times.set(bucket, managed.times.get(id));
    length--;
  }
}
