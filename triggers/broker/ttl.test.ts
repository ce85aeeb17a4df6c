import { buildEvent, encodeBinary, type Event } from '../../shared/events/index.js';
import { ingressTtl, MAX_TTL, ttlOf, withoutTtl, withTtl } from './ttl.js';

const event = (ttl?: unknown): Event =>
  buildEvent({ id: '1', type: 't', source: '/s', ...(ttl !== undefined ? { knativebrokerttl: ttl } : {}) });

describe('broker TTL (knative/eventing pkg/broker/ttl.go TTLDefaulter)', () => {
  it.each<[string, unknown, number]>([
    ['none: a new event gets the maximum', undefined, MAX_TTL],
    ['an integer: one less', 10, 9],
    ['an integer as the header gives it (a string): one less', '10', 9],
    ['1: used up', 1, 0],
    ['0 stays 0', 0, 0],
    ['below 0: 0', -5, 0],
    ['no integer: the maximum', 'abc', MAX_TTL],
    ['a fraction: the maximum', '1.5', MAX_TTL],
    ['beyond int32: the maximum', String(2 ** 40), MAX_TTL],
  ])('%s', (_what, ttl, want) => {
    expect(ingressTtl(event(ttl))).toBe(want);
  });

  it('reads the TTL an event carries, as a number', () => {
    expect(ttlOf(event())).toBeUndefined();
    expect(ttlOf(withTtl(event(), 7))).toBe(7);
    expect(ttlOf(event('42'))).toBe(42);
  });

  it('takes the TTL off the event a subscriber gets, and nothing else', () => {
    const sent = encodeBinary(withoutTtl(withTtl(event(), 200)));
    expect(sent.headers).not.toHaveProperty('ce-knativebrokerttl');
    expect(sent.headers).toMatchObject({ 'ce-id': '1', 'ce-type': 't', 'ce-source': '/s' });
    expect(encodeBinary(withTtl(event(), 200)).headers['ce-knativebrokerttl']).toBe('200');
  });
});
