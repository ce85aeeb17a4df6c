import type { DeployItem, DeployItemStatus } from '../api/landscaper.js';
import type { OperationDecision } from './operation.js';
import { decideOperation, requestedOperation } from './operation.js';

const NOW = new Date('2024-05-01T12:00:00Z');
const T = '2024-05-01T12:00:00Z';
const OP = 'landscaper.gardener.cloud/operation';
const REMOVE = { [OP]: null };

function item(operation: string | undefined, status: DeployItemStatus, deleting = false): DeployItem {
  return {
    metadata: {
      name: 'di',
      annotations: operation ? { [OP]: operation, other: 'x' } : { other: 'x' },
      ...(deleting ? { deletionTimestamp: T } : {}),
    },
    spec: { type: 'landscaper.gardener.cloud/mock' },
    status,
  };
}

const finished: DeployItemStatus = {
  observedGeneration: 1,
  phase: 'Succeeded',
  jobID: 'j1',
  jobIDFinished: 'j1',
  transitionTimes: { initTime: 'i', finishedTime: 'f' },
};
const running: DeployItemStatus = {
  observedGeneration: 1,
  phase: 'Progressing',
  jobID: 'j2',
  jobIDFinished: 'j1',
  transitionTimes: { initTime: 'i' },
};
const interrupted = {
  operation: 'InterruptOperation',
  reason: 'InterruptOperation',
  message: 'operation was interrupted',
  lastTransitionTime: T,
  lastUpdateTime: T,
};

describe('requestedOperation', () => {
  it.each([
    ['test-reconcile', 'test-reconcile'],
    ['interrupt', 'interrupt'],
    ['reconcile', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %j', (value, expected) => {
    expect(requestedOperation(item(value, finished))).toBe(expected);
  });
});

describe('decideOperation', () => {
  it.each<[string, DeployItem, OperationDecision | undefined]>([
    ['no annotation', item(undefined, running), undefined],
    ['foreign operation stays', item('reconcile', running), undefined],
    [
      'test-reconcile on a finished item',
      item('test-reconcile', finished),
      {
        operation: 'test-reconcile',
        annotations: REMOVE,
        status: {
          ...finished,
          jobID: 'uuid-1',
          jobIDGenerationTime: T,
          transitionTimes: { initTime: 'i', finishedTime: 'f', triggerTime: T },
        },
      },
    ],
    [
      'test-reconcile on a running item (as upstream: always a new jobID)',
      item('test-reconcile', running),
      {
        operation: 'test-reconcile',
        annotations: REMOVE,
        status: {
          ...running,
          jobID: 'uuid-1',
          jobIDGenerationTime: T,
          transitionTimes: { initTime: 'i', triggerTime: T },
        },
      },
    ],
    [
      'interrupt an unfinished item',
      item('interrupt', running),
      {
        operation: 'interrupt',
        annotations: REMOVE,
        status: {
          ...running,
          phase: 'Failed',
          jobIDFinished: 'j2',
          transitionTimes: { initTime: 'i', finishedTime: T },
          lastError: interrupted,
          firstError: interrupted,
          lastErrors: [interrupted],
        },
      },
    ],
    [
      'interrupt an unfinished delete job: Failed as well',
      item('interrupt', { ...running, phase: 'Deleting' }, true),
      {
        operation: 'interrupt',
        annotations: REMOVE,
        status: {
          ...running,
          phase: 'Failed',
          jobIDFinished: 'j2',
          transitionTimes: { initTime: 'i', finishedTime: T },
          lastError: interrupted,
          firstError: interrupted,
          lastErrors: [interrupted],
        },
      },
    ],
    [
      'interrupt a finished item: only the annotation goes',
      item('interrupt', finished),
      { operation: 'interrupt', annotations: REMOVE },
    ],
  ])('%s', (_name, di, expected) => {
    const before = structuredClone(di);
    expect(decideOperation(di, NOW, () => 'uuid-1')).toEqual(expected);
    expect(di).toEqual(before);
  });
});
