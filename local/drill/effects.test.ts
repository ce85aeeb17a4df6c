import type { AuditRecord } from '@landscape/kube-apiserver';
import { countEffects, effectOf, totalEffects, type EffectKind } from './effects.js';

let seq = 0;
function rec(p: Partial<AuditRecord> & Pick<AuditRecord, 'resource' | 'type'>): AuditRecord {
  seq++;
  return { seq, time: seq, cluster: 'main', namespace: 'ns', name: 'x', uid: `u${seq}`, user: 'admin', ...p };
}

const DI = 'deployitems.landscaper.gardener.cloud';
const SHOOTS = 'shoots.core.gardener.cloud';
const item = (phase: string, jobID: string, jobIDFinished: string): never =>
  ({ metadata: {}, status: { phase, jobID, jobIDFinished } }) as never;
const shoot = (seedName?: string): never => ({ metadata: {}, spec: { seedName } }) as never;
const owned = (kind: string): never => ({ metadata: { ownerReferences: [{ kind, name: 'o' }] } }) as never;
const replicas = (n: number): never => ({ metadata: {}, spec: { replicas: n } }) as never;
const weeder = (ns: string): boolean => ns.startsWith('shoot--');

describe('effectOf: what one audit record did', () => {
  it.each<[string, AuditRecord, EffectKind | undefined]>([
    [
      'a DeployItem job finished',
      rec({
        resource: DI,
        type: 'MODIFIED',
        old: item('Progressing', 'j1', ''),
        object: item('Succeeded', 'j1', 'j1'),
      }),
      'items finished',
    ],
    [
      'a DeployItem written again with the same final status',
      rec({
        resource: DI,
        type: 'MODIFIED',
        old: item('Succeeded', 'j1', 'j1'),
        object: item('Succeeded', 'j1', 'j1'),
      }),
      undefined,
    ],
    [
      'a DeployItem created by the drill',
      rec({ resource: DI, type: 'ADDED', object: item('', '', '') }),
      undefined,
    ],
    ['a DeployItem gone', rec({ resource: DI, type: 'DELETED' }), 'items deleted'],
    [
      'a shoot bound',
      rec({ resource: SHOOTS, type: 'MODIFIED', old: shoot(), object: shoot('s') }),
      'shoots bound',
    ],
    ['a shoot created by the drill', rec({ resource: SHOOTS, type: 'ADDED', object: shoot() }), undefined],
    [
      'a replica Shoot created for a set',
      rec({ resource: SHOOTS, type: 'ADDED', namespace: 'garden', object: owned('ManagedSeedSet') }),
      'objects created',
    ],
    [
      'a ManagedSeed created',
      rec({
        resource: 'managedseeds.seedmanagement.gardener.cloud',
        type: 'ADDED',
        object: owned('ManagedSeedSet'),
      }),
      'objects created',
    ],
    [
      'a Seed registered by a ManagedSeed',
      rec({ resource: 'seeds.core.gardener.cloud', type: 'ADDED', object: owned('ManagedSeed') }),
      'objects created',
    ],
    [
      'an export Secret',
      rec({ resource: 'secrets', type: 'ADDED', object: owned('DeployItem') }),
      'objects created',
    ],
    [
      'a Secret of the drill (no owner)',
      rec({ resource: 'secrets', type: 'ADDED', object: owned('') }),
      undefined,
    ],
    [
      'a ConfigMap in a target',
      rec({ resource: 'configmaps', type: 'ADDED', cluster: 't' }),
      'objects created',
    ],
    ['a ConfigMap in main', rec({ resource: 'configmaps', type: 'ADDED' }), undefined],
    [
      'a ConfigMap deleted in a target',
      rec({ resource: 'configmaps', type: 'DELETED', cluster: 't' }),
      'target objects deleted',
    ],
    [
      'a ConfigMap of a target deleted by its namespace going (no user)',
      rec({ resource: 'configmaps', type: 'DELETED', cluster: 't', user: undefined }),
      undefined,
    ],
    [
      'a dependent scaled by the prober',
      rec({ resource: 'deployments.apps', type: 'MODIFIED', old: replicas(2), object: replicas(0) }),
      'dependents scaled',
    ],
    [
      'a dependent status written (replicas kept)',
      rec({ resource: 'deployments.apps', type: 'MODIFIED', old: replicas(2), object: replicas(2) }),
      undefined,
    ],
    [
      'a set grown by the autoscaler',
      rec({
        resource: 'managedseedsets.seedmanagement.gardener.cloud',
        type: 'MODIFIED',
        old: replicas(1),
        object: replicas(2),
      }),
      'sets scaled',
    ],
    ['a pod weeded', rec({ resource: 'pods', type: 'DELETED', namespace: 'shoot--a' }), 'pods weeded'],
    [
      'a pod gone with GC (no user)',
      rec({ resource: 'pods', type: 'DELETED', namespace: 'shoot--a', user: undefined }),
      undefined,
    ],
    [
      'a replica Pod stopped',
      rec({ resource: 'pods', type: 'DELETED', namespace: 'landscape-system' }),
      undefined,
    ],
  ])('%s', (_what, r, kind) => {
    expect(effectOf(r, weeder)?.kind).toBe(kind);
  });
});

describe('countEffects', () => {
  it('counts each effect once: a job finished twice, a shoot bound twice, an object re-added', () => {
    const records = [
      rec({
        resource: DI,
        uid: 'i',
        type: 'MODIFIED',
        old: item('Progressing', 'j1', ''),
        object: item('Succeeded', 'j1', 'j1'),
      }),
      rec({
        resource: DI,
        uid: 'i',
        type: 'MODIFIED',
        old: item('Succeeded', 'j1', 'j1'),
        object: item('Progressing', 'j1', ''),
      }),
      rec({
        resource: DI,
        uid: 'i',
        type: 'MODIFIED',
        old: item('Progressing', 'j1', ''),
        object: item('Succeeded', 'j1', 'j1'),
      }),
      rec({
        resource: DI,
        uid: 'i',
        type: 'MODIFIED',
        old: item('Succeeded', 'j1', 'j1'),
        object: item('Succeeded', 'j2', 'j2'),
      }),
      rec({ resource: SHOOTS, uid: 's', type: 'MODIFIED', old: shoot(), object: shoot('a') }),
      rec({ resource: SHOOTS, uid: 's', type: 'MODIFIED', old: shoot('a'), object: shoot() }),
      rec({ resource: SHOOTS, uid: 's', type: 'MODIFIED', old: shoot(), object: shoot('a') }),
      rec({ resource: 'configmaps', cluster: 't', uid: 'c', type: 'ADDED' }),
    ];
    const e = countEffects(records, weeder);
    expect(e).toMatchObject({ 'items finished': 2, 'shoots bound': 1, 'objects created': 1 });
    expect(totalEffects(e)).toBe(4);
  });

  it('an empty log: no operations at all (so a run where nothing happened cannot pass)', () => {
    expect(totalEffects(countEffects([], weeder))).toBe(0);
  });
});
