/**
 * A process whose function never said it replies (shared/events/reply.ts `replyingFunction`):
 * no reply slot is entered (no AsyncLocalStorage, whose async hooks every promise would pay for),
 * so an offer is refused even where the request says `Prefer: reply`, and the function sends its
 * event itself (204). ./reply.test.ts covers a replying function.
 */
import * as ff from '@google-cloud/functions-framework';
import { buildEvent, offerReply, takeReply, withoutReplies, withReplySlot } from '../events/index.js';
import { serveFunction } from './index.js';

const emitted: string[] = [];

ff.cloudEvent('serve-test-no-reply', async (ce: unknown) => {
  await new Promise((r) => setTimeout(r, 1));
  const event = buildEvent({
    id: `reply-to-${String((ce as { id?: unknown }).id)}`,
    type: 't',
    source: '/test',
  });
  if (!offerReply(event)) emitted.push(event.id);
});

describe('a function that does not reply', () => {
  const event = buildEvent({ id: 'e', type: 't', source: '/s' });

  it('runs a request without a slot: offers are refused, nothing is taken', () => {
    const headers: Record<string, string> = {};
    const result = withReplySlot('reply', { setHeader: (k: string, v: string) => (headers[k] = v) }, () => {
      expect(offerReply(event)).toBe(false);
      return takeReply();
    });
    expect(result).toBeUndefined();
    expect(headers).toEqual({});
    expect(withoutReplies(() => offerReply(event))).toBe(false);
  });

  it('answers 204 through the framework server, the function sending its event itself', async () => {
    const serving = await serveFunction({ name: 'serve-test-no-reply', port: 0, host: '127.0.0.1' });
    try {
      const res = await fetch(`http://127.0.0.1:${serving.port}/`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'ce-specversion': '1.0',
          'ce-id': 'a',
          'ce-type': 't',
          'ce-source': '/s',
          prefer: 'reply',
        },
        body: '{}',
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('ce-id')).toBeNull();
      expect(emitted).toEqual(['reply-to-a']);
    } finally {
      await serving.close();
    }
  });
});
