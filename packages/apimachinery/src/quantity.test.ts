import {
  QUANTITY_FORMAT_MESSAGE,
  formatQuantity,
  parseQuantity,
  quantityNumber,
  quantityString,
} from './quantity.js';

describe('parseQuantity', () => {
  const rows: [string, string | number, number, boolean][] = [
    ['plain integer string', '250', 250, true],
    ['number', 250, 250, true],
    ['zero', '0', 0, true],
    ['explicit plus', '+7', 7, true],
    ['surrounding spaces', ' 12 ', 12, true],
    ['kilo', '1k', 1000, true],
    ['decimal kilo', '1.5k', 1500, true],
    ['mega', '2M', 2000000, true],
    ['binary', '2Ki', 2048, true],
    ['exponent', '1e3', 1000, true],
    ['milli rounds up', '500m', 1, false],
    ['fraction rounds up', '1.2', 2, false],
    ['negative', '-3', -3, true],
    ['fractional number', 2.5, 3, false],
  ];
  it.each(rows)('%s: %p → %p', (_name, input, value, whole) => {
    expect(parseQuantity(input)).toEqual({ ok: true, value, whole });
  });

  it.each(['', 'abc', '12x', '1.2.3', 'k', '--1', '1 000'])('rejects %p', (input) => {
    expect(parseQuantity(input)).toEqual({ ok: false, message: QUANTITY_FORMAT_MESSAGE });
  });

  it('rejects values beyond a safe integer', () => {
    expect(parseQuantity('100E')).toEqual({ ok: false, message: 'quantity is too large' });
  });
});

describe('formatQuantity', () => {
  const rows: [number, string][] = [
    [0, '0'],
    [250, '250'],
    [1000, '1k'],
    [1500, '1500'],
    [1200000, '1200k'],
    [2000000, '2M'],
    [-3000, '-3k'],
  ];
  it.each(rows)('%p → %p', (value, text) => expect(formatQuantity(value)).toBe(text));
});

describe('quantityNumber', () => {
  it.each<[unknown, number | undefined]>([
    ['100', 100],
    [100, 100],
    ['1.5k', 1500],
    ['500m', 0.5],
    ['1Ki', 1024],
    ['1e3', 1000],
    ['', undefined],
    ['ten', undefined],
    ['5X', undefined],
    [Infinity, undefined],
  ])('quantityNumber(%j) → %s', (q, want) => {
    expect(quantityNumber(q as string)).toBe(want);
  });
});

describe('quantityString', () => {
  test.each([
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['0.5Ki', '512'],
    ['1.5', '1500m'],
    ['2000', '2k'],
    ['1500', '1500'],
    ['0.1', '100m'],
    ['100m', '100m'],
    ['1e3', '1e3'],
    ['0.0000000001', '1n'],
    ['-2048', '-2048'],
    [100, '100'],
    [undefined, '<nil>'],
  ])('quantity %s canonicalizes to %s', (input, expected) => {
    expect(quantityString(input)).toBe(expected);
  });
});
