import { goalTable, medianRound, roundRates } from '../../../bench/deployers/table.js';
import { roundsTable, warmupRates } from '../../../bench/deployers/rounds.js';
import type { EndToEndResult } from '../../../bench/deployers/e2e.js';
import type { InProcessResult } from '../../../bench/deployers/inprocess.js';

// only what the rounds' figures read: items and time of each side
const inProcess = (items: number, ms: number): InProcessResult =>
  ({
    items,
    ms,
    steps: [],
    completion: { succeeded: items, failed: 0, other: 0 },
  }) as unknown as InProcessResult;
const e2e = (succeeded: number, ms: number): EndToEndResult =>
  ({
    items: succeeded,
    ms,
    completion: { succeeded, failed: 0, other: 0 },
    itemBytes: 1,
  }) as unknown as EndToEndResult;

describe('deployers bench rounds', () => {
  it.each<[string, number[], number]>([
    ['odd count: the middle one', [0.9, 0.7, 1.1], 0],
    ['even count: the lower middle one', [1.0, 0.8, 0.9, 1.2], 2],
    ['ties: the earlier round', [0.9, 0.9, 0.9], 1],
    ['one round', [0.5], 0],
  ])('medianRound, %s', (_what, ratios, index) => {
    expect(medianRound(ratios)).toBe(index);
  });

  it('rates a round as items per second on each side and their ratio', () => {
    expect(roundRates({ inProcess: inProcess(1000, 8000), e2e: e2e(1000, 10_000) })).toEqual({
      base: 125,
      rate: 100,
      ratio: 0.8,
    });
    expect(roundRates({ inProcess: inProcess(1000, 8000) })).toEqual({ base: 125 });
  });

  it('the goals take the median landscape items/s and the median of the rounds’ ratios, not one pair', () => {
    const rounds = [
      { inProcess: inProcess(540, 1800), e2e: e2e(540, 4500) }, // 300 vs 120 items/s: 0.40×
      { inProcess: inProcess(540, 5400), e2e: e2e(540, 5400) }, // 100 vs 100: 1.00×
      { inProcess: inProcess(540, 3600), e2e: e2e(540, 4000) }, // 150 vs 135: 0.90×
    ];
    const shown = medianRound(rounds.map((r) => roundRates(r).ratio!));
    expect(shown).toBe(2);
    const goals = goalTable(rounds[shown].inProcess, rounds[shown].e2e, rounds);
    // the median of 120, 100, 135 (round 1's), not the shown round's 135
    expect(goals).toMatch(/mock items\/s through the landscape, median of 3 rounds +\| 120\.0 +\|/);
    // the median of the ratios, not the ratio of the medians (120 ÷ 150 = 0.80×)
    expect(goals).toMatch(/landscape ÷ in-process items\/s \(same run, median of 3 rounds\) +\| 0\.90× +\|/);
    const table = roundsTable(rounds, shown);
    expect(table).toMatch(/\| 3 \(shown\) +\| 150\.0 +\| 135\.0 +\| 0\.90× +\|/);
    expect(table).toMatch(/\| median +\| 150\.0 +\| 120\.0 +\| 0\.90× +\|/);
  });

  it("shows each side's warm-up from zero beside the measured items when the rounds had one", () => {
    const warm = <T extends object>(r: T, items: number, ms: number): T => ({
      ...r,
      warmupItems: items,
      warmupMs: ms,
    });
    const rounds = [
      { inProcess: warm(inProcess(1000, 5000), 500, 4000), e2e: warm(e2e(1000, 5000), 500, 5000) }, // warm-up 125 vs 100
      { inProcess: warm(inProcess(1000, 4000), 500, 2500), e2e: warm(e2e(1000, 5000), 500, 5000) }, // 200 vs 100
      { inProcess: warm(inProcess(1000, 5000), 500, 2000), e2e: warm(e2e(1000, 4000), 500, 2500) }, // 250 vs 200
    ];
    expect(warmupRates(rounds[0])).toEqual({ base: 125, rate: 100, ratio: 0.8 });
    expect(warmupRates({ inProcess: inProcess(1000, 5000) })).toEqual({});
    const table = roundsTable(rounds, 0);
    expect(table).toMatch(/warm-up from zero: in-process items\/s/);
    expect(table).toMatch(/\| 2 +\| 250\.0 +\| 200\.0 +\| 0\.80× +\| 200\.0 +\| 100\.0 +\| 0\.50× +\|/);
    // medians of each column: 200, 100, 0.80× for the warm-ups
    expect(table).toMatch(/\| median +\| 200\.0 +\| 200\.0 +\| 1\.00× +\| 200\.0 +\| 100\.0 +\| 0\.80× +\|/);
    // without warm-ups the columns are not there
    expect(roundsTable([{ inProcess: inProcess(1000, 5000), e2e: e2e(1000, 5000) }], 0)).not.toMatch(
      /warm-up/,
    );
  });
});
