/**
 * The drill in small, fault api-drop: an API server that drops 5% of its requests, half of the
 * writes applied before the drop (see ./support.ts).
 */
import { DRILL_TIMEOUT_MS, drill, expectClean } from './support.js';

it(
  'api-drop: nothing lost or duplicated, no secret in logs, Redis or Events',
  async () => {
    const r = await drill('api-drop');
    expect(r.injected).toMatch(/\d+ drop/);
    expectClean(r);
  },
  DRILL_TIMEOUT_MS,
);
