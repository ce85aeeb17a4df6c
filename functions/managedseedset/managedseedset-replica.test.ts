import type { Seed } from '../../shared/api/core.js';
import type { ReplicaStatus } from '../../shared/api/seedmanagement.js';
import {
  DEFAULT_REPLICA_PRIORITY,
  SET_PENDING_REASONS,
  buildReplicas,
  isSetPendingReason,
  isShootHealth,
  newManagedSeed,
  newShoot,
  nextOrdinal,
  replaceSeedPlaceholders,
  replicaDeletable,
  replicaName,
  replicaOrdinal,
  replicaPriority,
  replicaReady,
  replicaStatus,
  replicaStatusValue,
  seedReady,
  shootHealth,
  type Replica,
} from './managedseedset-replica.js';
import { replica, set, type ReplicaObjects } from './managedseedset.fixtures.js';

function toReplica(o: ReplicaObjects): Replica {
  return buildReplicas([o.shoot], o.managedSeed ? [o.managedSeed] : [], o.seed ? [o.seed] : [], {
    [o.name]: o.scheduled,
  })[0];
}

describe('replica names and ordinals', () => {
  it.each<[string, number]>([
    ['set-0', 0],
    ['set-12', 12],
    ['my-set-3', 3],
    ['set', -1],
    ['set-', -1],
    ['set-x1', -1],
    ['set-99999999999', -1],
  ])('replicaOrdinal(%s) → %d', (name, want) => {
    expect(replicaOrdinal(name)).toBe(want);
  });

  it('replicaName', () => {
    expect(replicaName('set', 4)).toBe('set-4');
  });

  it.each<[string, number[], number | undefined, number]>([
    ['no replicas, no status', [], undefined, 0],
    ['no replicas, status 3', [], 3, 3],
    ['0,1 and status 0', [0, 1], 0, 2],
    ['0,1 and status 5 (gap after a deletion)', [0, 1], 5, 5],
    ['0,3 and status 2', [0, 3], 2, 4],
  ])('nextOrdinal: %s → %d', (_n, ordinals, status, want) => {
    const replicas = buildReplicas(
      ordinals.map((o) => replica(o, 'ShootReconciled').shoot),
      [],
      [],
      {},
    );
    expect(nextOrdinal(replicas, status)).toBe(want);
  });

  it('buildReplicas sorts by ordinal, foreign names first', () => {
    const shoots = [replica(10, 'ShootReconciled'), replica(2, 'ShootReconciled')].map((r) => r.shoot);
    const foreign = { ...shoots[0], metadata: { ...shoots[0].metadata, name: 'other' } };
    expect(buildReplicas([...shoots, foreign], [], [], {}).map((r) => r.name)).toEqual([
      'other',
      'set-2',
      'set-10',
    ]);
  });
});

describe('replica status (upstream order)', () => {
  const statuses: ReplicaStatus[] = [
    'ShootReconcileFailed',
    'ShootDeleteFailed',
    'ShootReconciling',
    'ShootDeleting',
    'ShootReconciled',
    'ManagedSeedPreparing',
    'ManagedSeedDeleting',
    'ManagedSeedRegistered',
  ];

  it.each(statuses)('%s', (status) => {
    expect(replicaStatus(toReplica(replica(0, status)))).toBe(status);
  });

  it.each<[ReplicaStatus, number]>([
    ['Unknown', 0],
    ['ShootReconcileFailed', 1],
    ['ShootDeleteFailed', 2],
    ['ShootReconciling', 3],
    ['ShootDeleting', 4],
    ['ShootReconciled', 5],
    ['ManagedSeedPreparing', 6],
    ['ManagedSeedDeleting', 7],
    ['ManagedSeedRegistered', 8],
  ])('value of %s is %d', (status, value) => {
    expect(replicaStatusValue(status)).toBe(value);
  });

  it('a shoot on an old generation is still reconciling', () => {
    const r = replica(0, 'ShootReconciled');
    r.shoot.metadata!.generation = 2;
    expect(replicaStatus(toReplica(r))).toBe('ShootReconciling');
  });

  it('a registered managed seed on an old generation is preparing', () => {
    const r = replica(0, 'ManagedSeedRegistered');
    r.managedSeed!.metadata!.generation = 2;
    expect(replicaStatus(toReplica(r))).toBe('ManagedSeedPreparing');
  });
});

describe('readiness and deletability', () => {
  const seed = (conditions: [string, string][], patch: Partial<Seed['metadata']> = {}): Seed => ({
    metadata: { name: 's', ...patch },
    spec: { provider: { type: 't', region: 'r' } },
    status: {
      conditions: conditions.map(([type, status]) => ({ type, status: status as 'True' | 'False' })),
    },
  });
  const ok: [string, string][] = [
    ['GardenletReady', 'True'],
    ['SeedSystemComponentsHealthy', 'True'],
  ];

  it.each<[string, Seed | undefined, boolean]>([
    ['ready', seed(ok), true],
    ['no seed', undefined, false],
    ['gardenlet not ready', seed([['GardenletReady', 'False'], ok[1]]), false],
    ['system components missing', seed([ok[0]]), false],
    ['backup buckets ready', seed([...ok, ['BackupBucketsReady', 'True']]), true],
    ['backup buckets not ready', seed([...ok, ['BackupBucketsReady', 'False']]), false],
    ['deleting', seed(ok, { deletionTimestamp: '2024-01-01T00:00:00Z' }), false],
    ['old generation', seed(ok, { generation: 2 }), false],
  ])('seedReady: %s → %s', (_n, s, want) => {
    expect(seedReady(s)).toBe(want);
  });

  it.each<[string, Record<string, string> | undefined, string]>([
    ['label absent', undefined, 'progressing'],
    ['healthy', { 'shoot.gardener.cloud/status': 'healthy' }, 'healthy'],
    ['unhealthy', { 'shoot.gardener.cloud/status': 'unhealthy' }, 'unhealthy'],
    ['garbage', { 'shoot.gardener.cloud/status': 'weird' }, 'unknown'],
  ])('shootHealth: %s → %s', (_n, labels, want) => {
    const s = replica(0, 'ShootReconciled').shoot;
    s.metadata!.labels = labels;
    expect(shootHealth(s)).toBe(want);
  });

  it.each<[string, ReplicaObjects, boolean]>([
    ['registered, seed ready, healthy', replica(0, 'ManagedSeedRegistered'), true],
    ['seed not ready', replica(0, 'ManagedSeedRegistered', { seedReady: false }), false],
    ['shoot progressing', replica(0, 'ManagedSeedRegistered', { health: 'progressing' }), false],
    ['preparing', replica(0, 'ManagedSeedPreparing'), false],
  ])('replicaReady: %s → %s', (_n, r, want) => {
    expect(replicaReady(toReplica(r))).toBe(want);
  });

  it.each<[string, ReplicaObjects, boolean]>([
    ['empty and unprotected', replica(0, 'ManagedSeedRegistered'), true],
    ['shoots scheduled', replica(0, 'ManagedSeedRegistered', { scheduled: 1 }), false],
    ['shoot protected', replica(0, 'ManagedSeedRegistered', { protectShoot: true }), false],
    ['managed seed protected', replica(0, 'ManagedSeedRegistered', { protectManagedSeed: true }), false],
    ['no seed yet (counts are ignored)', { ...replica(0, 'ShootReconciled'), scheduled: 5 }, true],
  ])('replicaDeletable: %s → %s', (_n, r, want) => {
    expect(replicaDeletable(toReplica(r))).toBe(want);
  });

  it.each<[string, ReplicaObjects, number]>([
    ['default', replica(0, 'ManagedSeedRegistered'), DEFAULT_REPLICA_PRIORITY],
    ['managed seed annotation', replica(0, 'ManagedSeedRegistered', { priority: '1' }), 1],
    ['negative', replica(0, 'ManagedSeedRegistered', { priority: '-2' }), -2],
    ['not an integer', replica(0, 'ManagedSeedRegistered', { priority: '1.5' }), DEFAULT_REPLICA_PRIORITY],
  ])('replicaPriority: %s → %d', (_n, r, want) => {
    expect(replicaPriority(toReplica(r))).toBe(want);
  });

  it('replicaPriority falls back to the shoot annotation', () => {
    const r = replica(0, 'ShootReconciled');
    r.shoot.metadata!.annotations = { 'seedmanagement.gardener.cloud/priority': '0' };
    expect(replicaPriority(toReplica(r))).toBe(0);
  });
});

describe('objects from the templates', () => {
  it('replaceSeedPlaceholders: ingress.domain and dns.ingressDomain, every occurrence', () => {
    const spec = {
      provider: { type: 't', region: 'r' },
      ingress: { domain: 'replica-name.replica-name.example' },
      dns: { ingressDomain: 'in.replica-name.example' },
    };
    expect(replaceSeedPlaceholders(spec, 'set-1')).toMatchObject({
      ingress: { domain: 'set-1.set-1.example' },
      dns: { ingressDomain: 'in.set-1.example' },
    });
    expect(spec.ingress.domain).toBe('replica-name.replica-name.example');
  });

  it('newShoot without dns and without uid: no domain, no owner', () => {
    const s = set(1, (x) => {
      delete x.spec.shootTemplate.spec.dns;
      delete x.metadata!.uid;
    });
    const shoot = newShoot(s, 7);
    expect(shoot.metadata).toEqual({
      name: 'set-7',
      namespace: 'garden',
      labels: { app: 'seeds' },
      annotations: { note: 'x' },
    });
    expect(shoot.spec.dns).toBeUndefined();
  });

  it('newManagedSeed with an older seedTemplate replaces there too', () => {
    const s = set(1, (x) => {
      x.spec.template.spec = {
        seedTemplate: {
          spec: { provider: { type: 't', region: 'r' }, ingress: { domain: 'replica-name.x' } },
        },
      };
    });
    const ms = newManagedSeed(s, 2);
    expect(ms.spec).toEqual({
      seedTemplate: { spec: { provider: { type: 't', region: 'r' }, ingress: { domain: 'set-2.x' } } },
      shoot: { name: 'set-2' },
    });
    expect(s.spec.template.spec.seedTemplate?.spec.ingress?.domain).toBe('replica-name.x');
  });

  it.each([
    ['SeedNotReady', true],
    ['ShootReconciling', true],
    ['Nope', false],
  ])('isSetPendingReason(%s) → %s', (v, want) => {
    expect(isSetPendingReason(v)).toBe(want);
    expect(SET_PENDING_REASONS.length).toBe(8);
  });

  it.each([
    ['healthy', true],
    ['bad', false],
  ])('isShootHealth(%s) → %s', (v, want) => {
    expect(isShootHealth(v)).toBe(want);
  });
});
