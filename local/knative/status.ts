/**
 * The runtime's status table (pure): per function its replicas and the broker's counters of the
 * triggers that deliver to it.
 */
import type { PoolStatus } from '../activator/index.js';

export interface FunctionRow {
  function: string;
  namespace: string;
  replicas: number;
  desired: number;
  inFlight: number;
  queued: number;
  coldStarts: number;
  delivered: number;
  retried: number;
  deadLettered: number;
}

export interface TriggerCounts {
  delivered: number;
  retried: number;
  deadLettered: number;
}

/** Rows from the pools and per-function broker counts (functions without triggers get zeros). */
export function statusRows(
  pools: readonly PoolStatus[],
  counts: ReadonlyMap<string, TriggerCounts>,
): FunctionRow[] {
  return pools.map((p) => {
    const c = counts.get(`${p.namespace}/${p.name}`) ?? { delivered: 0, retried: 0, deadLettered: 0 };
    return {
      function: p.name,
      namespace: p.namespace,
      replicas: p.replicas,
      desired: p.desired,
      inFlight: p.inFlight,
      queued: p.queued,
      coldStarts: p.coldStarts,
      ...c,
    };
  });
}

const COLUMNS: ReadonlyArray<[keyof FunctionRow, string]> = [
  ['function', 'FUNCTION'],
  ['replicas', 'REPLICAS'],
  ['inFlight', 'IN-FLIGHT'],
  ['queued', 'QUEUED'],
  ['coldStarts', 'COLD-STARTS'],
  ['delivered', 'DELIVERED'],
  ['retried', 'RETRIED'],
  ['deadLettered', 'DEAD-LETTERED'],
];

/** A kubectl-like table. */
export function renderStatus(rows: readonly FunctionRow[]): string {
  const cells = [COLUMNS.map(([, h]) => h), ...rows.map((r) => COLUMNS.map(([k]) => String(r[k])))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i]))
        .join('   ')
        .trimEnd(),
    )
    .join('\n');
}
