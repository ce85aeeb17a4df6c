/**
 * Replies (shared/events/reply.ts) through the framework server: an event a function offers is
 * the answer (200, binary mode) when the request says `Prefer: reply`, else the function sends it
 * itself (204); concurrent requests keep their own; a function failing after its offer answers
 * 500 with no event.
 */
import { jest } from '@jest/globals';
import * as ff from '@google-cloud/functions-framework';
import {
  buildEvent,
  decodeHttpEvent,
  offerReply,
  prefersReply,
  replyingFunction,
  takeReply,
  withReplySlot,
} from '../events/index.js';
import { serveFunction } from './index.js';

// this file's function answers with events (./reply-off.test.ts: a process whose function does not)
replyingFunction();

const emitted: string[] = [];

/** Offers `reply-to-<id>` after `wait-ms` (data attribute), emitting it itself when refused; fails when `fail` is set. */
ff.cloudEvent('serve-test-reply', async (ce: unknown) => {
  const attrs = ce as Record<string, unknown>;
  await new Promise((r) => setTimeout(r, Number(attrs['waitms'] ?? 0)));
  const event = buildEvent({
    id: `reply-to-${String(attrs['id'])}`,
    type: 'dev.landscape.test.reply',
    source: '/test',
    data: { for: attrs['id'] },
  });
  if (!offerReply(event)) emitted.push(event.id);
  // a second event is never a reply
  if (attrs['two'] && !offerReply(buildEvent({ id: 'second', type: 't', source: '/s' })))
    emitted.push('second');
  if (attrs['fail']) throw new Error('failed after the offer');
});

function post(port: number, id: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': id,
      'ce-type': 't',
      'ce-source': '/s',
      ...headers,
    },
    body: '{}',
  });
}

describe('prefersReply', () => {
  it.each<[string | string[] | undefined, boolean]>([
    ['reply', true],
    ['Reply', true],
    ['respond-async, reply', true],
    ['reply; x=1', true],
    [['wait=5', 'reply'], true],
    [undefined, false],
    ['', false],
    ['return=minimal', false],
    ['replying', false],
  ])('%j → %s', (header, wanted) => {
    expect(prefersReply(header)).toBe(wanted);
  });
});

describe('the reply slot', () => {
  const event = buildEvent({ id: 'e', type: 't', source: '/s', data: { a: 1 } });

  it('takes one offer inside a slot that accepts replies, and writes it as binary mode', () => {
    const headers: Record<string, string> = {};
    const body = withReplySlot('reply', { setHeader: (k: string, v: string) => (headers[k] = v) }, () => {
      expect(offerReply(event)).toBe(true);
      expect(offerReply(event)).toBe(false);
      return takeReply();
    });
    expect(headers['ce-id']).toBe('e');
    const decoded = decodeHttpEvent({ headers, body: Buffer.from(body ?? '') });
    expect(decoded.data).toEqual({ a: 1 });
  });

  it('refuses offers outside a slot and in a slot that does not accept replies', () => {
    expect(offerReply(event)).toBe(false);
    expect(takeReply()).toBeUndefined();
    withReplySlot(undefined, { setHeader: () => undefined }, () => {
      expect(offerReply(event)).toBe(false);
      expect(takeReply()).toBeUndefined();
    });
  });
});

describe('replies through the framework server', () => {
  let serving: Awaited<ReturnType<typeof serveFunction>>;
  beforeAll(async () => {
    serving = await serveFunction({ name: 'serve-test-reply', port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await serving?.close();
  });
  beforeEach(() => {
    emitted.length = 0;
  });

  it('answers 200 with the offered event where the request takes replies, 204 (sent by the function) where not', async () => {
    const replied = await post(serving.port, 'a', { prefer: 'reply' });
    expect(replied.status).toBe(200);
    const headers: Record<string, string> = {};
    replied.headers.forEach((v, k) => (headers[k] = v));
    const event = decodeHttpEvent({ headers, body: Buffer.from(await replied.arrayBuffer()) });
    expect(event).toMatchObject({ id: 'reply-to-a', type: 'dev.landscape.test.reply', data: { for: 'a' } });
    const plain = await post(serving.port, 'b');
    expect(plain.status).toBe(204);
    expect(plain.headers.get('ce-id')).toBeNull();
    expect(emitted).toEqual(['reply-to-b']);
  });

  it('keeps concurrent requests apart (each answer carries its own event)', async () => {
    const answers = await Promise.all(
      ['c1', 'c2', 'c3', 'c4'].map((id, i) =>
        post(serving.port, id, { prefer: 'reply', 'ce-waitms': String((4 - i) * 20) }),
      ),
    );
    expect(answers.map((r) => r.headers.get('ce-id'))).toEqual([
      'reply-to-c1',
      'reply-to-c2',
      'reply-to-c3',
      'reply-to-c4',
    ]);
    expect(emitted).toEqual([]);
  });

  it('sends a second event itself, and answers 500 with no event when the function fails after its offer', async () => {
    const two = await post(serving.port, 'd', { prefer: 'reply', 'ce-two': 'yes' });
    expect(two.headers.get('ce-id')).toBe('reply-to-d');
    expect(emitted).toEqual(['second']);
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const failed = await post(serving.port, 'e', { prefer: 'reply', 'ce-fail': 'yes' });
      expect(failed.status).toBe(500);
      expect(failed.headers.get('ce-id')).toBeNull();
    } finally {
      spy.mockRestore();
    }
  });
});
