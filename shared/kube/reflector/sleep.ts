/** The Reflector's backoff sleep: returns early (without throwing) when the signal aborts. */
import { setTimeout as delay } from 'node:timers/promises';
import type { Sleep } from './types.js';

/** Sleeps, or returns early (without throwing) when the signal aborts. */
export const abortableSleep: Sleep = async (ms, signal) => {
  try {
    await delay(ms, undefined, { signal });
  } catch {
    // aborted: the caller checks its own state
  }
};
