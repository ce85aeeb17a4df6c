import { countEffects } from './effects.js';
import type { RunResult } from './run.js';
import { describeEffects, formatRatio, passed, renderTable } from './table.js';

const effects = { ...countEffects([], () => false), 'items finished': 12, 'shoots bound': 6 };

function result(over: Partial<RunResult> = {}): RunResult {
  return {
    fault: 'sink-down',
    scale: {
      mockItems: 6,
      manifestItems: 6,
      deleteShare: 0,
      shoots: 6,
      probedShoots: 0,
      managedSeedSet: false,
    },
    operations: 18,
    effects,
    planned: 18,
    lost: [],
    duplicated: [],
    recoveryMs: 7_000,
    resyncIntervalMs: 10_000,
    weederWindowMs: 60_000,
    injected: '',
    secrets: [],
    elapsedMs: 1,
    ...over,
  };
}

it.each<[number | undefined, number, string]>([
  [7_000, 10_000, '0.7×'],
  [25_000, 10_000, '2.5×'],
  [undefined, 10_000, '-'],
  [1_000, 0, '-'],
])('formatRatio(%p, %p) = %s', (recovery, resync, text) => {
  expect(formatRatio(recovery, resync)).toBe(text);
});

it('the table has the recovery in resync intervals', () => {
  const lines = renderTable([result()]).split('\n');
  expect(lines[0]).toMatch(/\| recovery time \| recovery \/ resync \|$/);
  expect(lines[2]).toMatch(/\| 18 +\| 0 +\| 0 +\| 7\.0 s +\| 0\.7× +\|$/);
});

it.each<[string, Partial<RunResult>, boolean]>([
  ['clean', {}, true],
  ['fewer effects seen than planned', { operations: 17 }, false],
  ['not settled', { recoveryMs: undefined }, false],
  ['something lost', { lost: ['x'] }, false],
])('passed: %s', (_what, over, ok) => {
  expect(passed([result(over)])).toBe(ok);
});

it('describes the effects seen, and says when they are fewer than planned', () => {
  expect(describeEffects(result())).toBe('12 items finished, 6 shoots bound (planned 18)');
  expect(describeEffects(result({ planned: 20 }))).toMatch(/planned 20 — FEWER THAN PLANNED/);
});
