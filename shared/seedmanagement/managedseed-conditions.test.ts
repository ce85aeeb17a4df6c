import type { GardenerCondition } from '../api/core.js';
import { setCondition, updatedCondition } from './managedseed-conditions.js';

const NOW_TIME = '2024-05-01T10:00:00Z';
const EARLIER = '2024-04-01T00:00:00Z';

describe('conditions', () => {
  it('updatedCondition moves the update time only on a reason change', () => {
    const old: GardenerCondition = {
      type: 'T',
      status: 'False',
      reason: 'A',
      message: 'm',
      lastTransitionTime: EARLIER,
      lastUpdateTime: EARLIER,
    };
    expect(updatedCondition(old, 'T', 'False', 'B', 'm', NOW_TIME)).toMatchObject({
      lastTransitionTime: EARLIER,
      lastUpdateTime: NOW_TIME,
    });
    expect(updatedCondition(old, 'T', 'True', 'A', 'm', NOW_TIME)).toMatchObject({
      lastTransitionTime: NOW_TIME,
      lastUpdateTime: NOW_TIME,
    });
  });

  it('setCondition replaces in place and appends new types', () => {
    const list = setCondition([{ type: 'A', status: 'True' }], 'B', 'False', 'r', 'm', NOW_TIME);
    expect(list.map((c) => c.type)).toEqual(['A', 'B']);
    expect(setCondition(list, 'A', 'False', 'r', 'm', NOW_TIME).map((c) => `${c.type}=${c.status}`)).toEqual([
      'A=False',
      'B=False',
    ]);
  });
});
