/**
 * Printer columns evaluated as apiextensions-apiserver's table convertor does for custom
 * resources: the column's JSONPath, then the first result rendered by the column type.
 */
import type { KubeObject, PrinterColumn } from '../../api/types.js';
import { CREATION_TIMESTAMP } from './descriptions.js';
import { humanDuration, parseRFC3339, printJSONPathValue } from './format.js';
import { findResults, parseJSONPath, type PathNode } from '@landscape/apimachinery';

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** The column a CRD without additionalPrinterColumns is served with. */
export const DEFAULT_CRD_COLUMNS: PrinterColumn[] = [
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: CREATION_TIMESTAMP },
];

export function crdColumnDefinition(col: PrinterColumn): ColumnDefinition {
  return {
    name: col.name,
    type: col.type,
    format: col.format ?? '',
    description: col.description || `Custom resource definition column (in JSONPath format): ${col.jsonPath}`,
    priority: col.priority ?? 0,
  };
}

/** `metatable.ConvertToHumanReadableDateType` of a string parsed as a query-parameter time. */
function dateCell(value: string, now: Date): string {
  if (value === '' || value === 'null') return '<unknown>';
  const t = parseRFC3339(value);
  if (t === undefined) return '<invalid>';
  return humanDuration(now.getTime() - t);
}

/** `cellForJSONValue`: the value when it fits the column type, else null. */
const BY_TYPE: Record<string, (value: unknown, now: Date) => unknown> = {
  integer: (v) => (typeof v === 'number' ? Math.trunc(v) : null),
  number: (v) => (typeof v === 'number' ? v : null),
  boolean: (v) => (typeof v === 'boolean' ? v : null),
  string: (v) => (typeof v === 'string' ? v : null),
  date: (v, now) => (typeof v === 'string' ? dateCell(v, now) : null),
};

export function cellForJSONValue(type: string, value: unknown, now: Date): unknown {
  if (!Object.hasOwn(BY_TYPE, type) || value === null || value === undefined) return null;
  return BY_TYPE[type](value, now);
}

/** A cell evaluator for one column; a path that does not parse gives null cells. */
export function crdCell(col: PrinterColumn): (obj: KubeObject, now: Date) => unknown {
  let nodes: PathNode[] | undefined;
  try {
    nodes = parseJSONPath(col.jsonPath);
  } catch {
    nodes = undefined;
  }
  return (obj, now) => {
    if (!nodes) return null;
    let results: unknown[];
    try {
      results = findResults(nodes, obj);
    } catch {
      return null;
    }
    if (results.length === 0) return null;
    // "as we only support simple JSON path, we can assume to have only one result": the first one
    const value = results[0];
    return col.type === 'string' ? printJSONPathValue(value) : cellForJSONValue(col.type, value, now);
  };
}
