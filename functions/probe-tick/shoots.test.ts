import type { Cluster } from '../../shared/api/extensions.js';
import type { Shoot } from '../../shared/api/core.js';
import {
  DEFAULT_PROBER_CONFIG_YAML,
  loadProberConfig,
  type ProberConfig,
} from '../../shared/watchdog/config.js';
import {
  DEFAULT_UNHEALTHY_NODE_CONDITIONS,
  SHOOT_SKIP_REASONS,
  decideShootProbe,
  isShootSkipReason,
  type ShootSkipReason,
} from './shoots.js';

function defaults(): ProberConfig {
  const r = loadProberConfig(DEFAULT_PROBER_CONFIG_YAML, {});
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.config;
}

/** A shoot that is probed: reconciled, one worker, awake. */
function shoot(patch: (s: Shoot) => void = () => undefined): Shoot {
  const s: Shoot = {
    metadata: { name: 'dev', namespace: 'garden-p' },
    spec: { region: 'r', provider: { type: 'local', workers: [{ name: 'pool' }] } },
    status: { lastOperation: { type: 'Reconcile', state: 'Succeeded' } },
  };
  patch(s);
  return s;
}

function cluster(s: Shoot | undefined, name = 'shoot--p--dev'): Cluster {
  return { metadata: { name }, spec: { cloudProfile: {}, shoot: s } } as Cluster;
}

const op = (type: string, state: string) => (s: Shoot) => {
  s.status = { ...s.status, lastOperation: { type, state } as NonNullable<Shoot['status']>['lastOperation'] };
};

describe('decideShootProbe: skip rules', () => {
  const rows: [string, Cluster, ShootSkipReason, boolean][] = [
    ['no spec.shoot', cluster(undefined), 'invalid-cluster', false],
    ['no name', cluster(shoot(), ''), 'invalid-cluster', false],
    [
      'deletion',
      cluster(shoot((s) => (s.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z'))),
      'deleting',
      true,
    ],
    [
      'hibernation enabled',
      cluster(shoot((s) => (s.spec.hibernation = { enabled: true }))),
      'hibernation-enabled',
      true,
    ],
    ['migration', cluster(shoot(op('Migrate', 'Processing'))), 'migrating', true],
    ['no workers (empty)', cluster(shoot((s) => (s.spec.provider.workers = []))), 'no-workers', true],
    ['no workers (absent)', cluster(shoot((s) => delete s.spec.provider.workers)), 'no-workers', true],
    [
      'waking up',
      cluster(shoot((s) => ((s.spec.hibernation = { enabled: false }), (s.status!.isHibernated = true)))),
      'waking-up',
      false,
    ],
    [
      'waking up (no hibernation spec)',
      cluster(shoot((s) => (s.status!.isHibernated = true))),
      'waking-up',
      false,
    ],
    ['no lastOperation', cluster(shoot((s) => delete s.status!.lastOperation)), 'creating', false],
    ['no status', cluster(shoot((s) => delete s.status)), 'creating', false],
    ['create processing', cluster(shoot(op('Create', 'Processing'))), 'not-ready', false],
    ['create failed', cluster(shoot(op('Create', 'Failed'))), 'not-ready', false],
    ['restore processing', cluster(shoot(op('Restore', 'Processing'))), 'not-ready', false],
    ['restore error', cluster(shoot(op('Restore', 'Error'))), 'not-ready', false],
    [
      'delete operation without deletionTimestamp',
      cluster(shoot(op('Delete', 'Processing'))),
      'not-ready',
      false,
    ],
    [
      'deletion wins over hibernation and no workers',
      cluster(
        shoot((s) => {
          s.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z';
          s.spec.hibernation = { enabled: true };
          s.spec.provider.workers = [];
        }),
      ),
      'deleting',
      true,
    ],
    [
      'hibernation (a stop rule) wins over an unfinished create',
      cluster(shoot((s) => ((s.spec.hibernation = { enabled: true }), op('Create', 'Processing')(s)))),
      'hibernation-enabled',
      true,
    ],
    [
      'an unparsable nodeMonitorGracePeriod',
      cluster(
        shoot((s) => (s.spec.kubernetes = { kubeControllerManager: { nodeMonitorGracePeriod: 'soon' } })),
      ),
      'invalid-node-monitor-grace-period',
      false,
    ],
    [
      'a zero nodeMonitorGracePeriod',
      cluster(
        shoot((s) => (s.spec.kubernetes = { kubeControllerManager: { nodeMonitorGracePeriod: '0s' } })),
      ),
      'invalid-node-monitor-grace-period',
      false,
    ],
  ];

  it.each(rows)('%s → %s', (_name, c, reason, stopExisting) => {
    const d = decideShootProbe(c, defaults());
    expect(d).toMatchObject({ probe: false, reason, stopExisting });
    expect(d.probe === false && d.message.length > 0).toBe(true);
  });

  it.each(rows)(
    '%s, with a prober already running: stop rules still stop, start rules do not',
    (_n, c, reason, stop) => {
      const d = decideShootProbe(c, defaults(), true);
      if (stop || reason === 'invalid-cluster' || reason === 'invalid-node-monitor-grace-period')
        expect(d).toMatchObject({ probe: false, reason });
      else expect(d).toMatchObject({ probe: true, namespace: 'shoot--p--dev' });
    },
  );

  it('covers every skip reason', () => {
    expect(new Set(rows.map((r) => r[2]))).toEqual(new Set(SHOOT_SKIP_REASONS));
  });

  it.each([
    ['deleting', 'Cluster has been marked for deletion, existing prober if any will be removed'],
    ['waking-up', 'Cannot start probe. Cluster is waking up from hibernation'],
  ])('%s carries upstream message', (reason, message) => {
    const row = rows.find((r) => r[2] === reason)!;
    expect(decideShootProbe(row[1], defaults())).toMatchObject({ message });
  });

  it.each([
    ['deleting', true],
    ['nope', false],
    [3, false],
  ])('isShootSkipReason(%j) → %s', (v, want) => {
    expect(isShootSkipReason(v)).toBe(want);
  });
});

describe('decideShootProbe: probed shoots', () => {
  it.each([
    ['Reconcile', 'Succeeded'],
    ['Reconcile', 'Processing'],
    ['Reconcile', 'Error'],
    ['Reconcile', 'Failed'],
    ['Create', 'Succeeded'],
    ['Restore', 'Succeeded'],
  ])('lastOperation %s %s', (type, state) => {
    const d = decideShootProbe(cluster(shoot(op(type, state))), defaults());
    expect(d).toMatchObject({ probe: true, namespace: 'shoot--p--dev' });
  });

  it('probes a shoot whose hibernation was switched off and which is awake', () => {
    const c = cluster(
      shoot((s) => ((s.spec.hibernation = { enabled: false }), (s.status!.isHibernated = false))),
    );
    expect(decideShootProbe(c, defaults())).toMatchObject({ probe: true });
  });

  it('uses the config grace period when the shoot sets none', () => {
    const cfg = defaults();
    const d = decideShootProbe(cluster(shoot()), cfg);
    expect(d).toMatchObject({ probe: true, nodeMonitorGraceSource: 'config' });
    expect(d.probe && d.config).toEqual(cfg);
  });

  it("uses the shoot's kube-controller-manager nodeMonitorGracePeriod and leaves the defaults alone", () => {
    const cfg = defaults();
    const before = structuredClone(cfg);
    const s = shoot(
      (x) => (x.spec.kubernetes = { kubeControllerManager: { nodeMonitorGracePeriod: '2m30s' } }),
    );
    const sBefore = structuredClone(s);
    const d = decideShootProbe(cluster(s), cfg);
    expect(d).toMatchObject({ probe: true, nodeMonitorGraceSource: 'shoot' });
    expect(d.probe && d.config).toEqual({ ...before, kcmNodeMonitorGraceDuration: 150_000 });
    expect(cfg).toEqual(before);
    expect(s).toEqual(sBefore);
  });

  it('gives the unhealthy node conditions of pools with machineControllerManagerSettings', () => {
    const s = shoot((x) => {
      x.spec.provider.workers = [
        { name: 'plain' },
        { name: 'own', machineControllerManagerSettings: { nodeConditions: ['ReadonlyFilesystem'] } },
        { name: 'defaulted', machineControllerManagerSettings: { machineDrainTimeout: '10m' } },
        { name: 'empty', machineControllerManagerSettings: { nodeConditions: [] } },
      ];
    });
    const d = decideShootProbe(cluster(s), defaults());
    expect(d.probe && d.workerNodeConditions).toEqual({
      own: ['ReadonlyFilesystem'],
      defaulted: [...DEFAULT_UNHEALTHY_NODE_CONDITIONS],
      empty: [...DEFAULT_UNHEALTHY_NODE_CONDITIONS],
    });
  });
});
