import { nextSweepAt } from './check.js';

const T = Date.parse('2026-11-26T12:00:00Z');

describe('nextSweepAt: when a warm instance must list again', () => {
  it.each([
    ['nothing pending: one timeout later, less a tenth (5m)', '5m', undefined, 0, T + 300_000 - 30_000],
    ['the slack is at most 30 s (1h)', '1h', undefined, 0, T + 3_600_000 - 30_000],
    ['a short timeout keeps a tenth of it as slack (15s)', '15s', undefined, 0, T + 15_000 - 1_500],
    ['a pending job due sooner decides', '5m', T + 10_000, 0, T + 10_000],
    ['a pending job due later than the window does not', '5m', T + 400_000, 0, T + 270_000],
    ['after a conflict: at once (the next tick)', '5m', T + 10_000, 1, T],
    ['switched off: never', 'none', T + 10_000, 0, Number.POSITIVE_INFINITY],
    ['switched off by 0: never', '0s', undefined, 0, Number.POSITIVE_INFINITY],
  ])('%s', (_what, timeout, due, conflicts, want) => {
    expect(nextSweepAt(T, timeout, due, conflicts)).toBe(want);
  });
});
