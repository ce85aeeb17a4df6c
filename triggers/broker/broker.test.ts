import { Registry } from 'prom-client';
import { buildEvent, decodeHttpEvent, encodeBinary, eventFromJSON } from '../../shared/events/index.js';
import type { Event, FetchLike } from '../../shared/events/index.js';
import { Broker } from './broker.js';
import type { BrokerOptions } from './broker.js';
import { MemoryDeadLetterStore } from './dlq.js';
import { brokerMetrics } from './metrics.js';
import { MAX_TTL } from './ttl.js';
import type { DeliverySpec, Trigger } from './trigger.js';

const event = buildEvent({
  id: 'e1',
  type: 'dev.landscape.requeue',
  source: '/ticker',
  target: 'fn',
  data: { a: 1 },
});
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const replyEvent = buildEvent({ id: 'r1', type: 'dev.landscape.reply', source: '/fn' });
const replyWire = encodeBinary(replyEvent);

/** A fake network: per URL a list of responders; records every request with the fake clock's time. */
function fakeNetwork(clock: { now: number }): {
  fetch: FetchLike;
  script: Record<string, ((e: Event) => Response | Promise<Response>)[]>;
  requests: { url: string; at: number; event: Event; headers: Record<string, string> }[];
} {
  const script: Record<string, ((e: Event) => Response | Promise<Response>)[]> = {};
  const requests: { url: string; at: number; event: Event; headers: Record<string, string> }[] = [];
  const fetch: FetchLike = async (url, init) => {
    const headers = init.headers as Record<string, string>;
    const ev = decodeHttpEvent({ headers, body: init.body as string });
    requests.push({ url, at: clock.now, event: ev, headers });
    const next = script[url]?.shift();
    if (!next) return new Response(null, { status: 202 });
    const signal = init.signal!;
    // Like real fetch: an abort rejects the pending request.
    const aborted = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
    );
    return Promise.race([Promise.resolve(next(ev)), aborted]);
  };
  return { fetch, script, requests };
}

function trigger(name: string, over: Partial<Trigger> = {}): Trigger {
  return { name, namespace: 'default', broker: 'default', subscriber: { uri: `http://${name}/` }, ...over };
}

async function counters(registry: Registry): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const metric of await registry.getMetricsAsJSON()) {
    for (const v of metric.values) {
      const labels = v.labels as Record<string, string>;
      out[`${metric.name}${labels.trigger ? `{${labels.trigger}}` : ''}`] = v.value;
    }
  }
  return out;
}

interface Setup {
  clock: { now: number };
  net: ReturnType<typeof fakeNetwork>;
  registry: Registry;
  deadLetters: MemoryDeadLetterStore;
  broker: Broker;
  start: number;
}

describe('Broker delivery', () => {
  function setup(triggers: Trigger[], extra: Partial<BrokerOptions> = {}): Setup {
    const clock = { now: Date.parse('2024-01-01T00:00:00Z') };
    const net = fakeNetwork(clock);
    const registry = new Registry();
    const deadLetters = new MemoryDeadLetterStore();
    let n = 0;
    const broker = new Broker({
      name: 'default',
      triggers,
      fetch: net.fetch,
      deadLetters,
      metrics: brokerMetrics(registry),
      now: () => new Date(clock.now),
      sleep: (ms) => {
        clock.now += ms;
        return Promise.resolve();
      },
      newId: () => `dl-${++n}`,
      ...extra,
    });
    return { clock, net, registry, deadLetters, broker, start: clock.now };
  }

  it('times exponential backoff with the injected clock, then dead-letters with the extensions', async () => {
    const delivery: DeliverySpec = {
      retry: 3,
      backoffPolicy: 'exponential',
      backoffDelay: 'PT0.5S',
      deadLetterSink: { uri: 'http://dls/' },
    };
    const { net, broker, deadLetters, registry, start } = setup([trigger('sub', { delivery })]);
    net.script['http://sub/'] = [0, 1, 2, 3].map(() => () => new Response('boom', { status: 500 }));
    expect(broker.publish(event)).toBe(1);
    await broker.idle();
    const subCalls = net.requests.filter((r) => r.url === 'http://sub/');
    expect(subCalls.map((r) => r.at - start)).toEqual([0, 500, 1500, 3500]);
    expect(subCalls[0].headers.Prefer).toBe('reply');

    const dls = net.requests.filter((r) => r.url === 'http://dls/');
    expect(dls).toHaveLength(1);
    expect(dls[0].event.toJSON()).toMatchObject({
      id: 'e1',
      target: 'fn',
      knativeerrordest: 'http://sub/',
      knativeerrorcode: '500', // binary mode: every extension is a header string on the wire
      knativeerrordata: b64('boom'),
    });
    expect(await deadLetters.list()).toEqual([
      {
        id: 'dl-1',
        time: new Date(start + 3500).toISOString(),
        broker: 'default/default',
        trigger: 'default/sub',
        subscriber: 'http://sub/',
        reason: 'retries-exhausted',
        attempts: 4,
        // as the broker held it: with the TTL it got (Knative's dispatcher sends that message)
        event: { ...event.toJSON(), knativebrokerttl: 255 },
        extensions: { knativeerrordest: 'http://sub/', knativeerrorcode: 500, knativeerrordata: b64('boom') },
      },
    ]);
    expect(await counters(registry)).toMatchObject({
      'broker_events_retried_total{default/sub}': 3,
      'broker_events_dead_lettered_total{default/sub}': 1,
    });
  });

  it("sends the dead-letter sink the event's bytes as they came, and stores a letter that replays them", async () => {
    const body = '{ "n": 12345678901234567890, "f": 1.0 }';
    const raw = decodeHttpEvent(
      {
        headers: {
          'ce-specversion': '1.0',
          'ce-id': 'raw1',
          'ce-source': '/s',
          'ce-type': 'dev.landscape.requeue',
          'ce-time': '2024-01-01T00:00:00.000Z',
          'content-type': 'application/json',
        },
        body: Buffer.from(body),
      },
      { rawData: true },
    );
    const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
    const fetch: FetchLike = (url, init) => {
      const b = init.body;
      sent.push({
        url,
        headers: init.headers as Record<string, string>,
        body: typeof b === 'string' ? b : Buffer.from(b as Uint8Array).toString('utf8'),
      });
      return Promise.resolve(
        new Response(url === 'http://sub/' ? 'no' : null, { status: url === 'http://sub/' ? 400 : 202 }),
      );
    };
    const delivery: DeliverySpec = { deadLetterSink: { uri: 'http://dls/' } };
    const { broker, deadLetters } = setup([trigger('sub', { delivery })], { fetch });
    broker.publish(raw);
    await broker.idle();
    expect(sent.map((r) => [r.url, r.body])).toEqual([
      ['http://sub/', body],
      ['http://dls/', body],
    ]);
    expect(sent[1].headers).toMatchObject({
      'ce-id': 'raw1',
      'ce-knativeerrorcode': '400',
      'content-type': 'application/json',
    });
    const [letter] = await deadLetters.list();
    expect(letter.event).toMatchObject({ id: 'raw1', data: body });
    expect(Buffer.from(encodeBinary(eventFromJSON(letter.event)).body).toString('utf8')).toBe(body);
  });

  it('linear backoff: first retry immediate, then delay×n', async () => {
    const delivery: DeliverySpec = { retry: 3, backoffPolicy: 'linear', backoffDelay: 'PT2S' };
    const { net, broker, start } = setup([trigger('sub', { delivery })]);
    net.script['http://sub/'] = [
      () => new Response(null, { status: 429 }),
      () => new Response(null, { status: 503 }),
      () => new Response(null, { status: 204 }),
    ];
    broker.publish(event);
    await broker.idle();
    expect(net.requests.map((r) => r.at - start)).toEqual([0, 0, 2000]);
  });

  it('a non-retryable status goes to the dead letter at once', async () => {
    const { net, broker, deadLetters, registry } = setup([trigger('sub', { delivery: { retry: 5 } })]);
    net.script['http://sub/'] = [() => new Response('no such thing', { status: 400 })];
    broker.publish(event);
    await broker.idle();
    expect(net.requests).toHaveLength(1);
    const [letter] = await deadLetters.list();
    expect(letter).toMatchObject({
      reason: 'non-retryable',
      attempts: 1,
      extensions: { knativeerrorcode: 400, knativeerrordata: b64('no such thing') },
    });
    expect(await counters(registry)).toMatchObject({ 'broker_events_dead_lettered_total{default/sub}': 1 });
  });

  it('after stop() a delivery that fails is abandoned, not dead-lettered (the stop cut it)', async () => {
    const { net, broker, deadLetters, registry } = setup([trigger('sub', { delivery: { retry: 5 } })]);
    net.script['http://sub/'] = [
      () => {
        broker.stop();
        return new Response('connection refused at stop', { status: 400 });
      },
    ];
    broker.publish(event);
    await broker.idle();
    expect(net.requests).toHaveLength(1);
    expect(await deadLetters.list()).toEqual([]);
    expect(await counters(registry)).not.toHaveProperty('broker_events_dead_lettered_total{default/sub}');
  });

  it('counts deliveries per trigger and uses the broker delivery when the trigger has none', async () => {
    const { net, broker, registry } = setup(
      [
        trigger('a'),
        trigger('b', { attributes: { type: 'other' } }),
        trigger('c', { delivery: { retry: 0 } }),
      ],
      { delivery: { retry: 2 } },
    );
    net.script['http://a/'] = [() => new Response(null, { status: 503 })];
    net.script['http://c/'] = [() => new Response(null, { status: 503 })];
    expect(broker.publish(event)).toBe(2);
    await broker.idle();
    expect(await counters(registry)).toMatchObject({
      'broker_events_delivered_total{default/a}': 1,
      'broker_events_retried_total{default/a}': 1,
      'broker_events_dead_lettered_total{default/c}': 1,
    });
  });

  it('times out each attempt (per-attempt timeout), retries, then dead-letters', async () => {
    const { net, broker, deadLetters } = setup([
      trigger('slow', { delivery: { retry: 1, timeout: 'PT0.05S' } }),
    ]);
    const hang = (): Promise<Response> => new Promise(() => undefined);
    net.script['http://slow/'] = [hang, hang];
    broker.publish(event);
    await broker.idle();
    expect(net.requests).toHaveLength(2);
    const [letter] = await deadLetters.list();
    expect(letter.extensions).toEqual({
      knativeerrordest: 'http://slow/',
      knativeerrorcode: 500,
      knativeerrordata: b64('dispatch error: timeout after 50 ms'),
    });
  });

  it('publishes a CloudEvent reply back into the broker', async () => {
    const { net, broker } = setup([
      trigger('fn', { attributes: { type: 'dev.landscape.requeue' } }),
      trigger('listener', { filters: [{ exact: { type: 'dev.landscape.reply' } }] }),
    ]);
    net.script['http://fn/'] = [
      () => new Response(replyWire.body as string, { status: 200, headers: replyWire.headers }),
    ];
    broker.publish(event);
    await broker.idle();
    expect(net.requests.map((r) => [r.url, r.event.id])).toEqual([
      ['http://fn/', 'e1'],
      ['http://listener/', 'r1'],
    ]);
  });

  it('a non-CloudEvent reply body is an error (502, retried)', async () => {
    const { net, broker, deadLetters } = setup([trigger('fn', { delivery: { retry: 1 } })]);
    net.script['http://fn/'] = [
      () => new Response('ok!', { status: 200 }),
      () => new Response('ok!', { status: 200 }),
    ];
    broker.publish(event);
    await broker.idle();
    expect(net.requests).toHaveLength(2);
    expect((await deadLetters.list())[0].extensions).toMatchObject({
      knativeerrorcode: 502,
      knativeerrordata: b64('ok!'),
    });
  });

  it('resolves ref subscribers through the injected resolver; unresolved ones are dead-lettered', async () => {
    const ref = { apiVersion: 'serving.knative.dev/v1', kind: 'Service', name: 'mock-deployer' };
    const resolve = (r: { kind: string; name: string; namespace?: string }): string | undefined =>
      r.name === 'mock-deployer' ? `http://127.0.0.9/${r.namespace}/${r.name}/` : undefined;
    const { net, broker, deadLetters } = setup(
      [
        trigger('by-ref', { subscriber: { ref, uri: 'hook' } }),
        trigger('missing', { subscriber: { ref: { kind: 'Service', name: 'absent' } } }),
      ],
      { resolve },
    );
    broker.publish(event);
    await broker.idle();
    expect(net.requests.map((r) => r.url)).toEqual(['http://127.0.0.9/default/mock-deployer/hook']);
    expect(await deadLetters.list()).toMatchObject([
      {
        trigger: 'default/missing',
        reason: 'unresolved-subscriber',
        attempts: 0,
        subscriber: 'Service/absent',
      },
    ]);
  });

  it("queues deliveries per trigger: one trigger's backlog does not hold another's events", async () => {
    const { net, broker } = setup([trigger('slow'), trigger('fast')], { concurrency: 1 });
    let release!: () => void;
    const held = new Promise<Response>((r) => (release = () => r(new Response(null, { status: 202 }))));
    net.script['http://slow/'] = [() => held];
    // three events for both triggers: slow's first delivery hangs, so its other two wait in its queue
    for (const id of ['a', 'b', 'c']) broker.publish(buildEvent({ id, type: 't', source: '/s' }));
    await new Promise((r) => setImmediate(r));
    const seen = (url: string): string[] => net.requests.filter((r) => r.url === url).map((r) => r.event.id);
    expect(seen('http://slow/')).toEqual(['a']);
    expect(seen('http://fast/')).toEqual(['a', 'b', 'c']);
    release();
    await broker.idle();
    expect(seen('http://slow/')).toEqual(['a', 'b', 'c']);
  });

  it('still sends what was queued for a trigger removed meanwhile (its queue is not dropped while busy), and nothing new to it', async () => {
    const { net, broker } = setup([trigger('gone'), trigger('stays')], { concurrency: 1 });
    let release!: () => void;
    const held = new Promise<Response>((r) => (release = () => r(new Response(null, { status: 202 }))));
    net.script['http://gone/'] = [() => held];
    broker.publish(buildEvent({ id: 'a', type: 't', source: '/s' }));
    broker.publish(buildEvent({ id: 'b', type: 't', source: '/s' }));
    await new Promise((r) => setImmediate(r));
    broker.setTriggers([trigger('stays')]);
    release();
    await broker.idle();
    // the queued delivery of 'b' to the removed trigger still went out (it was accepted before the change)
    expect(net.requests.filter((r) => r.url === 'http://gone/').map((r) => r.event.id)).toEqual(['a', 'b']);
    broker.publish(buildEvent({ id: 'c', type: 't', source: '/s' }));
    await broker.idle();
    expect(net.requests.filter((r) => r.url === 'http://gone/')).toHaveLength(2);
    expect(net.requests.filter((r) => r.url === 'http://stays/').map((r) => r.event.id)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('bounds a reply chain by the broker TTL: each reply one less, the last refused and the event it answered dead-lettered', async () => {
    // a subscriber that answers every event with an event it takes itself (a loop through the broker)
    const seen: { id: string; ttl: string | undefined }[] = [];
    let n = 0;
    const loop: FetchLike = (_url, init) => {
      const headers = init.headers as Record<string, string>;
      seen.push({ id: headers['ce-id'], ttl: headers['ce-knativebrokerttl'] });
      const reply = encodeBinary(buildEvent({ id: `r${++n}`, type: 'loop', source: '/loop' }));
      return Promise.resolve(new Response(reply.body as string, { status: 200, headers: reply.headers }));
    };
    const { broker, deadLetters } = setup([trigger('loop', { attributes: { type: 'loop' } })], {
      fetch: loop,
      address: 'http://ingress/default/default',
    });
    // as the ingress hands it on: three hops left
    broker.publish(buildEvent({ id: 'start', type: 'loop', source: '/s' }), 3);
    await broker.idle();
    // start (3), r1 (2), r2 (1); r3 would have 0: refused
    expect(seen).toEqual([
      { id: 'start', ttl: undefined },
      { id: 'r1', ttl: undefined },
      { id: 'r2', ttl: undefined },
    ]);
    const letters = await deadLetters.list();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      reason: 'reply-refused',
      subscriber: 'http://ingress/default/default',
      event: { id: 'r2', knativebrokerttl: 1 },
      extensions: { knativeerrordest: 'http://ingress/default/default', knativeerrorcode: 400 },
    });
  });

  it("gives a reply the answered event's TTL less one (the maximum for one published without), whatever TTL the reply carries", async () => {
    const { net, broker } = setup([
      trigger('a', { attributes: { type: 'a' } }),
      trigger('b', { attributes: { type: 'b' } }),
    ]);
    // the subscriber's reply carries a TTL of its own: the broker's wins, and the next subscriber sees none
    const reply = encodeBinary(buildEvent({ id: 'rb', type: 'b', source: '/a', knativebrokerttl: 9 }));
    net.script['http://a/'] = [
      () => new Response(reply.body as string, { status: 200, headers: reply.headers }),
    ];
    const published: [string, unknown, number | undefined][] = [];
    const publish = broker.publish.bind(broker);
    broker.publish = (e: Event, ttl?: number): number => {
      published.push([e.id, e.knativebrokerttl, ttl]);
      return publish(e, ttl);
    };
    broker.publish(buildEvent({ id: 'ea', type: 'a', source: '/s' }));
    await broker.idle();
    expect(published).toEqual([
      ['ea', undefined, undefined],
      ['rb', undefined, MAX_TTL - 1],
    ]);
    expect(net.requests.map((r) => [r.event.id, r.headers['ce-knativebrokerttl']])).toEqual([
      ['ea', undefined],
      ['rb', undefined],
    ]);
  });

  it('ignores triggers of other brokers', () => {
    const { broker } = setup([trigger('x', { broker: 'other' }), trigger('y', { namespace: 'ns' })]);
    expect(broker.publish(event)).toBe(0);
  });
});
