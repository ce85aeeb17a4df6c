import type { ManagedSeed } from '../api/seedmanagement.js';
import { seedDeletionForbidden, seedUsedByShoot, shootDeletionForbidden } from './managedseed-protection.js';

describe('deletion protection', () => {
  it.each<[string, Parameters<typeof seedUsedByShoot>[1], boolean]>([
    ['spec.seedName', { spec: { seedName: 's' } }, true],
    ['status.seedName (migrating away)', { spec: { seedName: 'other' }, status: { seedName: 's' } }, true],
    ['other seed', { spec: { seedName: 'other' } }, false],
    ['unscheduled', { spec: {} }, false],
  ])('seedUsedByShoot: %s', (_n, s, want) => {
    expect(seedUsedByShoot('s', s)).toBe(want);
  });

  it('seedDeletionForbidden', () => {
    expect(seedDeletionForbidden('s', [{ spec: { seedName: 'x' } }])).toBeUndefined();
    expect(seedDeletionForbidden('s', [{ spec: { seedName: 'x' } }, { spec: { seedName: 's' } }])).toBe(
      'cannot delete seed s since it is still used by shoot(s)',
    );
  });

  const ms = (namespace: string, shootName: string): ManagedSeed => ({
    metadata: { name: 'm', namespace },
    spec: { shoot: { name: shootName } },
  });
  const target = { metadata: { name: 'shoot-1', namespace: 'garden' } };

  it.each<[string, ManagedSeed[], string | undefined]>([
    ['no managed seeds', [], undefined],
    ['another shoot', [ms('garden', 'shoot-2')], undefined],
    ['same name, other namespace', [ms('garden-p', 'shoot-1')], undefined],
    [
      'referenced',
      [ms('garden', 'shoot-1')],
      'cannot delete shoot garden/shoot-1 since it is still referenced by a managed seed',
    ],
  ])('shootDeletionForbidden: %s', (_n, list, want) => {
    expect(shootDeletionForbidden(target, list)).toBe(want);
  });
});
