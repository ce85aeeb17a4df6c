import { jest } from '@jest/globals';
import type { Event, EmitResult } from '../../shared/events/index.js';
import { startPingSource } from './source.js';
import { toSpec } from './spec.js';
import { startSink } from '../../test/support/sink.js';
import { Broker } from '../broker/broker.js';
import { startIngress, withIngressAuth } from '../broker/ingress.js';

const spec = (
  schedule: string,
  extra: Record<string, unknown> = {},
  sink = 'http://sink.local/',
): ReturnType<typeof toSpec>['spec'] & object =>
  toSpec(
    {
      apiVersion: 'sources.knative.dev/v1',
      kind: 'PingSource',
      metadata: { name: 'tick', namespace: 'landscape' },
      spec: { schedule, sink: { uri: sink }, ...extra },
    },
    { allowSeconds: true },
  ).spec!;

const ok: EmitResult = { kind: 'response', ok: true, status: 202, headers: {}, body: '' };
const refused: EmitResult = { kind: 'response', ok: false, status: 503, headers: {}, body: '' };

describe('PingSource schedule (fake timers)', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('fires every minute at the scheduled time, in its time zone, after the jitter', async () => {
    jest.useFakeTimers({ now: new Date('2024-05-01T11:59:30.000Z') });
    const sent: Event[] = [];
    const sleeps: number[] = [];
    const src = startPingSource(spec('0 14 * * *', { timezone: 'Europe/Berlin' }), {
      send: (e) => {
        sent.push(e);
        return Promise.resolve(ok);
      },
      random: () => 0.25,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      newId: () => 'id',
    });
    expect(src.nextRun()?.toISOString()).toBe('2024-05-01T12:00:00.000Z');
    await jest.advanceTimersByTimeAsync(29_000);
    expect(sent).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(sent).toHaveLength(1);
    expect(sent[0].time).toBe('2024-05-01T12:00:00.000Z');
    expect(sent[0].source).toBe('/apis/v1/namespaces/landscape/pingsources/tick');
    expect(sleeps).toEqual([125]);
    expect(src.nextRun()?.toISOString()).toBe('2024-05-02T12:00:00.000Z');
    await src.stop();
    expect(src.nextRun()).toBeNull();
  });

  it('fires every minute with a five-field schedule', async () => {
    jest.useFakeTimers({ now: new Date('2024-05-01T12:00:10.000Z') });
    const times: string[] = [];
    const src = startPingSource(spec('* * * * *'), {
      send: (e) => {
        times.push(e.time!);
        return Promise.resolve(ok);
      },
      sleep: () => Promise.resolve(),
    });
    await jest.advanceTimersByTimeAsync(3 * 60_000);
    expect(times).toEqual([
      '2024-05-01T12:01:00.000Z',
      '2024-05-01T12:02:00.000Z',
      '2024-05-01T12:03:00.000Z',
    ]);
    await src.stop();
  });
});

describe('delivery', () => {
  it('retries a failed send with backoff from 50 ms, then gives up', async () => {
    const delays: number[] = [];
    let calls = 0;
    const src = startPingSource(spec('0 0 1 1 *'), {
      send: () => {
        calls++;
        return Promise.resolve(refused);
      },
      sleep: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
      random: () => 0,
    });
    expect(await src.fire(new Date())).toBe(false);
    expect(calls).toBe(6);
    expect(delays).toEqual([0, 50, 100, 200, 400, 800]);
    calls = 0;
    const flaky = startPingSource(spec('0 0 1 1 *'), {
      send: () => Promise.resolve(++calls < 3 ? refused : ok),
      sleep: () => Promise.resolve(),
    });
    expect(await flaky.fire(new Date())).toBe(true);
    expect(calls).toBe(3);
    await Promise.all([src.stop(), flaky.stop()]);
  });

  it('POSTs binary-mode events to a local sink on a six-field schedule every second', async () => {
    const sink = await startSink();
    const src = startPingSource(
      spec('* * * * * *', { contentType: 'text/plain', data: 'hello' }, sink.url),
      { random: () => 0.1 },
      { allowSeconds: true },
    );
    try {
      const reqs = await sink.waitFor(2, 4000);
      for (const r of reqs) {
        expect(r.method).toBe('POST');
        expect(r.headers['ce-type']).toBe('dev.knative.sources.ping');
        expect(r.headers['ce-source']).toBe('/apis/v1/namespaces/landscape/pingsources/tick');
        expect(r.headers['content-type']).toMatch(/^text\/plain/);
        expect(r.body).toBe('hello');
        expect(new Date(String(r.headers['ce-time'])).getMilliseconds()).toBe(0);
        const delay = r.receivedAt - new Date(String(r.headers['ce-time'])).getTime();
        expect(delay).toBeGreaterThanOrEqual(40);
        expect(delay).toBeLessThan(500);
      }
      expect(reqs[0].headers['ce-id']).not.toBe(reqs[1].headers['ce-id']);
    } finally {
      await src.stop();
      await sink.close();
    }
  });
});

describe('delivery to the embedded broker ingress', () => {
  it('sends the ingress token through the injected fetch; without it the ingress refuses', async () => {
    const delivered: string[] = [];
    const broker = new Broker({
      name: 'default',
      namespace: 'landscape',
      triggers: [{ name: 't', namespace: 'landscape', broker: 'default', subscriber: { uri: 'http://fn/' } }],
      fetch: (_url, init) => {
        delivered.push((init.headers as Record<string, string>)['ce-type']);
        return Promise.resolve(new Response(null, { status: 202 }));
      },
    });
    const ingress = await startIngress({ brokers: [broker], token: 'ping-token' });
    const sink = `${ingress.url}/landscape/default`;
    const quick = { random: () => 0, sleep: () => Promise.resolve(), retries: 0 };
    const open = startPingSource(spec('0 0 1 1 *', {}, sink), quick);
    const authed = startPingSource(spec('0 0 1 1 *', {}, sink), {
      ...quick,
      fetch: withIngressAuth((url, init) => fetch(url, init), 'ping-token', ingress.url),
    });
    try {
      expect(await open.fire(new Date())).toBe(false);
      await broker.idle();
      expect(delivered).toEqual([]);
      expect(await authed.fire(new Date())).toBe(true);
      await broker.idle();
      expect(delivered).toEqual(['dev.knative.sources.ping']);
    } finally {
      await Promise.all([open.stop(), authed.stop()]);
      await ingress.close();
    }
  });
});
