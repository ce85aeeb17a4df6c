/**
 * `npm run drill` in small, shared by the drill test files (one fault per file, so jest runs them
 * side by side): a small mix of all the work through the same runner. The full drill (every
 * fault, the load run) is `npm run drill`; its table is in the README.
 */
import { fileURLToPath } from 'node:url';
import { scaled } from '../support/timing.js';
import { runDrill, type RunResult } from '../../local/drill/run.js';
import type { FaultName } from '../../local/drill/faults.js';
import type { DrillScale } from '../../local/drill/types.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const SCALE: DrillScale = {
  mockItems: 6,
  manifestItems: 6,
  deleteShare: 0.25,
  shoots: 6,
  probedShoots: 1,
  managedSeedSet: false,
};

const lines: string[] = [];

export function drill(fault: FaultName): Promise<RunResult> {
  return runDrill({
    fault,
    scale: SCALE,
    windowMs: 10_000,
    settleTimeoutMs: scaled(120_000),
    resyncIntervalMs: 10_000,
    seed: 7,
    repoRoot: REPO_ROOT,
    keep: false,
    log: (m) => lines.push(m),
  });
}

/** The limit of one drill test: start, window, settle, checks (scaled). */
export const DRILL_TIMEOUT_MS = scaled(300_000);

export function expectClean(r: RunResult): void {
  const problems = [
    ...r.lost,
    ...r.duplicated.map((d) => `${d.kind}: ${d.detail}`),
    ...r.secrets.map((s) => `secret ${s.source} in ${s.where}`),
  ];
  if (problems.length > 0 || r.recoveryMs === undefined) console.error(lines.slice(-40).join('\n'));
  expect(problems).toEqual([]);
  expect(r.recoveryMs).toBeDefined();
  // the work was done, as the audit log shows it: every item's job finished, the deleted ones gone
  // with their ConfigMaps, a ConfigMap or export Secret per item, shoots bound, the down shoot's
  // three dependents scaled down and up, its two crash-looping pods weeded
  const deleted = 2 * Math.round(SCALE.deleteShare * 6);
  const seen = r.effects;
  expect(seen['items finished']).toBeGreaterThanOrEqual(12);
  expect(seen['items deleted']).toBeGreaterThanOrEqual(deleted);
  expect(seen['objects created']).toBeGreaterThanOrEqual(12);
  expect(seen['target objects deleted']).toBeGreaterThanOrEqual(deleted / 2);
  expect(seen['shoots bound']).toBeGreaterThanOrEqual(6);
  expect(seen['dependents scaled']).toBeGreaterThanOrEqual(6);
  expect(seen['pods weeded']).toBe(2);
  expect(r.operations).toBeGreaterThanOrEqual(r.planned);
  expect(r.weederWindowMs).toBe(60_000);
}
