import type { Seed, Shoot } from '../../shared/api/core.js';
import { createLogger } from '../../shared/log/index.js';
import { FunctionNotReadyError } from '../../shared/function/index.js';
import { createScheduleShootInstance, runScheduleShootEvent, shootEventTarget } from './handler.js';
import { allocatableShoots } from './inputs.js';
import { shootEventObject } from './report.js';

describe('shootEventTarget', () => {
  const ref = { name: 'a', namespace: 'garden-p' };
  it.each([
    [{ type: 'dev.knative.apiserver.ref.add', kind: 'Shoot', ...ref }, false],
    [{ type: 'dev.knative.apiserver.ref.delete', data: { kind: 'Shoot', ...ref } }, false],
    [{ type: 'dev.landscape.requeue', target: 'schedule-shoot', kind: 'Shoot', ...ref }, true],
  ])('takes %j', (ce, viaRequeue) => {
    expect(shootEventTarget(ce)).toEqual({ ref, viaRequeue });
  });

  it.each([
    [{ type: 'dev.knative.apiserver.ref.add', kind: 'Seed', name: 'a' }],
    [{ type: 'dev.knative.apiserver.resource.add', kind: 'Shoot', ...ref }],
    [{ type: 'dev.landscape.requeue', target: 'weeder', kind: 'Shoot', ...ref }],
    [{ type: 'dev.landscape.requeue', target: 'schedule-shoot', kind: 'DeployItem', ...ref }],
    [{ type: 'dev.knative.apiserver.ref.add', kind: 'Shoot', name: 'a' }],
    [{ type: 'dev.knative.sources.ping' }],
    [null],
  ])('ignores %j', (ce) => {
    expect(shootEventTarget(ce)).toBeUndefined();
  });
});

describe('allocatableShoots', () => {
  const seed = (allocatable?: Record<string, string | number>): Seed => ({
    metadata: { name: 's' },
    spec: { provider: { type: 't', region: 'r' } },
    status: allocatable ? { allocatable } : {},
  });
  it.each([
    [undefined, -1],
    [{ cpu: '1' }, -1],
    [{ shoots: '250' }, 250],
    [{ shoots: 7 }, 7],
    [{ shoots: '1k' }, 1000],
    [{ shoots: '-3' }, 0],
  ])('%j → %d', (allocatable, n) => {
    expect(allocatableShoots(seed(allocatable))).toBe(n);
  });
});

describe('shootEventObject', () => {
  const shoot: Shoot = {
    metadata: { name: 'a', namespace: 'garden-p', uid: 'u1', resourceVersion: '7' },
    spec: { region: 'r', provider: { type: 't' } },
  };
  it('an Event on the Shoot as upstream records it', () => {
    const event = shootEventObject(
      shoot,
      { type: 'Normal', reason: 'SchedulingSuccessful', message: "Scheduled to seed 's1'" },
      { now: new Date('2024-05-01T12:00:00.123Z'), newId: () => '0123456789abcdef-ffff' },
    );
    expect(event).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'a.0123456789abcdef', namespace: 'garden-p' },
      involvedObject: {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        name: 'a',
        namespace: 'garden-p',
        uid: 'u1',
        resourceVersion: '7',
      },
      type: 'Normal',
      reason: 'SchedulingSuccessful',
      message: "Scheduled to seed 's1'",
      source: { component: 'gardener-scheduler' },
      reportingComponent: 'gardener-scheduler',
      firstTimestamp: '2024-05-01T12:00:00Z',
      lastTimestamp: '2024-05-01T12:00:00Z',
      count: 1,
    });
  });
  it('cuts a long message to 1 KiB', () => {
    const event = shootEventObject(
      shoot,
      { type: 'Warning', reason: 'SchedulingFailed', message: 'x'.repeat(5000) },
      { now: new Date(0), newId: () => 'id' },
    );
    expect((event.message as string).length).toBe(1024);
    expect(event.message).toMatch(/\.\.\.$/);
  });
});

describe('a bad config', () => {
  it('is logged once and every event is answered 500 (rejected) without doing anything', async () => {
    const lines: { msg: string; problems?: string[] }[] = [];
    const instance = createScheduleShootInstance({
      env: () => ({ CONFIG_FILE: '/c.yaml' }),
      readFile: () => Promise.resolve('candidateDeterminationStrategy: Nearest\n'),
      log: createLogger({
        name: 't',
        level: 'info',
        destination: { write: (l: string) => void lines.push(JSON.parse(l)) },
      }),
    });
    const ce = { type: 'dev.knative.apiserver.ref.add', kind: 'Shoot', name: 'a', namespace: 'p' };
    await expect(runScheduleShootEvent(instance, ce)).rejects.toBeInstanceOf(FunctionNotReadyError);
    await expect(runScheduleShootEvent(instance, ce)).rejects.toBeInstanceOf(FunctionNotReadyError);
    expect(lines.map((l) => l.msg)).toEqual([
      'invalid config; events are answered 500 (retried, then dead-lettered) until it is fixed',
    ]);
    expect(lines[0].problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^candidateDeterminationStrategy: /),
        expect.stringMatching(/^redisUrl: /),
      ]),
    );
    await instance.close();
  });
});
