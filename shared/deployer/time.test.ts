import { DurationError, formatTime, parseGoDuration, parseTime, parseTimeout } from './time.js';

describe('parseGoDuration', () => {
  it.each([
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['1h', 3_600_000],
    ['5s', 5_000],
    ['1.5s', 1_500],
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
    ['10', 'missing unit'],
    ['1h30', 'missing unit'],
    ['h', 'expected a number'],
    ['1d', 'missing unit'],
    ['.s', 'expected a number'],
    ['1 h', 'missing unit'],
    ['none', 'expected a number'],
    ['1h-30m', 'expected a number'],
  ])('%j is refused (%s)', (value, reason) => {
    expect(() => parseGoDuration(value)).toThrow(DurationError);
    expect(() => parseGoDuration(value)).toThrow(reason);
  });
});

describe('parseTimeout', () => {
  it.each([
    [undefined, { ms: 1 }, { ms: 1 }],
    ['', { ms: 1 }, { ms: 1 }],
    ['none', { ms: 1 }, 'none'],
    ['2m', { ms: 1 }, { ms: 120_000 }],
    ['0', { ms: 1 }, { ms: 0 }],
    [undefined, 'none', 'none'],
  ] as const)('%j with fallback %j → %j', (value, fallback, expected) => {
    expect(parseTimeout(value, fallback)).toEqual(expected);
  });

  it('refuses garbage', () => {
    expect(() => parseTimeout('soon', { ms: 1 })).toThrow(DurationError);
  });
});

describe('formatTime / parseTime', () => {
  it.each([
    ['2023-07-13T11:33:30.000Z', '2023-07-13T11:33:30Z'],
    ['2023-07-13T11:33:30.999Z', '2023-07-13T11:33:30Z'],
    ['2000-01-01T00:00:00.001Z', '2000-01-01T00:00:00Z'],
  ])('formatTime(%s) = %s', (iso, expected) => {
    expect(formatTime(new Date(iso))).toBe(expected);
  });

  it.each([
    ['2023-07-13T11:33:30Z', Date.UTC(2023, 6, 13, 11, 33, 30)],
    [undefined, undefined],
    [null, undefined],
    ['', undefined],
    ['yesterday', undefined],
  ])('parseTime(%j) = %j', (value, expected) => {
    expect(parseTime(value)).toBe(expected);
  });
});
