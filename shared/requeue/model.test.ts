import {
  after,
  backoffDelay,
  decodeMember,
  encodeMember,
  isDue,
  isRequeueMode,
  mergeScore,
  queueKey,
  RequeueError,
  scoreOf,
} from './model.js';
import { decodeDue } from './queue.js';

describe('member encoding', () => {
  it.each([
    [{ kind: 'DeployItem', namespace: 'ls', name: 'x' }, 'DeployItem/ls/x'],
    [{ kind: 'Seed', namespace: '', name: 'aws-eu1' }, 'Seed//aws-eu1'],
  ])('%j ⇄ %s', (ref, member) => {
    expect(encodeMember(ref)).toBe(member);
    expect(decodeMember(member)).toEqual(ref);
  });
  it.each([
    [{ kind: '', namespace: 'a', name: 'b' }],
    [{ kind: 'a/b', namespace: 'a', name: 'b' }],
    [{ kind: 'Shoot', namespace: 'a/b', name: 'c' }],
    [{ kind: 'Shoot', namespace: 'a', name: '' }],
    [{ kind: 'Shoot', namespace: 'a', name: 'b c' }],
  ])('refuses %j', (ref) => {
    expect(() => encodeMember(ref)).toThrow(RequeueError);
  });
  it.each(['', 'a/b', 'a/b/c/d', '1x/ns/n', 'K/ns/'])('does not decode %j', (m) => {
    expect(decodeMember(m)).toBeUndefined();
  });
  it('keys one sorted set per target', () => {
    expect(queueKey('deployer-mock')).toBe('landscape:requeue:queue:deployer-mock');
    expect(() => queueKey('not a function')).toThrow(RequeueError);
  });
});

describe('due-time math', () => {
  const now = new Date('2024-05-01T12:00:00.000Z');
  it.each([
    [undefined, 10, 'earliest', 10],
    [5, 10, 'earliest', 5],
    [10, 5, 'earliest', 5],
    [5, 10, 'replace', 10],
    [10, 5, 'replace', 5],
    [5, 10, 'latest', 10],
    [10, 5, 'latest', 10],
    [undefined, 7, 'latest', 7],
  ] as const)('merge(%s, %s, %s) = %s', (existing, next, mode, want) => {
    expect(mergeScore(existing, next, mode)).toBe(want);
  });
  it('defaults to earliest', () => {
    expect(mergeScore(3, 9)).toBe(3);
    expect(isRequeueMode('earliest')).toBe(true);
    expect(isRequeueMode('never')).toBe(false);
  });
  it('scores are epoch ms; invalid dates are refused', () => {
    expect(scoreOf(now)).toBe(now.getTime());
    expect(() => scoreOf(new Date('nope'))).toThrow(RequeueError);
  });
  it('is due at and after its time', () => {
    expect(isDue(now.getTime(), now)).toBe(true);
    expect(isDue(now.getTime() + 1, now)).toBe(false);
    expect(after(now, 1500).toISOString()).toBe('2024-05-01T12:00:01.500Z');
    expect(after(now, -5)).toEqual(now);
  });
  it.each([
    [0, 1000],
    [1, 2000],
    [3, 8000],
    [10, 60_000],
  ])('backoff attempt %d = %d ms', (attempt, ms) => {
    expect(backoffDelay({ attempt, baseMs: 1000, maxMs: 60_000 })).toBe(ms);
  });
  it('jitters backoff into [d/2, d)', () => {
    expect(backoffDelay({ attempt: 2, baseMs: 1000, maxMs: 60_000, rand: () => 0 })).toBe(2000);
    expect(backoffDelay({ attempt: 2, baseMs: 1000, maxMs: 60_000, rand: () => 0.999 })).toBe(3998);
  });
});

describe('decodeDue', () => {
  it('reads flat and paired replies and skips foreign members', () => {
    const want = [
      { target: 't', kind: 'A', namespace: 'n', name: 'x', at: new Date(1000) },
      { target: 't', kind: 'B', namespace: '', name: 'y', at: new Date(2000) },
    ];
    expect(decodeDue('t', ['A/n/x', '1000', 'garbage', '5', 'B//y', '2000'])).toEqual(want);
    expect(
      decodeDue('t', [
        ['A/n/x', 1000],
        ['B//y', '2000'],
      ]),
    ).toEqual(want);
  });
});
