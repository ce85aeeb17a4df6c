import { DEFAULT_TIMEOUT_SCALE, scaled, scaledSeconds, timeoutScale, until } from './timing.js';

describe('timeoutScale', () => {
  it.each([
    ['unset', {}, DEFAULT_TIMEOUT_SCALE],
    ['empty', { E2E_TIMEOUT_SCALE: ' ' }, DEFAULT_TIMEOUT_SCALE],
    ['an integer', { E2E_TIMEOUT_SCALE: '5' }, 5],
    ['a fraction', { E2E_TIMEOUT_SCALE: '0.5' }, 0.5],
  ])('%s', (_, env, want) => {
    expect(timeoutScale(env)).toBe(want);
  });

  it.each(['0', '-1', 'fast', 'Infinity'])('refuses %j', (value) => {
    expect(() => timeoutScale({ E2E_TIMEOUT_SCALE: value })).toThrow(
      /E2E_TIMEOUT_SCALE must be a positive number/,
    );
  });
});

describe('scaled', () => {
  it('multiplies a base limit by the scale and rounds up', () => {
    expect(scaled(1000, {})).toBe(1000 * DEFAULT_TIMEOUT_SCALE);
    expect(scaled(1001, { E2E_TIMEOUT_SCALE: '1.5' })).toBe(1502);
    expect(scaledSeconds(20_000, { E2E_TIMEOUT_SCALE: '2' })).toBe('40s');
    expect(scaledSeconds(1_500, { E2E_TIMEOUT_SCALE: '1' })).toBe('2s');
  });
});

describe('until', () => {
  it('returns the first value the probe gives', async () => {
    let calls = 0;
    const got = await until('the third call', () => (++calls === 3 ? 'yes' : undefined), { intervalMs: 1 });
    expect(got).toBe('yes');
    expect(calls).toBe(3);
  });

  it('fails with what it waited for and the context once the limit has passed', async () => {
    await expect(
      until('nothing', () => undefined, { timeoutMs: 1, intervalMs: 1, context: () => 'the tail' }),
    ).rejects.toThrow(/timed out after \d+ ms waiting for nothing\nthe tail/);
  });

  it('fails at once when the probe throws', async () => {
    let calls = 0;
    await expect(
      until('a throwing probe', () => {
        calls++;
        throw new Error('broken');
      }),
    ).rejects.toThrow('broken');
    expect(calls).toBe(1);
  });
});
