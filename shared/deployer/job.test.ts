import type { DeployItem, DeployItemStatus } from '../api/landscaper.js';
import { decideJob, isJobFinished, isJobTrigger, jobTrigger, mustWork, startJob } from './job.js';

const NOW = new Date('2024-05-01T12:00:00.500Z');
const T = '2024-05-01T12:00:00Z';
const TYPE = 'landscaper.gardener.cloud/mock';
const RIGHT = {
  'landscaper.gardener.cloud/deployer-type': TYPE,
  'landscaper.gardener.cloud/deployer-target-name': 'tgt',
};

function item(opts: {
  status?: DeployItemStatus;
  generation?: number;
  deleting?: boolean;
  annotations?: Record<string, string>;
  target?: string | null;
}): DeployItem {
  return {
    metadata: {
      name: 'di',
      namespace: 'ns',
      generation: opts.generation ?? 1,
      annotations: opts.annotations ?? RIGHT,
      ...(opts.deleting ? { deletionTimestamp: '2024-05-01T11:00:00Z' } : {}),
    },
    spec: { type: TYPE, ...(opts.target === null ? {} : { target: { name: opts.target ?? 'tgt' } }) },
    ...(opts.status ? { status: opts.status } : {}),
  };
}

const finished = (extra: Partial<DeployItemStatus> = {}): DeployItemStatus => ({
  observedGeneration: 1,
  phase: 'Succeeded',
  jobID: 'j1',
  jobIDFinished: 'j1',
  ...extra,
});
const running = (extra: Partial<DeployItemStatus> = {}): DeployItemStatus => ({
  observedGeneration: 1,
  phase: 'Progressing',
  jobID: 'j2',
  jobIDFinished: 'j1',
  ...extra,
});

describe('mustWork / isJobFinished', () => {
  it.each<[string, DeployItemStatus | undefined, boolean]>([
    ['no status', undefined, false],
    ['no jobID', { observedGeneration: 0 }, false],
    ['finished', finished(), false],
    ['running', running(), true],
    ['new job, nothing finished yet', { observedGeneration: 0, jobID: 'j1' }, true],
  ])('%s → mustWork %s', (_name, status, expected) => {
    expect(mustWork(item({ status }))).toBe(expected);
    expect(isJobFinished(item({ status }))).toBe(!expected);
  });
});

describe('jobTrigger', () => {
  it.each([
    ['created: no status', item({}), 'Created'],
    ['created: no jobID yet', item({ status: { observedGeneration: 0 } }), 'Created'],
    ['created while already deleting', item({ deleting: true }), 'Deleting'],
    ['finished, nothing changed', item({ status: finished() }), undefined],
    ['finished, spec changed', item({ status: finished(), generation: 2 }), 'SpecChanged'],
    [
      'finished, observed newer than generation',
      item({ status: finished({ observedGeneration: 3 }), generation: 2 }),
      undefined,
    ],
    ['running, spec changed: wait for the job', item({ status: running(), generation: 2 }), undefined],
    ['finished Succeeded, deleting', item({ status: finished(), deleting: true }), 'Deleting'],
    [
      'finished Failed, deleting',
      item({ status: finished({ phase: 'Failed' }), deleting: true }),
      'Deleting',
    ],
    [
      'finished DeleteFailed, deleting: left alone',
      item({ status: finished({ phase: 'DeleteFailed' }), deleting: true }),
      undefined,
    ],
    ['delete job running', item({ status: running({ phase: 'Deleting' }), deleting: true }), undefined],
    [
      'delete job not picked up',
      item({ status: running({ phase: 'Succeeded' }), deleting: true }),
      undefined,
    ],
  ])('%s → %s', (_name, di, expected) => {
    expect(jobTrigger(di)).toBe(expected);
    if (expected) expect(isJobTrigger(expected)).toBe(true);
  });
});

describe('decideJob', () => {
  const newId = (): string => 'new-id';
  const newJob = { jobID: 'new-id', jobIDGenerationTime: T };

  it.each([
    ['nothing to do', item({ status: finished() }), undefined],
    [
      'created without annotations: both + new job',
      item({ annotations: {} }),
      {
        annotations: RIGHT,
        trigger: 'Created',
        status: { observedGeneration: 0, ...newJob },
      },
    ],
    [
      'annotation differs from spec (type), job finished',
      item({
        status: finished(),
        annotations: { ...RIGHT, 'landscaper.gardener.cloud/deployer-type': 'other' },
      }),
      { annotations: { 'landscaper.gardener.cloud/deployer-type': TYPE } },
    ],
    [
      'target renamed: annotation while the job runs, no new job',
      item({ status: running(), target: 'tgt2', generation: 2 }),
      { annotations: { 'landscaper.gardener.cloud/deployer-target-name': 'tgt2' } },
    ],
    [
      "no target: upstream's .noTargetName",
      item({
        status: finished(),
        target: null,
        annotations: { 'landscaper.gardener.cloud/deployer-type': TYPE },
      }),
      { annotations: { 'landscaper.gardener.cloud/deployer-target-name': '.noTargetName' } },
    ],
    [
      'no target, the empty value earlier versions wrote: rewritten as upstream writes it',
      item({
        status: finished(),
        target: null,
        annotations: {
          'landscaper.gardener.cloud/deployer-type': TYPE,
          'landscaper.gardener.cloud/deployer-target-name': '',
        },
      }),
      { annotations: { 'landscaper.gardener.cloud/deployer-target-name': '.noTargetName' } },
    ],
    [
      'no target, annotated as the Landscaper annotates it: nothing to write',
      item({
        status: finished(),
        target: null,
        annotations: {
          'landscaper.gardener.cloud/deployer-type': TYPE,
          'landscaper.gardener.cloud/deployer-target-name': '.noTargetName',
        },
      }),
      undefined,
    ],
    [
      'spec changed: new job keeps the rest of the status',
      item({ status: finished(), generation: 2 }),
      { trigger: 'SpecChanged', status: { ...finished(), ...newJob } },
    ],
    [
      'deleting a finished item: new job',
      item({ status: finished({ phase: 'Failed' }), deleting: true }),
      { trigger: 'Deleting', status: { ...finished({ phase: 'Failed' }), ...newJob } },
    ],
    ['running job: nothing', item({ status: running(), generation: 5 }), undefined],
  ])('%s', (_name, di, expected) => {
    const before = structuredClone(di);
    expect(decideJob(di, NOW, newId)).toEqual(expected);
    expect(di).toEqual(before);
  });
});

describe('startJob', () => {
  const deployer = { identity: 'mock-1', name: 'mock', version: 'v1' };
  const old: DeployItemStatus = {
    observedGeneration: 1,
    phase: 'Failed',
    jobID: 'j2',
    jobIDFinished: 'j1',
    lastError: { operation: 'op', reason: 'r', message: 'm', lastTransitionTime: 'x', lastUpdateTime: 'x' },
    firstError: { operation: 'op', reason: 'r', message: 'm', lastTransitionTime: 'x', lastUpdateTime: 'x' },
    lastErrors: [
      { operation: 'op', reason: 'r', message: 'm', lastTransitionTime: 'x', lastUpdateTime: 'x' },
    ],
    providerStatus: { kept: true },
    transitionTimes: { triggerTime: 'tt', initTime: 'old', waitTime: 'w', finishedTime: 'f' },
  };
  const started = (phase: 'Init' | 'InitDelete'): DeployItemStatus => ({
    observedGeneration: 3,
    phase,
    jobID: 'j2',
    jobIDFinished: 'j1',
    providerStatus: { kept: true },
    lastReconcileTime: T,
    deployer,
    transitionTimes: { triggerTime: 'tt', initTime: T },
  });

  it.each<[string, DeployItem, DeployItemStatus, boolean]>([
    ['final phase → Init', item({ status: old, generation: 3 }), started('Init'), true],
    [
      'final phase, deleting → InitDelete',
      item({ status: old, generation: 3, deleting: true }),
      started('InitDelete'),
      true,
    ],
    [
      'empty phase → Init',
      item({ status: { observedGeneration: 0, jobID: 'j1' }, generation: 3 }),
      {
        observedGeneration: 3,
        phase: 'Init',
        jobID: 'j1',
        lastReconcileTime: T,
        deployer,
        transitionTimes: { initTime: T },
      },
      true,
    ],
    [
      'Progressing continues',
      item({ status: { ...old, phase: 'Progressing' }, generation: 3 }),
      { ...old, phase: 'Progressing' },
      false,
    ],
    [
      'Init continues',
      item({ status: { ...old, phase: 'Init' }, generation: 3 }),
      { ...old, phase: 'Init' },
      false,
    ],
    [
      'Deleting continues',
      item({ status: { ...old, phase: 'Deleting' }, deleting: true }),
      { ...old, phase: 'Deleting' },
      false,
    ],
  ])('%s', (_name, di, expected, didStart) => {
    const before = structuredClone(di);
    expect(startJob(di, NOW, deployer)).toEqual({ status: expected, started: didStart });
    expect(di).toEqual(before);
  });
});
