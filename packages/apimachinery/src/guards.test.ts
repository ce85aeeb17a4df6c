import { asRecord, isRecord } from './guards.js';

describe('isRecord', () => {
  const rows: [string, unknown, boolean][] = [
    ['plain object', { a: 1 }, true],
    ['empty object', {}, true],
    ['null', null, false],
    ['undefined', undefined, false],
    ['array', [1], false],
    ['string', 'x', false],
    ['number', 1, false],
  ];
  it.each(rows)('%s', (_name, value, want) => {
    expect(isRecord(value)).toBe(want);
  });
});

describe('asRecord', () => {
  it('keeps an object and reads anything else as {}', () => {
    const o = { a: 1 };
    expect(asRecord(o)).toBe(o);
    expect(asRecord([1])).toEqual({});
    expect(asRecord(null)).toEqual({});
  });
});
