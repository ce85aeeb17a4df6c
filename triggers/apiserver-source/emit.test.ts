import { Writable } from 'node:stream';
import { createLogger } from '../../shared/log/index.js';
import { backoffDelay, binaryHeaders, createEmitter, isRetryableStatus } from './emit.js';
import type { FetchLike } from './emit.js';
import type { OutboundEvent } from './types.js';

const event: OutboundEvent = {
  attributes: {
    specversion: '1.0',
    id: 'i',
    source: 's',
    type: 't',
    subject: '/x',
    datacontenttype: 'application/json',
    kind: 'Pod',
  },
  data: { a: 1 },
};

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, stream };
}

describe('binaryHeaders', () => {
  it('ce-* for attributes, content-type for datacontenttype', () => {
    expect(binaryHeaders(event)).toEqual({
      'ce-specversion': '1.0',
      'ce-id': 'i',
      'ce-source': 's',
      'ce-type': 't',
      'ce-subject': '/x',
      'content-type': 'application/json',
      'ce-kind': 'Pod',
    });
  });
});

describe("retry rules (cloudevents/sdk-go's defaultRetriableErrors and exponential BackoffFor)", () => {
  it.each([
    [404, true],
    [413, true],
    [425, true],
    [429, true],
    [502, true],
    [503, true],
    [504, true],
    [500, false],
    [501, false],
    [408, false],
    [409, false],
    [400, false],
    [403, false],
    [302, false],
  ])('%i retryable: %s', (status, want) => expect(isRetryableStatus(status)).toBe(want));

  it.each([
    [2, 100],
    [3, 200],
    [4, 400],
    [5, 800],
    [6, 1600],
  ])('delay before attempt %i is %i ms', (n, ms) => expect(backoffDelay(50, n)).toBe(ms));
});

describe('createEmitter', () => {
  function setup(statuses: (number | Error)[]): {
    emit: ReturnType<typeof createEmitter>;
    sleeps: number[];
    calls: RequestInit[];
    lines: string[];
  } {
    const sleeps: number[] = [];
    const calls: RequestInit[] = [];
    const { lines, stream } = capture();
    const fetch: FetchLike = (_url, init) => {
      calls.push(init);
      const next = statuses.shift() ?? 200;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve({ status: next });
    };
    const emit = createEmitter({
      logger: createLogger({ name: 't', destination: stream }),
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      fetch,
    });
    return { emit, sleeps, calls, lines };
  }

  it('delivers on the first 2xx', async () => {
    const s = setup([202]);
    await expect(s.emit('http://sink', event)).resolves.toEqual({
      delivered: true,
      attempts: 1,
      status: 202,
    });
    expect(s.calls[0].method).toBe('POST');
    expect(s.calls[0].body).toBe('{"a":1}');
    expect(s.sleeps).toEqual([]);
  });

  it('retries network errors and 502/503/504 with backoff 100, 200, ... ms', async () => {
    const s = setup([new Error('ECONNREFUSED'), 503, 502, 504, 200]);
    await expect(s.emit('http://sink', event)).resolves.toMatchObject({ delivered: true, attempts: 5 });
    expect(s.sleeps).toEqual([100, 200, 400, 800]);
  });

  it('drops after 1 attempt and 5 retries and says so in the log', async () => {
    const s = setup([503, 503, 503, 503, 503, 503, 503]);
    await expect(s.emit('http://sink', event)).resolves.toEqual({
      delivered: false,
      attempts: 6,
      status: 503,
      error: undefined,
    });
    expect(s.sleeps).toEqual([100, 200, 400, 800, 1600]);
    expect(s.calls).toHaveLength(6);
    const line = JSON.parse(s.lines.join(''));
    expect(line).toMatchObject({
      level: 'error',
      msg: 'failed to send cloudevent: dropped',
      id: 'i',
      attempts: 6,
      status: 503,
    });
  });

  it("does not retry a 500 (not in sdk-go's retriable set): dropped at once", async () => {
    const s = setup([500, 200]);
    await expect(s.emit('http://sink', event)).resolves.toMatchObject({
      delivered: false,
      attempts: 1,
      status: 500,
    });
    expect(s.calls).toHaveLength(1);
  });

  it('does not retry a 400', async () => {
    const s = setup([400]);
    await expect(s.emit('http://sink', event)).resolves.toMatchObject({
      delivered: false,
      attempts: 1,
      status: 400,
    });
    expect(s.calls).toHaveLength(1);
  });

  it('gives up an attempt after timeoutMs with a timeout error, and clears the timer of an answered one', async () => {
    const { stream } = capture();
    const signals: AbortSignal[] = [];
    // never answers: rejects only when the signal aborts, with the reason as its cause (as node:http does)
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => {
        const signal = init.signal!;
        signals.push(signal);
        signal.addEventListener('abort', () =>
          reject(new Error('The operation was aborted', { cause: signal.reason })),
        );
      });
    const emit = createEmitter({
      logger: createLogger({ name: 't', destination: stream }),
      sleep: () => Promise.resolve(),
      fetch: hanging,
      attempts: 1,
      timeoutMs: 20,
    });
    const result = await emit('http://sink', event);
    expect(result).toMatchObject({ delivered: false, attempts: 1 });
    expect(!result.delivered && result.error).toMatch(/aborted/);
    expect((signals[0].reason as DOMException).name).toBe('TimeoutError');
    const answered: AbortSignal[] = [];
    const quick = createEmitter({
      logger: createLogger({ name: 't', destination: stream }),
      sleep: () => Promise.resolve(),
      fetch: (_url, init) => {
        answered.push(init.signal!);
        return Promise.resolve({ status: 202 });
      },
      timeoutMs: 20,
    });
    await quick('http://sink', event);
    await new Promise((r) => setTimeout(r, 60));
    // the answered attempt's signal never aborts: its timer went with the answer
    expect(answered[0].aborted).toBe(false);
  });
});
