import { DurationError, formatGoDuration, parseGoDuration } from './duration.js';

describe('parseGoDuration (time.ParseDuration)', () => {
  it.each([
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['5s', 5_000],
    ['1.5s', 1_500],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['1.s', 1_000],
    ['300ms', 300],
    ['2us', 0.002],
    ['2µs', 0.002],
    ['2μs', 0.002],
    ['1000000ns', 1],
    ['0', 0],
    ['-0', 0],
    ['+0', 0],
    ['0s', 0],
    ['-1h', -3_600_000],
    ['+2m', 120_000],
    ['1h2m3s4ms', 3_723_004],
    ['1m1m', 120_000],
  ])('%s → %d ms', (value, ms) => {
    expect(parseGoDuration(value)).toBeCloseTo(ms, 9);
  });

  it.each([
    ['', 'empty'],
    ['-', 'empty'],
    ['10', 'missing unit after 10'],
    ['1h30', 'missing unit after 30'],
    ['h', 'expected a number'],
    ['1d', 'unknown unit "d"'],
    ['2w', 'unknown unit "w"'],
    ['.s', 'expected a number'],
    ['1 h', 'unknown unit " h"'],
    ['none', 'expected a number'],
    ['1h-30m', 'unknown unit "h-"'],
    ['1.5.5s', 'missing unit after 1.5'],
  ])('%j is refused (%s)', (value, reason) => {
    expect(() => parseGoDuration(value)).toThrow(DurationError);
    expect(() => parseGoDuration(value)).toThrow(reason);
  });
});

describe('formatGoDuration (Duration.String)', () => {
  it.each([
    [0, '0s'],
    [90_000, '1m30s'],
    [3_600_000, '1h0m0s'],
    [3_723_004, '1h2m3.004s'],
    [1_500, '1.5s'],
    [59_000, '59s'],
    [300, '300ms'],
    [1.5, '1.5ms'],
    [0.002, '2µs'],
    [0.000007, '7ns'],
    [-90_000, '-1m30s'],
    [100 * 3_600_000, '100h0m0s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });

  it.each(['1m30s', '2h45m0s', '1.5s', '0s', '250ms'])('%s survives a round trip', (text) => {
    expect(formatGoDuration(parseGoDuration(text))).toBe(text);
  });
});
