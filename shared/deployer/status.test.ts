import type { DeployItemStatus } from '../api/landscaper.js';
import { copyStatus, jsonEqual, statusChanged } from './status.js';

describe('jsonEqual', () => {
  it.each([
    ['same scalars', 1, 1, true],
    ['different scalars', 1, 2, false],
    ['string vs number', '1', 1, false],
    ['null vs undefined', null, undefined, false],
    ['null vs null', null, null, true],
    ['equal objects, other key order', { a: 1, b: 2 }, { b: 2, a: 1 }, true],
    ['undefined-valued key = missing key', { a: 1, b: undefined }, { a: 1 }, true],
    ['null-valued key ≠ missing key', { a: 1, b: null }, { a: 1 }, false],
    ['extra key', { a: 1 }, { a: 1, c: 3 }, false],
    ['nested difference', { a: { b: [1, 2] } }, { a: { b: [1, 3] } }, false],
    ['nested equality', { a: { b: [1, { c: 'x' }] } }, { a: { b: [1, { c: 'x' }] } }, true],
    ['array order matters', [1, 2], [2, 1], false],
    ['array vs object', [], {}, false],
    ['array length', [1], [1, 1], false],
  ])('%s', (_name, a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
    expect(jsonEqual(b, a)).toBe(expected);
  });
});

describe('statusChanged', () => {
  const base: DeployItemStatus = {
    observedGeneration: 1,
    phase: 'Succeeded',
    jobID: 'a',
    jobIDFinished: 'a',
    lastErrors: [],
  };
  it.each<[string, DeployItemStatus | undefined, DeployItemStatus | undefined, boolean]>([
    ['identical copy', base, { ...base }, false],
    ['phase', base, { ...base, phase: 'Failed' }, true],
    ['jobIDFinished', base, { ...base, jobIDFinished: 'b' }, true],
    ['a field added', base, { ...base, lastReconcileTime: '2024-01-01T00:00:00Z' }, true],
    [
      'a field removed',
      base,
      { observedGeneration: 1, phase: 'Succeeded', jobID: 'a', jobIDFinished: 'a' },
      true,
    ],
    [
      'providerStatus deep change',
      { ...base, providerStatus: { a: { b: 1 } } },
      { ...base, providerStatus: { a: { b: 2 } } },
      true,
    ],
    ['no status on both sides', undefined, undefined, false],
    ['status appears', undefined, base, true],
  ])('%s', (_name, before, after, expected) => {
    expect(statusChanged(before, after)).toBe(expected);
  });
});

describe('copyStatus', () => {
  it.each<[string, DeployItemStatus | undefined, DeployItemStatus]>([
    ['no status', undefined, { observedGeneration: 0 }],
    [
      'deep copy',
      { observedGeneration: 2, providerStatus: { a: [1] } },
      { observedGeneration: 2, providerStatus: { a: [1] } },
    ],
  ])('%s', (_name, status, expected) => {
    const copy = copyStatus(status);
    expect(copy).toEqual(expected);
    if (status?.providerStatus) {
      (copy.providerStatus!.a as number[]).push(2);
      expect(status.providerStatus).toEqual({ a: [1] });
    }
  });
});
