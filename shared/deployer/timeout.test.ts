import type { DeployItem, DeployItemStatus } from '../api/landscaper.js';
import type { PickupDecision, PickupInput } from './timeout.js';
import {
  checkTimeout,
  decidePickupTimeout,
  pickupTimeoutMessage,
  progressingDeadline,
  timeoutError,
} from './timeout.js';
import { DeployerError, ProgressingTimeoutError } from './types.js';
import { DurationError } from '@landscape/apimachinery';

const INIT = '2024-05-01T12:00:00Z';
const at = (iso: string): Date => new Date(iso);

function item(
  timeout: string | undefined,
  status: DeployItemStatus | undefined,
  deleting = false,
  generation = 4,
): DeployItem {
  return {
    metadata: { name: 'di', generation, ...(deleting ? { deletionTimestamp: INIT } : {}) },
    spec: { type: 'landscaper.gardener.cloud/mock', ...(timeout !== undefined ? { timeout } : {}) },
    ...(status ? { status } : {}),
  };
}
const started: DeployItemStatus = {
  observedGeneration: 1,
  phase: 'Progressing',
  jobID: 'j2',
  jobIDFinished: 'j1',
  transitionTimes: { initTime: INIT },
};

describe('progressingDeadline', () => {
  it.each<[string, string | undefined, DeployItemStatus | undefined, string | undefined]>([
    ['default 10m', undefined, started, '2024-05-01T12:10:00.000Z'],
    ['empty string: default', '', started, '2024-05-01T12:10:00.000Z'],
    ['1h30m', '1h30m', started, '2024-05-01T13:30:00.000Z'],
    ['none: no deadline', 'none', started, undefined],
    ['not started: no deadline', '5m', { observedGeneration: 0 }, undefined],
    ['no status', '5m', undefined, undefined],
  ])('%s', (_name, timeout, status, expected) => {
    expect(progressingDeadline(item(timeout, status))?.toISOString()).toBe(expected);
  });

  it('an invalid spec.timeout is a configuration problem', () => {
    const call = (): unknown => progressingDeadline(item('10 minutes', started));
    expect(call).toThrow(DeployerError);
    try {
      call();
    } catch (err) {
      expect((err as DeployerError).codes).toEqual(['ERR_CONFIGURATION_PROBLEM']);
      expect((err as DeployerError).reason).toBe('InvalidTimeout');
    }
  });
});

describe('checkTimeout / timeoutError', () => {
  it.each<[string, string | undefined, string, number | undefined | 'throws']>([
    ['well before', undefined, '2024-05-01T12:01:00Z', 540_000],
    ['one ms before', undefined, '2024-05-01T12:09:59.999Z', 1],
    ['exactly at the deadline', undefined, '2024-05-01T12:10:00Z', 'throws'],
    ['after', '1m', '2024-05-01T12:05:00Z', 'throws'],
    ['none never times out', 'none', '2030-01-01T00:00:00Z', undefined],
  ])('%s', (_name, timeout, now, expected) => {
    const di = item(timeout, started);
    if (expected === 'throws') {
      expect(() => checkTimeout(di, at(now), 'apply manifests')).toThrow(ProgressingTimeoutError);
      expect(timeoutError(di, at(now), 'apply manifests')?.message).toBe('timeout at: "apply manifests"');
    } else {
      expect(checkTimeout(di, at(now), 'apply manifests')).toBe(expected);
      expect(timeoutError(di, at(now), 'apply manifests')).toBeUndefined();
    }
  });
});

describe('pickupTimeoutMessage', () => {
  it.each([
    [300_000, false, 'no deployer has reconciled this deployitem within 300 seconds'],
    [
      300_000,
      true,
      'no deployer has reconciled this deployitem within 300 seconds, probably because the referenced Target does not exist',
    ],
    [90_500, false, 'no deployer has reconciled this deployitem within 90 seconds'],
  ])('%d ms, target missing %s', (ms, missing, expected) => {
    expect(pickupTimeoutMessage(ms, missing)).toBe(expected);
  });
});

describe('decidePickupTimeout', () => {
  const GEN = '2024-05-01T12:00:00Z';
  const waiting: DeployItemStatus = {
    observedGeneration: 1,
    phase: 'Succeeded',
    jobID: 'j2',
    jobIDFinished: 'j1',
    jobIDGenerationTime: GEN,
    lastReconcileTime: '2024-05-01T11:00:00Z',
  };
  const input = (
    over: Partial<PickupInput> & { status?: DeployItemStatus; deleting?: boolean },
  ): PickupInput => ({
    item: item(undefined, 'status' in over ? over.status : waiting, over.deleting ?? false),
    now: over.now ?? at('2024-05-01T12:05:00Z'),
    ...(over.pickupTimeout !== undefined ? { pickupTimeout: over.pickupTimeout } : {}),
    ...(over.targetMissing !== undefined ? { targetMissing: over.targetMissing } : {}),
  });

  it.each<[string, PickupInput, PickupDecision]>([
    ['disabled with none', input({ pickupTimeout: 'none' }), { kind: 'Skip', reason: 'Disabled' }],
    ['disabled with 0', input({ pickupTimeout: '0' }), { kind: 'Skip', reason: 'Disabled' }],
    ['disabled with 0s', input({ pickupTimeout: '0s' }), { kind: 'Skip', reason: 'Disabled' }],
    ['no status', input({ status: undefined }), { kind: 'Skip', reason: 'NoJob' }],
    [
      'finished job',
      input({ status: { ...waiting, jobIDFinished: 'j2' } }),
      { kind: 'Skip', reason: 'Finished' },
    ],
    [
      'picked up (lastReconcileTime == generation)',
      input({ status: { ...waiting, lastReconcileTime: GEN } }),
      { kind: 'Skip', reason: 'PickedUp' },
    ],
    [
      'picked up (later)',
      input({ status: { ...waiting, lastReconcileTime: '2024-05-01T12:00:01Z' } }),
      { kind: 'Skip', reason: 'PickedUp' },
    ],
    [
      'no generation time',
      input({ status: { ...waiting, jobIDGenerationTime: undefined } }),
      { kind: 'Skip', reason: 'NoGenerationTime' },
    ],
    ['not yet (default 5m)', input({ now: at('2024-05-01T12:04:00Z') }), { kind: 'Wait', afterMs: 60_000 }],
    [
      'never reconciled, not yet',
      input({ status: { ...waiting, lastReconcileTime: undefined }, now: at('2024-05-01T12:00:30Z') }),
      { kind: 'Wait', afterMs: 270_000 },
    ],
    ['custom 10m, not yet', input({ pickupTimeout: '10m' }), { kind: 'Wait', afterMs: 300_000 }],
  ])('%s', (_name, pickup, expected) => {
    expect(decidePickupTimeout(pickup)).toEqual(expected);
  });

  const lastError = (message: string): unknown => ({
    operation: 'WaitingForPickup',
    reason: 'PickupTimeout',
    message,
    codes: ['ERR_TIMEOUT'],
    lastTransitionTime: '2024-05-01T12:05:00Z',
    lastUpdateTime: '2024-05-01T12:05:00Z',
  });
  const MSG = 'no deployer has reconciled this deployitem within 300 seconds';

  it.each<[string, PickupInput, string, string]>([
    ['exactly at the timeout', input({}), 'Failed', MSG],
    [
      'target missing',
      input({ targetMissing: true }),
      'Failed',
      `${MSG}, probably because the referenced Target does not exist`,
    ],
    ['deleting', input({ deleting: true }), 'DeleteFailed', MSG],
    [
      '1m timeout',
      input({ pickupTimeout: '1m' }),
      'Failed',
      'no deployer has reconciled this deployitem within 60 seconds',
    ],
  ])('timed out: %s', (_name, pickup, phase, message) => {
    const decision = decidePickupTimeout(pickup);
    expect(decision).toEqual({
      kind: 'TimedOut',
      status: {
        ...waiting,
        observedGeneration: 4,
        phase,
        jobIDFinished: 'j2',
        transitionTimes: { finishedTime: '2024-05-01T12:05:00Z' },
        lastError: lastError(message),
        firstError: lastError(message),
        lastErrors: [lastError(message)],
      },
    });
  });

  it('refuses an invalid pickup timeout', () => {
    expect(() => decidePickupTimeout(input({ pickupTimeout: 'five minutes' }))).toThrow(DurationError);
  });
});
