import { nextPassAt } from './schedule.js';

const T = Date.parse('2026-11-27T12:00:00Z');
const MIN = 60_000;

describe('nextPassAt: one sync period after the pass was due, not after it ran', () => {
  it.each([
    ['a queued pass run 3 s late: due + period (the next tick hands it over)', T + 3_000, T, T + MIN],
    ['run 59 s late: still due + period', T + 59_000, T, T + MIN],
    ['late by a whole period: one period from now (no burst of catch-up passes)', T + MIN, T, T + 2 * MIN],
    ['late by more: one period from now', T + 5 * MIN, T, T + 6 * MIN],
    [
      'not a queued pass (resync, an autoscaler event): one period from now',
      T + 3_000,
      undefined,
      T + 3_000 + MIN,
    ],
    ['an unparsable dueAt: one period from now', T, Number.NaN, T + MIN],
  ])('%s', (_what, now, dueAt, want) => {
    expect(nextPassAt(now, MIN, dueAt)).toBe(want);
  });
});
