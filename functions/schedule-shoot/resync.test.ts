import type { Shoot } from '../../shared/api/core.js';
import { unscheduledShoots } from './resync.js';

const shoot = (name: string, spec: Partial<Shoot['spec']> = {}, deleting = false): Shoot => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: {
    name,
    namespace: 'garden-dev',
    ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: { cloudProfileName: 'local', region: 'local', provider: { type: 'local' }, ...spec },
});

describe('unscheduledShoots (what a resync binds)', () => {
  it.each([
    ['no seed, default scheduler → scheduled', shoot('a'), 'default-scheduler', ['garden-dev/a']],
    ['already bound → left alone', shoot('b', { seedName: 's' }), 'default-scheduler', []],
    ['being deleted → left alone', shoot('c', {}, true), 'default-scheduler', []],
    ['another scheduler → left alone', shoot('d', { schedulerName: 'other' }), 'default-scheduler', []],
    ['this scheduler by name → scheduled', shoot('e', { schedulerName: 'mine' }), 'mine', ['garden-dev/e']],
  ])('%s', (_n, s, scheduler, want) => {
    expect(unscheduledShoots([s], scheduler).map((r) => `${r.namespace}/${r.name}`)).toEqual(want);
  });

  it('keeps the order of the page and skips objects without a name', () => {
    const nameless = { ...shoot('x'), metadata: { namespace: 'garden-dev' } } as Shoot;
    expect(unscheduledShoots([shoot('z'), nameless, shoot('y')], 'default-scheduler')).toEqual([
      { namespace: 'garden-dev', name: 'z' },
      { namespace: 'garden-dev', name: 'y' },
    ]);
  });
});
