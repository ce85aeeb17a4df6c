import { until } from '../../test/support/timing.js';
import { pickVictim, ReplicaChaos, type ChaosTarget } from './chaos.js';

const pools = [
  { name: 'a', namespace: 'n', pods: ['a-1', 'a-2'], ready: 2 },
  { name: 'b', namespace: 'n', pods: ['b-1'], ready: 0 },
  { name: 'c', namespace: 'm', pods: ['c-1'], ready: 1 },
];

describe('pickVictim', () => {
  it.each<[string, number, readonly string[] | undefined, string | undefined]>([
    ['first ready replica', 0, undefined, 'a-1'],
    ['last ready replica', 0.99, undefined, 'c-1'],
    ['middle', 0.5, undefined, 'a-2'],
    ['only the chosen functions', 0, ['c'], 'c-1'],
    ['a function with no ready replica is never picked', 0, ['b'], undefined],
  ])('%s', (_name, r, functions, pod) => {
    expect(pickVictim(pools, { functions }, () => r)?.pod).toBe(pod);
  });

  it('nothing to kill when nothing runs', () => {
    expect(pickVictim([], {}, () => 0)).toBeUndefined();
  });
});

describe('ReplicaChaos', () => {
  function target(): ChaosTarget & { killed: string[] } {
    const killed: string[] = [];
    return {
      killed,
      status: () => pools,
      killReplica: (_ns, _name, pod) => (killed.push(pod), true),
    };
  }

  it('kills at random moments while on, and stops when switched off', async () => {
    const t = target();
    const chaos = new ReplicaChaos(t);
    chaos.set({ killEveryMs: 10, random: () => 0 });
    // on a busy machine the timer fires late: wait for the kills, not for a time
    await until('three kills', () => (t.killed.length >= 3 ? true : undefined), { intervalMs: 5 });
    chaos.set(undefined);
    const n = t.killed.length;
    expect(n).toBeGreaterThanOrEqual(3);
    expect(chaos.kills).toBe(n);
    expect(new Set(t.killed)).toEqual(new Set(['a-1']));
    await new Promise((r) => setTimeout(r, 60));
    expect(t.killed.length).toBe(n);
  });

  it('is off by default', async () => {
    const t = target();
    const chaos = new ReplicaChaos(t);
    await new Promise((r) => setTimeout(r, 30));
    expect(chaos.spec).toBeUndefined();
    expect(t.killed).toEqual([]);
  });
});
