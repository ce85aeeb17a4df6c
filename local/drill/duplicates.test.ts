import type { AuditRecord } from '@landscape/kube-apiserver';
import { readFileSync } from 'node:fs';
import {
  createdOnceInDrill,
  createdTwice,
  finalStatusesTwice,
  findDuplicates,
  podsDeletedOutsideWindows,
  shootsBoundTwice,
  weederWindowMs,
} from './duplicates.js';
import { drillWeederConfig } from './work/index.js';

let seq = 0;
function rec(p: Partial<AuditRecord> & Pick<AuditRecord, 'resource' | 'type'>): AuditRecord {
  seq++;
  return {
    seq,
    time: seq * 1000,
    cluster: 'main',
    namespace: 'ns',
    name: 'x',
    uid: 'u1',
    user: 'admin',
    ...p,
  };
}

const SHOOTS = 'shoots.core.gardener.cloud';
const DI = 'deployitems.landscaper.gardener.cloud';
const shoot = (seedName?: string): AuditRecord['object'] => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: {},
  spec: { seedName },
});
const item = (phase: string, jobID: string, jobIDFinished: string): AuditRecord['object'] =>
  ({ metadata: {}, status: { phase, jobID, jobIDFinished } }) as never;

describe('shootsBoundTwice', () => {
  it.each<[string, AuditRecord[], number]>([
    ['bound once', [rec({ resource: SHOOTS, type: 'MODIFIED', old: shoot(), object: shoot('s1') })], 0],
    [
      'bound once, then other writes keep the seed',
      [
        rec({ resource: SHOOTS, type: 'MODIFIED', old: shoot(), object: shoot('s1') }),
        rec({ resource: SHOOTS, type: 'MODIFIED', old: shoot('s1'), object: shoot('s1') }),
      ],
      0,
    ],
    ['created bound (no old)', [rec({ resource: SHOOTS, type: 'ADDED', object: shoot('s1') })], 0],
    [
      'moved to another seed',
      [rec({ resource: SHOOTS, type: 'MODIFIED', old: shoot('s1'), object: shoot('s2') })],
      1,
    ],
    [
      'unbound and bound again',
      [
        rec({ resource: SHOOTS, type: 'MODIFIED', old: shoot(), object: shoot('s1') }),
        rec({ resource: SHOOTS, type: 'MODIFIED', old: shoot('s1'), object: shoot() }),
        rec({ resource: SHOOTS, type: 'MODIFIED', old: shoot(), object: shoot('s1') }),
      ],
      1,
    ],
    [
      'two shoots bound once each',
      [
        rec({ resource: SHOOTS, type: 'MODIFIED', old: shoot(), object: shoot('s1') }),
        rec({ resource: SHOOTS, type: 'MODIFIED', uid: 'u2', old: shoot(), object: shoot('s1') }),
      ],
      0,
    ],
  ])('%s', (_name, records, n) => {
    expect(shootsBoundTwice(records)).toHaveLength(n);
  });
});

describe('createdTwice', () => {
  const onlyConfigMaps = (r: AuditRecord): boolean => r.resource === 'configmaps';
  it.each<[string, AuditRecord[], number]>([
    ['once', [rec({ resource: 'configmaps', type: 'ADDED' })], 0],
    [
      'created, deleted, created',
      [
        rec({ resource: 'configmaps', type: 'ADDED' }),
        rec({ resource: 'configmaps', type: 'DELETED' }),
        rec({ resource: 'configmaps', type: 'ADDED', uid: 'u2' }),
      ],
      1,
    ],
    [
      'same name in two clusters',
      [
        rec({ resource: 'configmaps', type: 'ADDED' }),
        rec({ resource: 'configmaps', type: 'ADDED', cluster: 't' }),
      ],
      0,
    ],
    [
      'not a resource created once (locks come and go)',
      [rec({ resource: 'syncobjects', type: 'ADDED' }), rec({ resource: 'syncobjects', type: 'ADDED' })],
      0,
    ],
  ])('%s', (_name, records, n) => {
    expect(createdTwice(records, onlyConfigMaps)).toHaveLength(n);
  });
});

describe('finalStatusesTwice', () => {
  it.each<[string, AuditRecord[], number]>([
    [
      'one job finished once',
      [
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Progressing', 'j1', ''),
          object: item('Succeeded', 'j1', 'j1'),
        }),
      ],
      0,
    ],
    [
      'a later write keeps the same final status',
      [
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Progressing', 'j1', ''),
          object: item('Succeeded', 'j1', 'j1'),
        }),
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Succeeded', 'j1', 'j1'),
          object: item('Succeeded', 'j1', 'j1'),
        }),
      ],
      0,
    ],
    [
      'a second job finishes',
      [
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Progressing', 'j1', ''),
          object: item('Succeeded', 'j1', 'j1'),
        }),
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Progressing', 'j2', 'j1'),
          object: item('Succeeded', 'j2', 'j2'),
        }),
      ],
      0,
    ],
    [
      'the same job finished, reopened, finished again',
      [
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Progressing', 'j1', ''),
          object: item('Succeeded', 'j1', 'j1'),
        }),
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Succeeded', 'j1', 'j1'),
          object: item('Progressing', 'j1', ''),
        }),
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Progressing', 'j1', ''),
          object: item('Succeeded', 'j1', 'j1'),
        }),
      ],
      1,
    ],
    [
      'a final status rewritten to another phase',
      [
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Progressing', 'j1', ''),
          object: item('Succeeded', 'j1', 'j1'),
        }),
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Succeeded', 'j1', 'j1'),
          object: item('Failed', 'j1', 'j1'),
        }),
      ],
      1,
    ],
    [
      'jobIDFinished behind jobID is not final',
      [
        rec({
          resource: DI,
          type: 'MODIFIED',
          old: item('Succeeded', 'j1', 'j1'),
          object: item('Succeeded', 'j2', 'j1'),
        }),
      ],
      0,
    ],
  ])('%s', (_name, records, n) => {
    expect(finalStatusesTwice(records)).toHaveLength(n);
  });
});

describe('podsDeletedOutsideWindows', () => {
  const ready = { subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] } as never;
  const notReady = { subsets: [{ notReadyAddresses: [{ ip: '10.0.0.1' }] }] } as never;
  const crashing = {
    status: { containerStatuses: [{ state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
  } as never;
  const running = { status: { containerStatuses: [{ state: { running: {} } }] } } as never;
  const o = { weederNamespace: (ns: string): boolean => ns === 'ns', weederWindowMs: 5000 };
  const opens = (time: number): AuditRecord =>
    rec({ resource: 'endpoints', type: 'MODIFIED', old: notReady, object: ready, time });
  const del = (time: number, old: never = crashing, extra: Partial<AuditRecord> = {}): AuditRecord =>
    rec({ resource: 'pods', type: 'DELETED', old, time, ...extra });
  it.each<[string, AuditRecord[], number]>([
    ['inside the window', [opens(10_000), del(12_000)], 0],
    ['before any window', [del(9_000), opens(10_000)], 1],
    ['after the window closed', [opens(10_000), del(15_001)], 1],
    ['inside the window but not crash-looping', [opens(10_000), del(11_000, running)], 1],
    [
      'a ready endpoint updated again opens no window',
      [
        opens(10_000),
        rec({ resource: 'endpoints', type: 'MODIFIED', old: ready, object: ready, time: 20_000 }),
        del(21_000),
      ],
      1,
    ],
    [
      'an EndpointSlice turning ready opens a window too',
      [
        rec({
          resource: 'endpointslices.discovery.k8s.io',
          type: 'MODIFIED',
          old: { endpoints: [{ conditions: { ready: false } }] } as never,
          object: { endpoints: [{ conditions: { ready: true } }] } as never,
          time: 10_000,
        }),
        del(12_000),
      ],
      0,
    ],
    ['deleted by an in-process controller (GC)', [del(1_000, running, { user: undefined })], 0],
    ['another namespace', [del(1_000, running, { namespace: 'other' })], 0],
  ])('%s', (_name, records, n) => {
    expect(podsDeletedOutsideWindows(records, o)).toHaveLength(n);
  });
});

it('findDuplicates adds every kind up', () => {
  const records = [
    rec({ resource: SHOOTS, type: 'MODIFIED', old: shoot('a'), object: shoot('b') }),
    rec({ resource: 'configmaps', type: 'ADDED' }),
    rec({ resource: 'configmaps', type: 'ADDED' }),
  ];
  const found = findDuplicates(records, {
    createdOnce: (r) => r.resource === 'configmaps',
    weederNamespace: () => false,
    weederWindowMs: 0,
  });
  expect(found.map((d) => d.kind)).toEqual(['shoot bound twice', 'object created twice']);
});

describe('planted faults: each check reports what it names, where the drill runs it', () => {
  const MS = 'managedseeds.seedmanagement.gardener.cloud';
  const drillOptions = {
    createdOnce: createdOnceInDrill,
    weederNamespace: (ns: string): boolean => ns.startsWith('shoot--'),
    weederWindowMs: weederWindowMs(drillWeederConfig(readFileSync('config/weeder.yaml', 'utf8'))),
  };
  const kinds = (records: AuditRecord[]): string[] =>
    findDuplicates(records, drillOptions).map((d) => `${d.kind}: ${d.detail}`);

  it.each<[string, AuditRecord[], string[]]>([
    [
      'a ManagedSeed created, deleted and created again in garden',
      [
        rec({ resource: MS, type: 'ADDED', namespace: 'garden', name: 'set-0' }),
        rec({ resource: MS, type: 'DELETED', namespace: 'garden', name: 'set-0' }),
        rec({ resource: MS, type: 'ADDED', namespace: 'garden', name: 'set-0', uid: 'u2' }),
      ],
      ['object created twice: main managedseeds.seedmanagement.gardener.cloud garden/set-0: created 2 times'],
    ],
    [
      'a replica Shoot created twice in garden',
      [
        rec({ resource: SHOOTS, type: 'ADDED', namespace: 'garden', name: 'set-1' }),
        rec({ resource: SHOOTS, type: 'ADDED', namespace: 'garden', name: 'set-1', uid: 'u2' }),
      ],
      ['object created twice: main shoots.core.gardener.cloud garden/set-1: created 2 times'],
    ],
    [
      'a Seed registered twice',
      [
        rec({ resource: 'seeds.core.gardener.cloud', type: 'ADDED', namespace: undefined, name: 'set-0' }),
        rec({ resource: 'seeds.core.gardener.cloud', type: 'ADDED', namespace: undefined, name: 'set-0' }),
      ],
      ['object created twice: main seeds.core.gardener.cloud set-0: created 2 times'],
    ],
    [
      'an export Secret written twice',
      [
        rec({ resource: 'secrets', type: 'ADDED', namespace: 'drill-items', name: 'mock-export-1' }),
        rec({ resource: 'secrets', type: 'ADDED', namespace: 'drill-items', name: 'mock-export-1' }),
      ],
      ['object created twice: main secrets drill-items/mock-export-1: created 2 times'],
    ],
    [
      'a target object applied twice in the target cluster',
      [
        rec({
          resource: 'configmaps',
          type: 'ADDED',
          cluster: 'drill-target',
          namespace: 'drill-apps',
          name: 'cm',
        }),
        rec({
          resource: 'configmaps',
          type: 'ADDED',
          cluster: 'drill-target',
          namespace: 'drill-apps',
          name: 'cm',
        }),
      ],
      ['object created twice: drill-target configmaps drill-apps/cm: created 2 times'],
    ],
    [
      'locks come and go: not a duplicate',
      [
        rec({ resource: 'syncobjects.landscaper.gardener.cloud', type: 'ADDED', namespace: 'drill-items' }),
        rec({ resource: 'syncobjects.landscaper.gardener.cloud', type: 'ADDED', namespace: 'drill-items' }),
      ],
      [],
    ],
  ])('%s', (_what, records, found) => {
    expect(kinds(records)).toEqual(found);
  });

  it('the weeder window is the run’s watchDuration (1m), not upstream’s 5m', () => {
    expect(drillOptions.weederWindowMs).toBe(60_000);
    expect(weederWindowMs(readFileSync('config/weeder.yaml', 'utf8'))).toBe(300_000);
  });

  it.each<[string, number, number]>([
    ['a pod weeded 10 s after the recovery', 10_000, 0],
    ['a pod deleted 2 minutes after the recovery (inside upstream’s 5m, outside the run’s 1m)', 120_000, 1],
  ])('%s', (_what, after, n) => {
    const ns = 'shoot--drill-weed0';
    const slice = (ready: boolean): never => ({ endpoints: [{ conditions: { ready } }] }) as never;
    const crashing = {
      status: { containerStatuses: [{ state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
    } as never;
    const records = [
      rec({
        resource: 'endpointslices.discovery.k8s.io',
        type: 'MODIFIED',
        namespace: ns,
        old: slice(false),
        object: slice(true),
        time: 1_000_000,
      }),
      rec({ resource: 'pods', type: 'DELETED', namespace: ns, old: crashing, time: 1_000_000 + after }),
    ];
    expect(kinds(records).filter((k) => k.startsWith('pod deleted outside'))).toHaveLength(n);
  });
});
