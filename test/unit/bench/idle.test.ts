/** The idle bench names the largest replica by the function it serves. */
import { replicaName, windowStart } from '../../../bench/idle.js';

describe('replicaName', () => {
  it.each([
    ['the process title', 'requeue-tick', 'requeue-tick'],
    [
      'the bundle folder before the title is set',
      'node --require /r/.local/bundles/probe-tick-0123abcd/preload.cjs /r/.local/bundles/probe-tick-0123abcd/server.cjs',
      'probe-tick-0123abcd',
    ],
    ['anything else: its first word', '/usr/bin/node x.js', '/usr/bin/node'],
  ])('%s', (_name, cmdline, want) => {
    expect(replicaName(cmdline)).toBe(want);
  });
});

/** When the spec side's window starts (bench/idle.ts windowStart). */
describe('windowStart', () => {
  const MIN = 60_000;
  const at = (m: number, s = 0): number => m * MIN + s * 1000;
  it.each([
    // now, window, start expected (minutes, seconds past a five-minute boundary at 0)
    ['early in the cycle: after the resync has passed, mid-minute', at(0, 10), MIN, at(2, 30)],
    ['inside the free part: the next half minute', at(2, 40), MIN, at(3, 30)],
    ['on a half minute: at once', at(2, 30), MIN, at(2, 30)],
    ['too late for this cycle: the next one', at(3, 31), MIN, at(7, 30)],
    ['the last start that ends by the next resync', at(3, 30), MIN, at(3, 30)],
    ['a two-minute window fits only at 2:30', at(2, 31), 2 * MIN, at(7, 30)],
    ['the longest window that fits: 2:30 to 5:00', at(0, 0), 2.5 * MIN, at(2, 30)],
  ])('%s', (_name, now, windowMs, want) => {
    const got = windowStart(now, windowMs);
    expect(got).toEqual({ delayMs: want - now, resyncFree: true });
    // half a minute off the ticks, and off the resync
    expect((now + got.delayMs) % MIN).toBe(30_000);
    const start = now + got.delayMs;
    const prev = Math.floor(start / (5 * MIN)) * 5 * MIN;
    expect(start - prev).toBeGreaterThanOrEqual(2 * MIN);
    expect(start + windowMs).toBeLessThanOrEqual(prev + 5 * MIN);
  });

  it('a window too long to miss the resync is only aligned to the ticks', () => {
    expect(windowStart(at(1, 5), 4 * MIN)).toEqual({ delayMs: 25_000, resyncFree: false });
    // one second longer than 2:30 to 5:00
    expect(windowStart(at(1, 5), 2.5 * MIN + 1000)).toEqual({ delayMs: 25_000, resyncFree: false });
  });
});
