import { DurationError } from '@landscape/apimachinery';
import { parseTimeout } from './time.js';

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
