/**
 * meta.k8s.io Tables, as a Kubernetes 1.32 API server answers a get/list/watch asked with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` (what kubectl get sends): column
 * definitions, one row of cells per object (all columns, priority 1 included: kubectl hides those
 * without -o wide), and per row the object as the includeObject query parameter asks.
 *
 * Built-in kinds compute their cells as pkg/printers/internalversion/printers.go does; custom
 * resources evaluate their additionalPrinterColumns as apiextensions-apiserver's table convertor.
 */
import { badRequest } from '../../api/errors.js';
import type { KubeObject, PrinterColumn, ResourceDef } from '../../api/types.js';
import { BUILTIN_COLUMNS, DEFAULT_CONVERTOR_KINDS } from './builtin.js';
import { nameColumn, type BuiltinColumn, type CellContext } from './columns.js';
import { crdCell, crdColumnDefinition, DEFAULT_CRD_COLUMNS, type ColumnDefinition } from './crd.js';
import { podRowConditions } from './printers-pod.js';

export type { ColumnDefinition } from './crd.js';
export { humanDuration } from './format.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';
export type TableGroupVersion = 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';

export interface TableOptions {
  /** The time ages are computed against. */
  now: Date;
  /** From the includeObject query parameter (see parseIncludeObject); Metadata by default. */
  includeObject: IncludeObject;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  /** Watch events after the first one carry no column definitions (`columnDefinitions: null`). */
  noHeaders?: boolean;
  /** The Table version negotiated from Accept (see tableGroupVersion); meta.k8s.io/v1 by default. */
  groupVersion?: TableGroupVersion;
}

interface ColumnPlan {
  definition: ColumnDefinition;
  cell: (obj: KubeObject, ctx: CellContext) => unknown;
}

function builtinPlan(known: BuiltinColumn, name: string, priority: number | undefined): ColumnPlan {
  const definition = {
    name,
    type: known.type,
    format: known.format ?? '',
    description: known.description,
    priority: priority ?? 0,
  };
  return { definition, cell: known.cell };
}

function jsonPathPlan(col: PrinterColumn): ColumnPlan {
  const cell = crdCell(col);
  return { definition: crdColumnDefinition(col), cell: (obj, ctx) => cell(obj, ctx.now) };
}

/** The leading Name column, implied by every kind but Event (whose def lists Name itself). */
function leadingName(def: ResourceDef): ColumnPlan[] {
  if (def.builtin && def.printerColumns.some((c) => c.name === 'Name')) return [];
  return [builtinPlan(nameColumn, 'Name', 0)];
}

/** The columns of a kind: built-in columns computed in code, the others (and CRDs') by JSONPath. */
export function columnPlan(def: ResourceDef): ColumnPlan[] {
  const columns = !def.builtin && def.printerColumns.length === 0 ? DEFAULT_CRD_COLUMNS : def.printerColumns;
  const known = def.builtin ? (BUILTIN_COLUMNS[def.kind] ?? {}) : {};
  const plans = columns.map((col) =>
    Object.hasOwn(known, col.name) ? builtinPlan(known[col.name], col.name, col.priority) : jsonPathPlan(col),
  );
  return [...leadingName(def), ...plans];
}

function rowObject(obj: KubeObject, opts: TableOptions): unknown {
  if (opts.includeObject === 'None') return null;
  if (opts.includeObject === 'Object') return obj;
  const apiVersion = opts.groupVersion ?? 'meta.k8s.io/v1';
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
}

function row(
  def: ResourceDef,
  plans: ColumnPlan[],
  obj: KubeObject,
  opts: TableOptions,
): Record<string, unknown> {
  const ctx: CellContext = { now: opts.now };
  const out: Record<string, unknown> = { cells: plans.map((p) => p.cell(obj, ctx)) };
  const conditions = def.builtin && def.kind === 'Pod' ? podRowConditions(obj) : undefined;
  if (conditions) out.conditions = conditions;
  out.object = rowObject(obj, opts);
  return out;
}

function listMeta(opts: TableOptions): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (opts.resourceVersion) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue) metadata.continue = opts.continue;
  if (opts.remainingItemCount !== undefined) metadata.remainingItemCount = opts.remainingItemCount;
  return metadata;
}

/**
 * The Table for `objects` (one object for a get or a watch event, the page for a list). The
 * result is plain JSON data; row objects are the given objects (and metadata), not copies.
 */
export function toTable(
  def: ResourceDef,
  objects: KubeObject[],
  opts: TableOptions,
): Record<string, unknown> {
  const plans = columnPlan(def);
  const rows = objects.map((o) => row(def, plans, o, opts));
  const emptyAsNull = rows.length === 0 && def.builtin && DEFAULT_CONVERTOR_KINDS.has(def.kind);
  return {
    kind: 'Table',
    apiVersion: opts.groupVersion ?? 'meta.k8s.io/v1',
    metadata: listMeta(opts),
    columnDefinitions: opts.noHeaders ? null : plans.map((p) => p.definition),
    rows: emptyAsNull ? null : rows,
  };
}

/** The `object` of one watch event: a one-row Table; only the first event has column definitions. */
export function toWatchTable(
  def: ResourceDef,
  obj: KubeObject,
  opts: Omit<TableOptions, 'resourceVersion' | 'continue' | 'remainingItemCount' | 'noHeaders'>,
  first: boolean,
): Record<string, unknown> {
  return toTable(def, [obj], { ...opts, resourceVersion: obj.metadata.resourceVersion, noHeaders: !first });
}

const INCLUDE_OBJECT: readonly string[] = ['None', 'Metadata', 'Object'];

/** The includeObject query parameter (Metadata when absent or empty); 400 for anything else. */
export function parseIncludeObject(value: string | null | undefined): IncludeObject {
  if (value === null || value === undefined || value === '') return 'Metadata';
  if (INCLUDE_OBJECT.includes(value)) return value as IncludeObject;
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: ` +
      `must be 'Metadata', 'Object', 'None', or empty`,
  );
}

/** The Table version of the first `as=Table;g=meta.k8s.io;v=v1|v1beta1` clause of Accept. */
export function tableGroupVersion(accept: string | undefined): TableGroupVersion {
  for (const clause of (accept ?? '').split(',')) {
    const params = new Map(
      clause
        .split(';')
        .slice(1)
        .map((p) => p.trim().split('=') as [string, string]),
    );
    if (params.get('as') !== 'Table' || params.get('g') !== 'meta.k8s.io') continue;
    const v = params.get('v');
    if (v === 'v1' || v === 'v1beta1') return `meta.k8s.io/${v}`;
  }
  return 'meta.k8s.io/v1';
}
