/** The prober bench's goals: the same run's A/B medians, not a fixed figure. */
import type { PassResult } from '../../../bench/prober/pass.js';
import { abTable, goalTable, type AbRounds } from '../../../bench/prober/table.js';

function pass(way: PassResult['way'], ms: number, seedRequests: number): PassResult {
  const seed = { 'list secrets': { requests: seedRequests, requestBytes: 0, responseBytes: 0, errors: 0 } };
  return { way, shoots: 1000, leases: 'fresh', ms, cpuMs: ms / 2, seed, shoot: {} } as unknown as PassResult;
}

const cells = (table: string, first: string): string[] =>
  table
    .split('\n')
    .find((l) => l.startsWith(`| ${first}`))!
    .split('|')
    .map((c) => c.trim())
    .filter((c) => c !== '');

describe('prober bench goals', () => {
  const ab: AbRounds = {
    shoots: 1000,
    ticks: {
      before: [pass('before', 20_000, 8000), pass('before', 16_000, 8000), pass('before', 30_000, 8000)],
      'per-request': [
        pass('per-request', 12_000, 7),
        pass('per-request', 10_000, 7),
        pass('per-request', 11_000, 7),
      ],
      now: [pass('now', 6_000, 7), pass('now', 9_000, 7), pass('now', 5_000, 7)],
    },
  };

  it('compares the median tick now with the median tick before of the same run', () => {
    const row = cells(goalTable([pass('now', 7_000, 7)], ab), 'tick s');
    // medians 6 s and 20 s: 0.30×, against the goal of 0.50×: 0.60×
    expect(row.slice(1)).toEqual(['6.00', '20.00', '0.30×', '≤ 0.50× before', '0.60×']);
  });

  it('reports seed requests per shoot of the last fresh tick now against the before median', () => {
    const row = cells(goalTable([pass('now', 7_000, 7)], ab), 'seed requests');
    expect(row.slice(1)).toEqual(['0.007', '8.000', '0.00×', '≤ 2', '0.00×']);
  });

  it('leaves the tick goal out without an A/B', () => {
    expect(goalTable([pass('now', 7_000, 7)], undefined)).not.toContain('tick s');
  });

  it('prints each round with every way, now against each other way', () => {
    // round 2: before 16 s, per-request 10 s, now 9 s; CPU half of each
    expect(cells(abTable(ab), '2').slice(1, 6)).toEqual(['16.00', '10.00', '9.00', '0.56×', '0.90×']);
    expect(cells(abTable(ab), '2').slice(6, 11)).toEqual(['8.00', '5.00', '4.50', '0.56×', '0.90×']);
  });
});
