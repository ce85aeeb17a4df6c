import type { DeployItemStatus, LandscaperError } from '../api/landscaper.js';
import type { ErrorInfo, StepOutcome } from './result.js';
import {
  applyError,
  applyStepResult,
  contextError,
  hasUnrecoverableCode,
  invalidTargetError,
  targetSecretMissingError,
  isProviderConfigurationEmpty,
  missingTargetError,
  providerConfigurationMissingError,
  RETRY_AFTER_ERROR_MS,
  toDeployerError,
  withLastError,
} from './result.js';
import type { StepResult } from './types.js';
import { DeployerError, NotYetError, ProgressingTimeoutError } from './types.js';

const NOW = new Date('2024-05-01T12:00:00Z');
const T = '2024-05-01T12:00:00Z';
const EARLIER = '2024-05-01T11:00:00Z';

const running: DeployItemStatus = {
  observedGeneration: 2,
  phase: 'Progressing',
  jobID: 'j2',
  jobIDFinished: 'j1',
  transitionTimes: { initTime: EARLIER },
};

function err(operation: string, time = EARLIER): LandscaperError {
  return { operation, reason: 'R', message: 'm', lastTransitionTime: time, lastUpdateTime: time };
}

describe('withLastError', () => {
  const info: ErrorInfo = {
    operation: 'Apply',
    reason: 'Boom',
    message: 'it broke',
    codes: ['ERR_UNFINISHED'],
  };
  const fresh: LandscaperError = {
    operation: 'Apply',
    reason: 'Boom',
    message: 'it broke',
    codes: ['ERR_UNFINISHED'],
    lastTransitionTime: T,
    lastUpdateTime: T,
  };

  it.each<[string, DeployItemStatus, Partial<DeployItemStatus>]>([
    ['first error of the job', running, { lastError: fresh, firstError: fresh, lastErrors: [fresh] }],
    [
      'same operation again: lastTransitionTime kept',
      { ...running, lastError: err('Apply'), firstError: err('Apply'), lastErrors: [err('Apply')] },
      {
        lastError: { ...fresh, lastTransitionTime: EARLIER },
        firstError: err('Apply'),
        lastErrors: [err('Apply'), { ...fresh, lastTransitionTime: EARLIER }],
      },
    ],
    [
      'other operation: lastTransitionTime now',
      { ...running, lastError: err('Other'), firstError: err('Other'), lastErrors: [err('Other')] },
      { lastError: fresh, firstError: err('Other'), lastErrors: [err('Other'), fresh] },
    ],
    [
      'lastErrors keeps the newest 5',
      {
        ...running,
        lastError: err('e5'),
        firstError: err('e1'),
        lastErrors: ['e1', 'e2', 'e3', 'e4', 'e5'].map((o) => err(o)),
      },
      {
        lastError: fresh,
        firstError: err('e1'),
        lastErrors: [...['e2', 'e3', 'e4', 'e5'].map((o) => err(o)), fresh],
      },
    ],
  ])('%s', (_name, status, expected) => {
    const before = structuredClone(status);
    expect(withLastError(status, info, NOW)).toEqual({ ...status, ...expected });
    expect(status).toEqual(before);
  });

  it.each<[string, ErrorInfo['codes'], boolean]>([
    ['no codes field when empty', [], false],
    ['no codes field when absent', undefined, false],
    ['codes kept', ['ERR_TIMEOUT'], true],
  ])('%s', (_name, codes, present) => {
    const status = withLastError(running, { operation: 'o', reason: 'r', message: 'm', codes }, NOW);
    expect('codes' in status.lastError!).toBe(present);
  });
});

describe('hasUnrecoverableCode', () => {
  it.each<[ErrorInfo['codes'], boolean]>([
    [undefined, false],
    [[], false],
    [['ERR_UNFINISHED', 'ERR_WEBHOOK'], false],
    [['ERR_FOR_INFO_ONLY', 'ERR_CONFIGURATION_PROBLEM'], true],
    [['ERR_INTERNAL_PROBLEM'], true],
    [['ERR_TIMEOUT'], true],
    [['ERR_UNAUTHORIZED'], true],
    [['ERR_CYCLIC_DEPENDENCIES'], true],
    [['ERR_NO_RETRY'], false],
  ])('%j → %s', (codes, expected) => {
    expect(hasUnrecoverableCode(codes)).toBe(expected);
  });
});

describe('applyError', () => {
  const finishedTimes = { initTime: EARLIER, finishedTime: T };
  it.each<[string, ErrorInfo, boolean, Partial<StepOutcome>, Partial<DeployItemStatus>]>([
    [
      'recoverable: phase stays, retry in 5 s',
      { operation: 'Apply', reason: 'Conflict', message: 'x' },
      false,
      { finished: false, requeueAfterMs: RETRY_AFTER_ERROR_MS },
      { phase: 'Progressing', jobIDFinished: 'j1' },
    ],
    [
      'unrecoverable: Failed + job finished in the same status',
      { operation: 'Apply', reason: 'Bad', message: 'x', codes: ['ERR_CONFIGURATION_PROBLEM'] },
      false,
      { finished: true },
      { phase: 'Failed', jobIDFinished: 'j2', transitionTimes: finishedTimes },
    ],
    [
      'unrecoverable while deleting: DeleteFailed',
      { operation: 'Delete', reason: 'Bad', message: 'x', codes: ['ERR_TIMEOUT'] },
      true,
      { finished: true },
      { phase: 'DeleteFailed', jobIDFinished: 'j2', transitionTimes: finishedTimes },
    ],
    [
      'recoverable while deleting: phase stays',
      { operation: 'Delete', reason: 'Busy', message: 'x', codes: ['ERR_UNFINISHED'] },
      true,
      { finished: false, requeueAfterMs: RETRY_AFTER_ERROR_MS },
      { phase: 'Progressing', jobIDFinished: 'j1' },
    ],
  ])('%s', (_name, info, deleting, expectedOutcome, expectedStatus) => {
    const out = applyError(running, info, NOW, deleting);
    expect(out).toMatchObject({ removeFinalizer: false, ...expectedOutcome });
    expect(out.event).toEqual({ type: 'Warning', reason: info.reason, message: info.message });
    expect(out.status).toMatchObject(expectedStatus);
    expect(out.status.lastError).toMatchObject({
      operation: info.operation,
      reason: info.reason,
      message: info.message,
    });
    if (!expectedOutcome.requeueAfterMs) expect(out.requeueAfterMs).toBeUndefined();
  });

  it('takes a DeployerError as it is (ProgressingTimeoutError → Failed)', () => {
    const out = applyError(running, new ProgressingTimeoutError('apply'), NOW, false);
    expect(out.status.phase).toBe('Failed');
    expect(out.status.lastError).toEqual({
      operation: 'StandardTimeoutChecker.TimeoutExceeded',
      reason: 'ProgressingTimeout',
      message: 'timeout at: "apply"',
      codes: ['ERR_TIMEOUT'],
      lastTransitionTime: T,
      lastUpdateTime: T,
    });
  });

  it.each<[boolean, string]>([
    [false, 'Progressing'],
    [true, 'Deleting'],
  ])('a NotYetError (deleting %s): phase %s, its providerStatus, lastError, retry', (deleting, phase) => {
    const init: DeployItemStatus = { ...running, phase: deleting ? 'InitDelete' : 'Init' };
    const error = new NotYetError('ApplyObjects', 'ApplyNewObject', 'namespaces "x" not found', {
      managedResources: [{ resource: { name: 'a' } }],
    });
    const out = applyError(init, error, NOW, deleting);
    expect(out).toMatchObject({ finished: false, requeueAfterMs: RETRY_AFTER_ERROR_MS });
    expect(out.status.phase).toBe(phase);
    expect(out.status.providerStatus).toEqual({ managedResources: [{ resource: { name: 'a' } }] });
    expect(out.status.lastError).toMatchObject({ operation: 'ApplyObjects', reason: 'ApplyNewObject' });
    expect(out.status.lastError?.codes).toBeUndefined();
    expect(applyError(init, new NotYetError('A', 'B', 'c'), NOW, deleting).status.providerStatus).toBe(
      init.providerStatus,
    );
  });

  it.each<[boolean, string]>([
    [false, 'Progressing'],
    [true, 'Deleting'],
  ])(
    'a missing Target Secret (deleting %s): %s, lastError and a Warning naming it, retried',
    (deleting, phase) => {
      const init: DeployItemStatus = { ...running, phase: deleting ? 'InitDelete' : 'Init' };
      const message = 'target ns/t: spec.secretRef: secret ns/kc not found';
      const out = applyError(init, targetSecretMissingError(message, deleting), NOW, deleting);
      expect(out).toMatchObject({ finished: false, requeueAfterMs: RETRY_AFTER_ERROR_MS });
      expect(out.status.phase).toBe(phase);
      expect(out.status.lastError).toMatchObject({
        operation: deleting ? 'Delete' : 'Reconcile',
        reason: 'TargetSecretNotFound',
        message,
      });
      expect(out.event).toEqual({ type: 'Warning', reason: 'TargetSecretNotFound', message });
    },
  );
});

describe('applyStepResult', () => {
  const withError: DeployItemStatus = {
    ...running,
    lastError: err('Apply'),
    firstError: err('Apply'),
    lastErrors: [err('Apply')],
    exportRef: { name: 'old', namespace: 'ns' },
  };
  const history = { firstError: err('Apply'), lastErrors: [err('Apply')] };
  const ended = (phase: string): Partial<DeployItemStatus> =>
    ({
      phase,
      jobIDFinished: 'j2',
      transitionTimes: { initTime: EARLIER, finishedTime: T },
    }) as Partial<DeployItemStatus>;

  it.each<[string, StepResult, boolean, Partial<StepOutcome>, Partial<DeployItemStatus>]>([
    [
      'reconcile done → Succeeded, job ends',
      { kind: 'done' },
      false,
      { finished: true, removeFinalizer: false },
      ended('Succeeded'),
    ],
    [
      'done with providerStatus and exportRef',
      { kind: 'done', providerStatus: { a: 1 }, exportRef: { name: 'exp', namespace: 'ns' } },
      false,
      { finished: true },
      { ...ended('Succeeded'), providerStatus: { a: 1 }, exportRef: { name: 'exp', namespace: 'ns' } },
    ],
    [
      'mock phase override Failed',
      { kind: 'done', phase: 'Failed' },
      false,
      { finished: true },
      ended('Failed'),
    ],
    [
      'mock initialPhase Progressing: job stays open, no requeue',
      { kind: 'done', phase: 'Progressing' },
      false,
      { finished: false },
      { phase: 'Progressing', jobIDFinished: 'j1' },
    ],
    [
      'wait → Progressing + requeue',
      { kind: 'wait', afterMs: 3000, reason: 'waiting', providerStatus: { step: 2 } },
      false,
      { finished: false, requeueAfterMs: 3000 },
      { phase: 'Progressing', providerStatus: { step: 2 }, jobIDFinished: 'j1' },
    ],
    [
      'wait while deleting → Deleting + requeue',
      { kind: 'wait', afterMs: 1000, reason: 'waiting for namespaced objects' },
      true,
      { finished: false, requeueAfterMs: 1000 },
      { phase: 'Deleting', jobIDFinished: 'j1' },
    ],
    [
      'delete done → remove the finalizer, phase stays',
      { kind: 'done' },
      true,
      { finished: false, removeFinalizer: true },
      { phase: 'Progressing', jobIDFinished: 'j1' },
    ],
    [
      'delete done with DeleteFailed override',
      { kind: 'done', phase: 'DeleteFailed' },
      true,
      { finished: true, removeFinalizer: false },
      ended('DeleteFailed'),
    ],
  ])('%s', (_name, result, deleting, expectedOutcome, expectedStatus) => {
    const before = structuredClone(withError);
    const out = applyStepResult(withError, result, NOW, deleting);
    expect(out).toMatchObject(expectedOutcome);
    expect(out.status).toMatchObject({ ...history, ...expectedStatus });
    expect(out.status.lastError).toBeUndefined();
    expect(out.event).toBeUndefined();
    expect(withError).toEqual(before);
  });

  it.each<[string, StepResult, unknown]>([
    ['exportRef null removes it', { kind: 'done', exportRef: null }, undefined],
    ['exportRef undefined keeps it', { kind: 'done' }, { name: 'old', namespace: 'ns' }],
  ])('%s', (_name, result, expected) => {
    expect(applyStepResult(withError, result, NOW, false).status.exportRef).toEqual(expected);
  });
});

describe('contract failures', () => {
  it.each<[string, DeployerError, string, string, string, string[]]>([
    [
      'missing target',
      missingTargetError(false),
      'Reconcile',
      'NoTargetFound',
      'setting deploy item to failed due to missing target',
      ['ERR_CONFIGURATION_PROBLEM'],
    ],
    [
      'missing target while deleting',
      missingTargetError(true),
      'Delete',
      'NoTargetFound',
      'setting deploy item to failed due to missing target',
      ['ERR_CONFIGURATION_PROBLEM'],
    ],
    [
      'empty config',
      providerConfigurationMissingError(false),
      'Reconcile',
      'ProviderConfigurationMissing',
      'the deploy item has no provider configuration (spec.config is empty)',
      ['ERR_CONFIGURATION_PROBLEM'],
    ],
    [
      'context',
      contextError('default', 'not found', false),
      'Reconcile',
      'GetLandscaperContext',
      'unable to get landscaper context "default": not found',
      [],
    ],
    [
      'invalid target',
      invalidTargetError('exec is not allowed', true),
      'Delete',
      'InvalidTarget',
      'exec is not allowed',
      ['ERR_CONFIGURATION_PROBLEM'],
    ],
    [
      'the Target Secret is missing (recoverable)',
      targetSecretMissingError('target ns/t: spec.secretRef: secret ns/kc not found', false),
      'Reconcile',
      'TargetSecretNotFound',
      'target ns/t: spec.secretRef: secret ns/kc not found',
      [],
    ],
    [
      'plain error in reconcile',
      toDeployerError(new Error('conn refused'), false),
      'reconcile',
      'Reconcile',
      'conn refused',
      [],
    ],
    [
      'plain error in delete',
      toDeployerError(new Error('conn refused'), true),
      'delete',
      'DeleteWithUninstall',
      'conn refused',
      [],
    ],
    ['a thrown string', toDeployerError('weird', false), 'reconcile', 'Reconcile', 'weird', []],
    [
      'a DeployerError stays',
      toDeployerError(new DeployerError('Op', 'Why', 'msg', ['ERR_WEBHOOK']), true),
      'Op',
      'Why',
      'msg',
      ['ERR_WEBHOOK'],
    ],
  ])('%s', (_name, error, operation, reason, message, codes) => {
    expect(error).toBeInstanceOf(DeployerError);
    expect({
      operation: error.operation,
      reason: error.reason,
      message: error.message,
      codes: [...error.codes],
    }).toEqual({
      operation,
      reason,
      message,
      codes,
    });
  });

  it.each<[string, string, string]>([
    ['missing target fails the job', 'NoTargetFound', 'Failed'],
    ['context failure is retried', 'GetLandscaperContext', 'Progressing'],
  ])('%s', (_name, reason, phase) => {
    const error =
      reason === 'NoTargetFound' ? missingTargetError(false) : contextError('default', 'x', false);
    expect(applyError(running, error, NOW, false).status.phase).toBe(phase);
  });

  it.each<[unknown, boolean]>([
    [undefined, true],
    [null, true],
    [{}, true],
    [{ apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1' }, false],
    [[], false],
  ])('isProviderConfigurationEmpty(%j) = %s', (config, expected) => {
    expect(isProviderConfigurationEmpty(config)).toBe(expected);
  });
});
