/** Interval timers, injectable so a unit test does not wait; the real ones never keep a process alive. */
export interface IntervalTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export const realIntervalTimers: IntervalTimers = {
  setInterval: (fn, ms) => {
    const t = setInterval(fn, ms);
    t.unref();
    return t;
  },
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};
