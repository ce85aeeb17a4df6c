/**
 * The drill's report: one table (fault, load, operations, lost, wrongly duplicated, recovery
 * time, recovery / resync interval), what each fault injected, the effects counted, then the lost
 * and duplicated effects and any secret found.
 */
import { EFFECT_KINDS } from './effects.js';
import type { RunResult } from './run.js';
import type { DrillScale } from './types.js';

/** "100 items, 40 shoots, 2 probed, 1 set". */
export function describeLoad(s: DrillScale): string {
  const parts = [`${s.mockItems + s.manifestItems} items`, `${s.shoots} shoots`];
  if (s.probedShoots > 0) parts.push(`${s.probedShoots} probed`);
  if (s.managedSeedSet) parts.push('1 seed set');
  return parts.join(', ');
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return 'not reached';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The recovery time in resync intervals ("0.7×"), or "-" when not reached. */
export function formatRatio(recoveryMs: number | undefined, resyncIntervalMs: number): string {
  if (recoveryMs === undefined || !(resyncIntervalMs > 0)) return '-';
  return `${(recoveryMs / resyncIntervalMs).toFixed(1)}×`;
}

function row(cells: readonly string[], widths: readonly number[]): string {
  return `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
}

/** A Markdown table (pipes aligned), as pasted into the README. */
export function renderTable(results: readonly RunResult[]): string {
  const head = [
    'fault',
    'load',
    'operations',
    'lost',
    'wrongly duplicated',
    'recovery time',
    'recovery / resync',
  ];
  const rows = results.map((r) => [
    r.fault,
    describeLoad(r.scale),
    String(r.operations),
    String(r.lost.length),
    String(r.duplicated.length),
    formatDuration(r.recoveryMs),
    formatRatio(r.recoveryMs, r.resyncIntervalMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [
    row(head, widths),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map((r) => row(r, widths)),
  ].join('\n');
}

const MAX_LINES = 20;

function listed(title: string, lines: readonly string[]): string[] {
  if (lines.length === 0) return [];
  const more = lines.length > MAX_LINES ? [`  ... and ${lines.length - MAX_LINES} more`] : [];
  return [title, ...lines.slice(0, MAX_LINES).map((l) => `  ${l}`), ...more];
}

/** "12 items finished, 3 shoots bound (planned 15)"; a shortfall is said. */
export function describeEffects(r: RunResult): string {
  const parts = EFFECT_KINDS.filter((k) => r.effects[k] > 0).map((k) => `${r.effects[k]} ${k}`);
  const short = r.operations < r.planned ? ' — FEWER THAN PLANNED' : '';
  return `${parts.join(', ') || 'none'} (planned ${r.planned}${short})`;
}

/** The table, then per run what was injected and what went wrong. */
export function renderReport(results: readonly RunResult[], descriptions: Record<string, string>): string {
  const out = [renderTable(results), ''];
  for (const r of results) {
    out.push(
      `${r.fault}: ${descriptions[r.fault] ?? ''}${r.injected ? ` — ${r.injected}` : ''} (run ${formatDuration(r.elapsedMs)})`,
    );
    out.push(`  operations: ${describeEffects(r)}`);
    out.push(...listed('  lost:', r.lost));
    out.push(
      ...listed(
        '  wrongly duplicated:',
        r.duplicated.map((d) => `${d.kind}: ${d.detail}`),
      ),
    );
    out.push(
      ...listed(
        '  SECRETS FOUND:',
        r.secrets.map((s) => `${s.source} in ${s.where} (${s.form})`),
      ),
    );
    if (r.stateDir) out.push(`  state kept in ${r.stateDir}`);
  }
  return out.join('\n');
}

/**
 * True when every run ended with nothing lost, nothing duplicated, no secret leaked, all settled,
 * and at least the planned effects seen in the audit log.
 */
export function passed(results: readonly RunResult[]): boolean {
  return results.every(
    (r) =>
      r.lost.length === 0 &&
      r.duplicated.length === 0 &&
      r.secrets.length === 0 &&
      r.recoveryMs !== undefined &&
      r.operations >= r.planned,
  );
}
