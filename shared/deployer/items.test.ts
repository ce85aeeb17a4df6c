import type { DeployItem } from '../api/landscaper.js';
import { BoundedSet, eventDeployItem, versionKey } from './items.js';
import { deployerWorkShown } from './job.js';
import { JobMemo, type FinishedJobs } from './host/jobs.js';

const REF = { namespace: 'ns', name: 'a' };

function item(
  status?: Partial<NonNullable<DeployItem['status']>>,
  annotations?: Record<string, string>,
): DeployItem {
  return {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: {
      name: 'a',
      namespace: 'ns',
      uid: 'u1',
      resourceVersion: '7',
      ...(annotations ? { annotations } : {}),
    },
    spec: { type: 'landscaper.gardener.cloud/mock' },
    ...(status ? { status: { observedGeneration: 0, ...status } } : {}),
  };
}

describe('eventDeployItem: the DeployItem a Resource-mode event carries', () => {
  it.each([
    ['Resource mode: the object', { data: item() }, true],
    [
      'Reference mode: an ObjectReference',
      { data: { kind: 'DeployItem', namespace: 'ns', name: 'a', apiVersion: 'x' } },
      false,
    ],
    ['no data', {}, false],
    ['data as a string', { data: JSON.stringify(item()) }, false],
    ['another kind', { data: { ...item(), kind: 'Target' } }, false],
    [
      'another name than the event names',
      { data: { ...item(), metadata: { ...item().metadata, name: 'b' } } },
      false,
    ],
    ['no resourceVersion', { data: { ...item(), metadata: { name: 'a', namespace: 'ns' } } }, false],
    ['not an object', 'x', false],
  ])('%s', (_what, ce, carried) => {
    expect(eventDeployItem(ce, REF) !== undefined).toBe(carried);
  });

  it('names a version as uid@resourceVersion', () => {
    expect(versionKey(item())).toBe('u1@7');
  });
});

describe('BoundedSet', () => {
  it('forgets the oldest key beyond its size, and a key added again is new', () => {
    const s = new BoundedSet(2);
    s.add('a');
    s.add('b');
    s.add('a');
    s.add('c');
    expect([s.has('a'), s.has('b'), s.has('c')]).toEqual([true, false, true]);
    s.delete('a');
    expect(s.has('a')).toBe(false);
  });
});

describe('deployerWorkShown: what a carried object shows a deployer', () => {
  it.each([
    ['no job', item(), 'none'],
    [
      'no job, an operation annotation',
      item(undefined, { 'landscaper.gardener.cloud/operation': 'reconcile' }),
      'operation',
    ],
    ['an open job', item({ jobID: 'j1' }), 'open-job'],
    ['an open job after a finished one', item({ jobID: 'j2', jobIDFinished: 'j1' }), 'open-job'],
    [
      'an open job with an operation annotation',
      item({ jobID: 'j1' }, { 'landscaper.gardener.cloud/operation': 'interrupt' }),
      'operation',
    ],
    [
      'a finished job (continuous reconcile may be due)',
      item({ jobID: 'j1', jobIDFinished: 'j1' }),
      'finished-job',
    ],
    [
      'a finished job with an operation annotation',
      item({ jobID: 'j1', jobIDFinished: 'j1' }, { 'landscaper.gardener.cloud/operation': 'reconcile' }),
      'operation',
    ],
  ])('%s', (_what, it, shown) => {
    expect(deployerWorkShown(it)).toBe(shown);
  });
});

describe('JobMemo: the events of a job this deployer instance works on or finished', () => {
  const open = item({ jobID: 'j1' });

  it('covers the open job while a step works on it and notes that an event met it', () => {
    const m = new JobMemo();
    expect(m.covers(open)).toBe(false);
    expect(m.start(open)).toBe(true);
    expect(m.start(open)).toBe(false);
    expect(m.covers(open)).toBe(true);
    expect(m.covers(item({ jobID: 'j2', jobIDFinished: 'j1' }))).toBe(false);
    expect(m.end('u1')).toBe(true);
    expect(m.covers(open)).toBe(false);
  });

  it('covers a job it finished (an older version), never a finished object or an operation', async () => {
    const m = new JobMemo();
    m.start(open);
    await m.finish(open, 'j1');
    expect(m.end('u1')).toBe(false);
    expect(m.covers(open)).toBe(true);
    expect(m.covers(item({ jobID: 'j1', jobIDFinished: 'j1' }))).toBe(false);
    expect(m.covers(item({ jobID: 'j1' }, { 'landscaper.gardener.cloud/operation': 'interrupt' }))).toBe(
      false,
    );
  });

  it('asks the replicas’ shared record of finished jobs, and a failing one means: not covered', async () => {
    const done = new Set<string>();
    const shared: FinishedJobs = {
      has: (uid, jobID) => Promise.resolve(done.has(`${uid}/${jobID}`)),
      add: (uid, jobID) => Promise.resolve(void done.add(`${uid}/${jobID}`)),
    };
    const other = new JobMemo(shared);
    await other.finish(open, 'j1');
    expect(await new JobMemo(shared).coversShared(open)).toBe(true);
    expect(await new JobMemo(shared).coversShared(item({ jobID: 'j3' }))).toBe(false);
    const broken: FinishedJobs = {
      has: () => Promise.reject(new Error('down')),
      add: () => Promise.reject(new Error('down')),
    };
    const m = new JobMemo(broken);
    await m.finish(item({ jobID: 'j9' }), 'j9');
    expect(await new JobMemo(broken).coversShared(open)).toBe(false);
  });
});
