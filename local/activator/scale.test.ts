import { decideScale, desiredReplicas, nextIdleDeadline, perReplica, pickReplica } from './scale.js';
import type { ReplicaState, ReplicaView, ScaleDecision, ScaleLimits } from './scale.js';

const NOW = 1_000_000;
const IDLE_MS = 60_000;

/** Knative's defaults: no containerConcurrency, no max-scale (local cap 10), target 100. */
const limits = (over: Partial<ScaleLimits> = {}): ScaleLimits => ({
  containerConcurrency: 0,
  maxScale: 0,
  minScale: 0,
  target: 100,
  idleMs: IDLE_MS,
  localCap: 10,
  ...over,
});

/** A replica: `ready` by default, idle since NOW unless told. */
const r = (
  id: string,
  over: { state?: ReplicaState; inFlight?: number; idleFor?: number } = {},
): ReplicaView => ({
  id,
  state: over.state ?? 'ready',
  inFlight: over.inFlight ?? 0,
  idleSince: NOW - (over.idleFor ?? 0),
});
const idle = (id: string, idleFor = IDLE_MS): ReplicaView => r(id, { idleFor });
const busy = (id: string, inFlight: number): ReplicaView => r(id, { inFlight });
const starting = (id: string, idleFor = 10 * IDLE_MS): ReplicaView => r(id, { state: 'starting', idleFor });
const stopping = (id: string, inFlight = 0): ReplicaView =>
  r(id, { state: 'stopping', inFlight, idleFor: 10 * IDLE_MS });

describe('perReplica', () => {
  it.each<[string, Partial<ScaleLimits>, number]>([
    ['containerConcurrency 0: the target', { containerConcurrency: 0, target: 100 }, 100],
    ['containerConcurrency 1 below the target', { containerConcurrency: 1, target: 100 }, 1],
    ['containerConcurrency equal to the target', { containerConcurrency: 10, target: 10 }, 10],
    ['target smaller than containerConcurrency', { containerConcurrency: 10, target: 5 }, 5],
    ['containerConcurrency 0, target 1', { containerConcurrency: 0, target: 1 }, 1],
  ])('%s', (_, over, expected) => {
    expect(perReplica(limits(over))).toBe(expected);
  });
});

describe('desiredReplicas', () => {
  it.each<[string, number, number, Partial<ScaleLimits>, number]>([
    ['nothing to do: zero', 0, 0, {}, 0],
    ['cold start: one queued request wants one replica', 0, 1, {}, 1],
    ['target 100: 100 requests fit one replica', 60, 40, {}, 1],
    ['target 100: the 101st request wants a second', 60, 41, {}, 2],
    ['in flight and queued count alike', 3, 2, { containerConcurrency: 1 }, 5],
    ['burst capped by max-scale', 0, 10, { containerConcurrency: 1, maxScale: 3 }, 3],
    ['max-scale 0: capped by the local cap', 0, 50, { containerConcurrency: 1, localCap: 4 }, 4],
    ['max-scale above the local cap wins over it', 0, 50, { containerConcurrency: 1, maxScale: 20 }, 20],
    ['min-scale kept when idle', 0, 0, { minScale: 2 }, 2],
    ['min-scale kept under light load', 1, 0, { minScale: 2 }, 2],
    ['load above min-scale', 0, 3, { containerConcurrency: 1, minScale: 2 }, 3],
    [
      'target smaller than containerConcurrency: target decides',
      0,
      12,
      { containerConcurrency: 10, target: 5 },
      3,
    ],
    [
      'containerConcurrency smaller than target: it decides',
      0,
      12,
      { containerConcurrency: 5, target: 10 },
      3,
    ],
    ['target 0 (a problem of the manifest) divides by 1, not 0', 0, 3, { target: 0 }, 3],
    ['cap wins over min-scale', 0, 0, { minScale: 5, maxScale: 3 }, 3],
  ])('%s', (_, inFlight, queued, over, expected) => {
    expect(desiredReplicas(inFlight, queued, limits(over))).toBe(expected);
  });
});

describe('decideScale', () => {
  it.each<[string, number, ReplicaView[], Partial<ScaleLimits>, ScaleDecision]>([
    ['cold start from zero', 1, [], {}, { desired: 1, spawn: 1, stop: [] }],
    ['idle at zero: nothing', 0, [], {}, { desired: 0, spawn: 0, stop: [] }],
    [
      'burst capped by max-scale',
      10,
      [],
      { containerConcurrency: 1, maxScale: 3 },
      { desired: 3, spawn: 3, stop: [] },
    ],
    [
      'burst with max-scale 0: capped by the local cap',
      50,
      [],
      { containerConcurrency: 1, localCap: 4 },
      { desired: 4, spawn: 4, stop: [] },
    ],
    [
      'starting replicas count: only the rest is spawned',
      5,
      [starting('s1'), starting('s2')],
      { containerConcurrency: 1, maxScale: 3 },
      { desired: 3, spawn: 1, stop: [] },
    ],
    [
      'starting replicas cover the demand: no spawn',
      2,
      [starting('s1'), starting('s2')],
      { containerConcurrency: 1 },
      { desired: 2, spawn: 0, stop: [] },
    ],
    [
      'stopping replicas do not count: a new one is spawned',
      1,
      [stopping('x')],
      {},
      { desired: 1, spawn: 1, stop: [] },
    ],
    [
      'in flight of a stopping replica is not counted',
      0,
      [busy('a', 1), stopping('x', 1)],
      { containerConcurrency: 1 },
      { desired: 1, spawn: 0, stop: [] },
    ],
    [
      'in flight of ready replicas wants more replicas',
      0,
      [busy('a', 3)],
      { containerConcurrency: 0, target: 2 },
      { desired: 2, spawn: 1, stop: [] },
    ],
    ['min-scale spawned with nothing to do', 0, [], { minScale: 2 }, { desired: 2, spawn: 2, stop: [] }],
    [
      'nothing stopped while anything is queued (even an idle replica above desired)',
      1,
      [busy('a', 1), idle('b', 10 * IDLE_MS)],
      { containerConcurrency: 1, maxScale: 1 },
      { desired: 1, spawn: 0, stop: [] },
    ],
    ['idle replica kept before idleMs', 0, [idle('a', IDLE_MS - 1)], {}, { desired: 0, spawn: 0, stop: [] }],
    [
      'idle replica stopped at idleMs: scale to zero',
      0,
      [idle('a', IDLE_MS)],
      {},
      { desired: 0, spawn: 0, stop: ['a'] },
    ],
    [
      'every idle replica stopped, the longest idle first',
      0,
      [idle('young', IDLE_MS), idle('old', 3 * IDLE_MS), idle('mid', 2 * IDLE_MS)],
      {},
      { desired: 0, spawn: 0, stop: ['old', 'mid', 'young'] },
    ],
    [
      'min-scale kept: only down to min-scale, the longest idle stopped',
      0,
      [idle('young', IDLE_MS), idle('old', 2 * IDLE_MS)],
      { minScale: 1 },
      { desired: 1, spawn: 0, stop: ['old'] },
    ],
    [
      'at min-scale: nothing stopped',
      0,
      [idle('a', 10 * IDLE_MS), idle('b', 10 * IDLE_MS)],
      { minScale: 2 },
      { desired: 2, spawn: 0, stop: [] },
    ],
    [
      'only down to desired: one of two idle stopped while one is busy',
      0,
      [busy('a', 3), idle('b', 2 * IDLE_MS), idle('c', 3 * IDLE_MS)],
      { target: 2 },
      { desired: 2, spawn: 0, stop: ['c'] },
    ],
    [
      'a busy replica is never stopped, even when idle longer before',
      0,
      [r('a', { inFlight: 1, idleFor: 10 * IDLE_MS }), idle('b', IDLE_MS)],
      {},
      { desired: 1, spawn: 0, stop: ['b'] },
    ],
    [
      'a starting replica is never stopped, however old',
      0,
      [starting('s', 10 * IDLE_MS)],
      {},
      { desired: 0, spawn: 0, stop: [] },
    ],
    ['a stopping replica is not stopped again', 0, [stopping('x')], {}, { desired: 0, spawn: 0, stop: [] }],
    [
      'a stopping replica does not count towards min-scale: the idle one is kept',
      0,
      [stopping('x'), idle('b', 10 * IDLE_MS)],
      { minScale: 1 },
      { desired: 1, spawn: 0, stop: [] },
    ],
    [
      'a starting replica counts towards min-scale: the idle one goes',
      0,
      [starting('s'), idle('b', 10 * IDLE_MS)],
      { minScale: 1 },
      { desired: 1, spawn: 0, stop: ['b'] },
    ],
  ])('%s', (_, queued, replicas, over, expected) => {
    expect(decideScale({ queued, replicas, now: NOW }, limits(over))).toEqual(expected);
  });

  it('does not reorder its input', () => {
    const replicas = [idle('young', IDLE_MS), idle('old', 3 * IDLE_MS)];
    const before = replicas.map((x) => x.id);
    decideScale({ queued: 0, replicas, now: NOW }, limits());
    expect(replicas.map((x) => x.id)).toEqual(before);
  });
});

describe('pickReplica', () => {
  it.each<[string, ReplicaView[], number, string | undefined]>([
    ['no replicas: none', [], 0, undefined],
    ['least in flight', [busy('a', 3), busy('b', 1), busy('c', 2)], 0, 'b'],
    ['a tie goes to the first', [busy('a', 1), busy('b', 1)], 0, 'a'],
    ['an idle replica first', [busy('a', 1), idle('b')], 0, 'b'],
    ['starting and stopping replicas are not picked', [starting('s'), stopping('x'), busy('c', 5)], 0, 'c'],
    ['only starting replicas: none', [starting('s1'), starting('s2')], 1, undefined],
    ['containerConcurrency 0: no limit', [busy('a', 1000)], 0, 'a'],
    ['all at containerConcurrency: none', [busy('a', 2), busy('b', 2)], 2, undefined],
    ['one at containerConcurrency: the other', [busy('a', 1), busy('b', 0)], 1, 'b'],
    ['above containerConcurrency (lowered): none', [busy('a', 3)], 2, undefined],
    ['room left below containerConcurrency', [busy('a', 2), busy('b', 1)], 2, 'b'],
  ])('%s', (_, replicas, containerConcurrency, expected) => {
    expect(pickReplica(replicas, containerConcurrency)?.id).toBe(expected);
  });
});

describe('nextIdleDeadline: when the pool has to decide again without a request', () => {
  it.each<[string, ReplicaView[], number | undefined]>([
    ['no replica: no timer', [], undefined],
    ['only a busy replica: no timer (the request’s end decides)', [busy('a', 1)], undefined],
    ['only a starting replica: no timer (becoming ready decides)', [starting('a', 0)], undefined],
    ['only a stopping replica: no timer (its exit decides)', [r('a', { state: 'stopping' })], undefined],
    ['a ready replica idle since NOW: NOW + idle window', [idle('a', 0)], NOW + IDLE_MS],
    ['two idle replicas: the earlier end', [idle('a', 1_000), idle('b', 5_000)], NOW + IDLE_MS - 5_000],
    ['a window already over (min-scale keeps it) is not waited for', [idle('a', IDLE_MS)], undefined],
    [
      'an over window beside a running one: the running one',
      [idle('a', 2 * IDLE_MS), idle('b', 10)],
      NOW + IDLE_MS - 10,
    ],
  ])('%s', (_, replicas, expected) => {
    expect(nextIdleDeadline(replicas, NOW, IDLE_MS)).toBe(expected);
  });
});
