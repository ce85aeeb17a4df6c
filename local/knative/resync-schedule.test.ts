import { Cron } from 'croner';
import { pingSpecs, resyncSchedule, withResyncInterval } from './resync-schedule.js';

describe('resyncSchedule', () => {
  it.each([
    [1_000, '*/1 * * * * *'],
    [5_000, '*/5 * * * * *'],
    [10_000, '*/10 * * * * *'],
    [59_400, '*/59 * * * * *'],
    [60_000, '0 */1 * * * *'],
    [5 * 60_000, '0 */5 * * * *'],
    [90_000, '0 */1 * * * *'],
    [2 * 3_600_000, '0 0 */2 * * *'],
    [24 * 3_600_000, '0 0 0 */1 * *'],
  ])('%i ms → %s', (ms, cron) => expect(resyncSchedule(ms)).toBe(cron));

  it('refuses less than a second', () => {
    expect(() => resyncSchedule(500)).toThrow(/at least 1s/);
    expect(() => resyncSchedule(Number.NaN)).toThrow(/at least 1s/);
  });

  it.each([2_000, 10_000, 15_000, 60_000, 300_000, 3_600_000])(
    'croner fires every %i ms from the top of the unit',
    (ms) => {
      const cron = new Cron(resyncSchedule(ms), { paused: true });
      const start = new Date('2026-01-01T00:00:00.000Z');
      const [a, b, c] = cron.nextRuns(3, start);
      expect(b.getTime() - a.getTime()).toBe(ms);
      expect(c.getTime() - b.getTime()).toBe(ms);
      cron.stop();
    },
  );
});

describe('withResyncInterval', () => {
  const ping = (labels: Record<string, string>): Record<string, unknown> => ({
    apiVersion: 'sources.knative.dev/v1',
    kind: 'PingSource',
    metadata: { name: 'p', labels },
    spec: { schedule: '*/5 * * * *', data: 'x' },
  });

  it('replaces the schedule of a resync PingSource, keeping the rest', () => {
    const out = withResyncInterval(ping({ 'landscape.dev/resync': 'true' }), 10_000);
    expect(out.spec).toEqual({ schedule: '*/10 * * * * *', data: 'x' });
  });

  it('leaves other PingSources, and everything without an interval, alone', () => {
    const other = ping({ 'landscape.dev/family': 'runtime' });
    expect(withResyncInterval(other, 10_000)).toBe(other);
    const resync = ping({ 'landscape.dev/resync': 'true' });
    expect(withResyncInterval(resync, undefined)).toBe(resync);
  });
});

describe('pingSpecs', () => {
  const doc = (name: string, labels: Record<string, string>, embedded?: string): Record<string, unknown> => ({
    apiVersion: 'sources.knative.dev/v1',
    kind: 'PingSource',
    metadata: {
      name,
      namespace: 'landscape-system',
      labels,
      ...(embedded ? { annotations: { 'landscape.dev/embedded-schedule': embedded } } : {}),
    },
    spec: {
      schedule: '*/5 * * * *',
      sink: { ref: { apiVersion: 'eventing.knative.dev/v1', kind: 'Broker', name: 'default' } },
    },
  });
  const resolve = (ref: { kind: string; name: string }): string | undefined =>
    ref.kind === 'Broker' ? `http://ingress/${ref.name}` : undefined;
  const set = {
    pingSources: [
      doc('deployers-resync', { 'landscape.dev/resync': 'true' }, '*/30 * * * * *'),
      doc('requeue-tick', {}, '* * * * * *'),
    ],
  };

  it('embedded schedules, and the resync interval for the resync PingSources only', () => {
    const r = pingSpecs(set, resolve, 5_000);
    expect(r.problems).toEqual([]);
    expect(r.specs.map((s) => [s.name, s.schedule, s.sink])).toEqual([
      ['deployers-resync', '*/5 * * * * *', 'http://ingress/default'],
      ['requeue-tick', '* * * * * *', 'http://ingress/default'],
    ]);
    expect(pingSpecs(set, resolve, undefined).specs.map((s) => s.schedule)).toEqual([
      '*/30 * * * * *',
      '* * * * * *',
    ]);
  });

  it('lists a sink it cannot resolve as a problem', () => {
    const r = pingSpecs(set, () => undefined, undefined);
    expect(r.specs).toEqual([]);
    expect(r.problems).toHaveLength(2);
  });
});

describe('pingSpecs with the PingSources own schedules (npm start without --embedded-schedules)', () => {
  const doc = (name: string, labels: Record<string, string>, embedded: string): Record<string, unknown> => ({
    apiVersion: 'sources.knative.dev/v1',
    kind: 'PingSource',
    metadata: {
      name,
      namespace: 'landscape-system',
      labels,
      annotations: { 'landscape.dev/embedded-schedule': embedded },
    },
    spec: {
      schedule: name === 'requeue-tick' ? '* * * * *' : '*/5 * * * *',
      sink: { ref: { apiVersion: 'eventing.knative.dev/v1', kind: 'Broker', name: 'default' } },
    },
  });
  const set = {
    pingSources: [
      doc('deployers-resync', { 'landscape.dev/resync': 'true' }, '*/30 * * * * *'),
      doc('requeue-tick', {}, '* * * * * *'),
    ],
  };
  const resolve = (): string => 'http://ingress/default';

  it('keeps spec.schedule (one-minute cron) and ignores the embedded annotation', () => {
    const r = pingSpecs(set, resolve, undefined, { embedded: false });
    expect(r.problems).toEqual([]);
    expect(r.specs.map((s) => [s.name, s.schedule])).toEqual([
      ['deployers-resync', '*/5 * * * *'],
      ['requeue-tick', '* * * * *'],
    ]);
  });

  it('still replaces the resync schedule with --resync-interval', () => {
    const r = pingSpecs(set, resolve, 10_000, { embedded: false });
    expect(r.specs.map((s) => [s.name, s.schedule])).toEqual([
      ['deployers-resync', '*/10 * * * * *'],
      ['requeue-tick', '* * * * *'],
    ]);
  });
});
