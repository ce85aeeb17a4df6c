/**
 * The drill in small, fault api-restart: the main API server restarted twice from its data
 * directory while the work runs (see ./support.ts).
 */
import { DRILL_TIMEOUT_MS, drill, expectClean } from './support.js';

it(
  'api-restart: nothing lost across two restarts of the main API server',
  async () => {
    const r = await drill('api-restart');
    expect(r.injected).toBe('2 done');
    expectClean(r);
  },
  DRILL_TIMEOUT_MS,
);
