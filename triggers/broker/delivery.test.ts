import { buildEvent, encodeBinary } from '../../shared/events/index.js';
import type { EmitResult } from '../../shared/events/index.js';
import {
  backoffMs,
  backoffSchedule,
  deliver,
  errorExtensions,
  isRetryableStatus,
  judgeAttempt,
  planDelivery,
} from './delivery.js';
import type { DeliverySpec } from './trigger.js';

const event = buildEvent({
  id: 'e1',
  type: 'dev.landscape.requeue',
  source: '/ticker',
  target: 'fn',
  data: { a: 1 },
});
const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('selective retry (Knative SelectiveRetry)', () => {
  it.each([
    [0, true],
    [-1, true],
    [300, false],
    [301, false],
    [302, false],
    [400, false],
    [401, false],
    [403, false],
    [404, true],
    [405, false],
    [408, true],
    [409, true],
    [410, false],
    [422, false],
    [429, true],
    [500, true],
    [501, true],
    [502, true],
    [503, true],
    [504, true],
  ])('status %i retryable: %p', (status, want) => {
    expect(isRetryableStatus(status)).toBe(want);
  });
});

describe('backoff (zero-based attempt index, as the dispatcher passes it)', () => {
  it.each<[string, DeliverySpec, number[]]>([
    [
      'linear PT2.5S',
      { retry: 5, backoffPolicy: 'linear', backoffDelay: 'PT2.5S' },
      [0, 2500, 5000, 7500, 10000],
    ],
    [
      'exponential PT0.5S',
      { retry: 5, backoffPolicy: 'exponential', backoffDelay: 'PT0.5S' },
      [500, 1000, 2000, 4000, 8000],
    ],
    [
      'exponential PT1.5S',
      { retry: 3, backoffPolicy: 'exponential', backoffDelay: 'PT1.5S' },
      [1500, 3000, 6000],
    ],
    ['policy without delay: none', { retry: 2, backoffPolicy: 'linear' }, [0, 0]],
    ['delay without policy: none', { retry: 2, backoffDelay: 'PT1S' }, [0, 0]],
    ['no retries', { backoffPolicy: 'exponential', backoffDelay: 'PT1S' }, []],
  ])('%s', (_name, spec, want) => {
    expect(backoffSchedule(planDelivery(spec))).toEqual(want);
  });
  it('matches Knative Backoff(n) for n >= 1 (its own table)', () => {
    const linear = planDelivery({ backoffPolicy: 'linear', backoffDelay: 'PT2.5S' });
    const exp = planDelivery({ backoffPolicy: 'exponential', backoffDelay: 'PT1.5S' });
    expect([1, 2, 3, 4].map((n) => backoffMs(linear, n))).toEqual([2500, 5000, 7500, 10000]);
    expect([1, 2, 3, 4].map((n) => backoffMs(exp, n))).toEqual([3000, 6000, 12000, 24000]);
  });
});

function response(status: number, body = '', headers: Record<string, string> = {}): EmitResult {
  return { kind: 'response', ok: status >= 200 && status < 300, status, headers, body };
}
const networkError: EmitResult = {
  kind: 'error',
  ok: false,
  status: 0,
  timedOut: false,
  error: 'ECONNREFUSED',
};
const replyEvent = buildEvent({ id: 'r1', type: 'dev.landscape.reply', source: '/fn' });
const replyWire = encodeBinary(replyEvent);

describe('deliver', () => {
  type Row = [string, DeliverySpec, EmitResult[], Record<string, unknown>, number[]];
  const rows: Row[] = [
    ['2xx first time', { retry: 3 }, [response(202)], { kind: 'delivered', attempts: 1 }, []],
    [
      '503, 503, 200 with exponential PT1S',
      { retry: 3, backoffPolicy: 'exponential', backoffDelay: 'PT1S' },
      [response(503), response(503), response(200)],
      { kind: 'delivered', attempts: 3 },
      [1000, 2000],
    ],
    [
      '404 x4 with linear PT1S: retries exhausted',
      { retry: 3, backoffPolicy: 'linear', backoffDelay: 'PT1S' },
      [response(404, 'nf'), response(404), response(404), response(404, 'gone')],
      { kind: 'failed', attempts: 4, code: 404, body: 'gone', exhausted: true },
      [0, 1000, 2000],
    ],
    [
      '400: not retried',
      { retry: 3 },
      [response(400, 'bad')],
      { kind: 'failed', attempts: 1, code: 400, exhausted: false },
      [],
    ],
    [
      '302: not retried',
      { retry: 3 },
      [response(302)],
      { kind: 'failed', attempts: 1, code: 302, exhausted: false },
      [],
    ],
    ['403: not retried', { retry: 3 }, [response(403)], { kind: 'failed', attempts: 1, code: 403 }, []],
    [
      '408, 409, 429 retried',
      { retry: 3 },
      [response(408), response(409), response(429), response(204)],
      { kind: 'delivered', attempts: 4 },
      [0, 0, 0],
    ],
    [
      'network error retried',
      { retry: 1 },
      [networkError, response(200)],
      { kind: 'delivered', attempts: 2 },
      [0],
    ],
    [
      'network error exhausted: code 500',
      { retry: 1 },
      [networkError, networkError],
      { kind: 'failed', attempts: 2, code: 500, body: 'dispatch error: ECONNREFUSED', exhausted: true },
      [0],
    ],
    [
      'non-CloudEvent reply body: 502, retried',
      { retry: 1 },
      [response(200, 'hello'), response(200, 'hello')],
      { kind: 'failed', attempts: 2, code: 502, body: 'hello', exhausted: true },
      [0],
    ],
    [
      'retry 0: one attempt',
      {},
      [response(500)],
      { kind: 'failed', attempts: 1, code: 500, exhausted: true },
      [],
    ],
  ];
  it.each(rows)('%s', async (_name, spec, outcomes, want, sleeps) => {
    const slept: number[] = [];
    const queue = [...outcomes];
    const result = await deliver(event, 'http://sub/', planDelivery(spec), {
      send: () => Promise.resolve(queue.shift()!),
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    expect(result).toMatchObject(want);
    expect(slept).toEqual(sleeps);
    expect(queue).toEqual([]);
  });

  it('takes a CloudEvent reply (binary and structured)', () => {
    const binary = judgeAttempt(response(200, String(replyWire.body), replyWire.headers));
    expect(binary).toMatchObject({ kind: 'success', reply: { id: 'r1', type: 'dev.landscape.reply' } });
    const structured = judgeAttempt(
      response(200, JSON.stringify(replyEvent.toJSON()), { 'content-type': 'application/cloudevents+json' }),
    );
    expect(structured).toMatchObject({ kind: 'success', reply: { id: 'r1' } });
    expect(judgeAttempt(response(204))).toEqual({ kind: 'success', status: 204 });
  });

  it("publishes a binary reply's body as it came (not parsed, as the ingress takes events)", () => {
    const body = '{ "n": 12345678901234567890 }';
    const got = judgeAttempt(
      response(200, body, { ...replyWire.headers, 'content-type': 'application/json' }),
    );
    if (got.kind !== 'success' || !got.reply) throw new Error(`no reply: ${JSON.stringify(got)}`);
    expect(Buffer.from(encodeBinary(got.reply).body).toString('utf8')).toBe(body);
    const notJson = judgeAttempt(
      response(200, '{no', { ...replyWire.headers, 'content-type': 'application/json' }),
    );
    expect(notJson).toMatchObject({ kind: 'success', reply: { id: 'r1' } });
  });
});

describe('errorExtensions', () => {
  it('base64 of the body, cut at 1024 characters', () => {
    const long = 'x'.repeat(2000);
    const ext = errorExtensions({ destination: 'http://sub/', code: 500, body: long });
    expect(ext.knativeerrordata).toBe(b64(long).slice(0, 1024));
    expect(String(ext.knativeerrordata)).toHaveLength(1024);
    expect(errorExtensions({ destination: 'd', code: 400, body: 'no' })).toEqual({
      knativeerrordest: 'd',
      knativeerrorcode: 400,
      knativeerrordata: b64('no'),
    });
  });
});
