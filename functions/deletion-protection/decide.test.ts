import type { ManagedSeed } from '../../shared/api/seedmanagement.js';
import { loadConfig } from './config.js';
import {
  decideSeedProtection,
  decideShootProtection,
  PROTECTION_FINALIZER,
  seedNeedsShoots,
  type ProtectedObject,
  type ProtectionDecision,
} from './decide.js';

const F = PROTECTION_FINALIZER;

function obj(name: string, finalizers: string[], deleting = false, namespace?: string): ProtectedObject {
  return {
    metadata: {
      name,
      namespace,
      finalizers,
      ...(deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}),
    },
  };
}

describe('decideSeedProtection', () => {
  const onSeed = [{ spec: { seedName: 's' } }];
  const leaving = [{ spec: { seedName: 'other' }, status: { seedName: 's' } }];
  const elsewhere = [{ spec: { seedName: 'other' }, status: { seedName: 'other' } }];
  it.each<[string, ProtectedObject, Parameters<typeof decideSeedProtection>[1], ProtectionDecision]>([
    ['a new Seed', obj('s', []), [], { op: 'add-finalizer' }],
    ['a protected Seed', obj('s', [F]), onSeed, { op: 'none' }],
    [
      'deleting, used by a shoot',
      obj('s', [F], true),
      onSeed,
      { op: 'keep', message: 'cannot delete seed s since it is still used by shoot(s)' },
    ],
    [
      'deleting, a shoot still migrating away',
      obj('s', [F], true),
      leaving,
      { op: 'keep', message: 'cannot delete seed s since it is still used by shoot(s)' },
    ],
    ['deleting, free', obj('s', [F, 'other'], true), elsewhere, { op: 'remove-finalizer' }],
    ['deleting without the finalizer', obj('s', ['other'], true), onSeed, { op: 'none' }],
  ])('%s', (_n, seed, shoots, want) => {
    expect(decideSeedProtection(seed, shoots)).toEqual(want);
  });

  it('needs the shoots only for a deleting Seed that has the finalizer', () => {
    expect(seedNeedsShoots(obj('s', [F]))).toBe(false);
    expect(seedNeedsShoots(obj('s', [], true))).toBe(false);
    expect(seedNeedsShoots(obj('s', [F], true))).toBe(true);
  });
});

describe('decideShootProtection', () => {
  const ms = (shoot: string, deleting = false): ManagedSeed => ({
    metadata: { name: 'ms', namespace: 'garden', ...(deleting ? { deletionTimestamp: 'x' } : {}) },
    spec: { shoot: { name: shoot } },
  });
  const message = 'cannot delete shoot garden/shoot-1 since it is still referenced by a managed seed';
  it.each<[string, ProtectedObject, ManagedSeed[], ProtectionDecision]>([
    [
      'referenced, unprotected',
      obj('shoot-1', [], false, 'garden'),
      [ms('shoot-1')],
      { op: 'add-finalizer' },
    ],
    ['referenced, protected', obj('shoot-1', [F], false, 'garden'), [ms('shoot-1')], { op: 'none' }],
    ['not referenced', obj('shoot-1', [], false, 'garden'), [ms('shoot-2')], { op: 'none' }],
    ['no longer referenced', obj('shoot-1', [F], false, 'garden'), [], { op: 'remove-finalizer' }],
    ['deleting, referenced', obj('shoot-1', [F], true, 'garden'), [ms('shoot-1')], { op: 'keep', message }],
    [
      'deleting, referenced by a deleting ManagedSeed',
      obj('shoot-1', [F], true, 'garden'),
      [ms('shoot-1', true)],
      { op: 'keep', message },
    ],
    ['deleting, free', obj('shoot-1', [F], true, 'garden'), [ms('shoot-2')], { op: 'remove-finalizer' }],
    ['deleting without the finalizer', obj('shoot-1', [], true, 'garden'), [ms('shoot-1')], { op: 'none' }],
  ])('%s', (_n, shoot, list, want) => {
    expect(decideShootProtection(shoot, list)).toEqual(want);
  });
});

describe('deletion-protection config', () => {
  it('defaults, overrides, problems', () => {
    expect(loadConfig(undefined, { REDIS_URL: 'redis://r' })).toEqual({
      ok: true,
      config: {
        seeds: true,
        shoots: true,
        recheckInterval: 30_000,
        concurrency: 4,
        redisUrl: 'redis://r',
        logLevel: 'info',
      },
    });
    expect(loadConfig('shoots: true\n', { REDIS_URL: 'redis://r', PROTECT_SHOOTS: 'false' })).toMatchObject({
      ok: true,
      config: { shoots: false },
    });
    const r = loadConfig('seeds: maybe\nrecheckInterval: -1\n', {});
    expect(r.ok ? [] : r.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^seeds: /),
        expect.stringMatching(/^recheckInterval: /),
        expect.stringMatching(/^redisUrl: /),
      ]),
    );
  });
});
