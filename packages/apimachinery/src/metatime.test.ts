import { formatTime, parseTime } from './metatime.js';

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
