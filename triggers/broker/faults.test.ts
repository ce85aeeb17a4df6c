import { buildEvent, decodeHttpEvent } from '../../shared/events/index.js';
import type { FetchLike } from '../../shared/events/index.js';
import { Broker } from './broker.js';
import type { BrokerOptions } from './broker.js';
import { MemoryDeadLetterStore } from './dlq.js';
import { BrokerFaults } from './faults.js';
import { startIngress } from './ingress.js';
import type { Trigger } from './trigger.js';

const ev = (id: string): ReturnType<typeof buildEvent> =>
  buildEvent({ id, type: 'dev.landscape.requeue', source: '/ticker', target: 'fn' });

/** Returns the given numbers in turn (and fails the test when it runs out). */
function randoms(...values: number[]): () => number {
  const queue = [...values];
  return () => {
    const v = queue.shift();
    if (v === undefined) throw new Error('random() called more often than scripted');
    return v;
  };
}

/**
 * Virtual time: `sleep` queues a timer; `run` fires them earliest first (ties in order) until
 * the broker is idle, so holds decide the order without real waiting.
 */
function virtualTime(): {
  now: () => number;
  sleeps: number[];
  sleep: (ms: number) => Promise<void>;
  run: (broker: Broker) => Promise<void>;
} {
  let now = 0;
  let seq = 0;
  const sleeps: number[] = [];
  const timers: { due: number; seq: number; resolve: () => void }[] = [];
  const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
  return {
    now: () => now,
    sleeps,
    sleep: (ms) => {
      sleeps.push(ms);
      return new Promise((resolve) => timers.push({ due: now + ms, seq: seq++, resolve }));
    },
    run: async (broker) => {
      let idle = false;
      void broker.idle().then(() => (idle = true));
      for (;;) {
        await turn();
        if (idle) return;
        timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
        const next = timers.shift();
        if (next === undefined) continue;
        now = Math.max(now, next.due);
        next.resolve();
      }
    },
  };
}

function trigger(name: string, over: Partial<Trigger> = {}): Trigger {
  return { name, namespace: 'default', broker: 'default', subscriber: { uri: `http://${name}/` }, ...over };
}

interface Setup {
  broker: Broker;
  faults: BrokerFaults;
  time: ReturnType<typeof virtualTime>;
  deadLetters: MemoryDeadLetterStore;
  /** Every request: URL, event id and virtual time. */
  requests: { url: string; id: string; at: number }[];
  /** Per URL the statuses to answer in turn (default 202). */
  statuses: Record<string, number[]>;
}

function setup(triggers: Trigger[], extra: Partial<BrokerOptions> = {}): Setup {
  const time = virtualTime();
  const faults = new BrokerFaults();
  const deadLetters = new MemoryDeadLetterStore();
  const requests: Setup['requests'] = [];
  const statuses: Setup['statuses'] = {};
  const fetch: FetchLike = (url, init) => {
    const e = decodeHttpEvent({ headers: init.headers as Record<string, string>, body: init.body as string });
    requests.push({ url, id: e.id, at: time.now() });
    return Promise.resolve(new Response(null, { status: statuses[url]?.shift() ?? 202 }));
  };
  const broker = new Broker({
    name: 'default',
    triggers,
    fetch,
    deadLetters,
    sleep: time.sleep,
    faults,
    ...extra,
  });
  return { broker, faults, time, deadLetters, requests, statuses };
}

describe('BrokerFaults', () => {
  it('is off by default: one copy, no hold, no randomness drawn', () => {
    const faults = new BrokerFaults();
    expect(faults.spec).toBeUndefined();
    expect(faults.plan()).toEqual([0]);
    faults.set({ random: randoms() }); // a spec with nothing switched on draws nothing either
    expect(faults.plan()).toEqual([0]);
    expect(faults.counts()).toEqual({ duplicated: 0, delayed: 0, reordered: 0, refused: 0 });
    expect(faults.refusesIngress()).toBe(false);
  });

  it('plans duplicates, delays and reorder holds from the random numbers, and counts them', () => {
    const faults = new BrokerFaults({
      duplicateShare: 0.5,
      delayShare: 0.5,
      delayMs: 100,
      reorderWindowMs: 10,
      // duplicate? yes (0.1); copy 1: delay? yes (0.2), 0.3 → 30 ms, reorder 0.5 → 5 ms;
      // copy 2: delay? no (0.7), reorder 0.9 → 9 ms
      random: randoms(0.1, 0.2, 0.3, 0.5, 0.7, 0.9),
    });
    expect(faults.plan()).toEqual([35, 9]);
    expect(faults.counts()).toEqual({ duplicated: 1, delayed: 1, reordered: 2, refused: 0 });
    faults.set({ duplicateShare: 0.5, random: randoms(0.5) }); // not below the share: one copy
    expect(faults.plan()).toEqual([0]);
    faults.set(undefined);
    expect(faults.plan()).toEqual([0]);
    expect(faults.counts()).toEqual({ duplicated: 1, delayed: 1, reordered: 2, refused: 0 });
  });

  it.each([
    [{ duplicateShare: 1.5 }, /duplicateShare must be a number from 0 to 1, got 1.5/],
    [{ delayShare: -0.1 }, /delayShare must be a number from 0 to 1/],
    [{ delayMs: Number.NaN }, /delayMs must be a number of milliseconds >= 0, got NaN/],
    [{ reorderWindowMs: -1 }, /reorderWindowMs must be a number of milliseconds >= 0/],
  ])('rejects %j and keeps the spec it had', (spec, message) => {
    const faults = new BrokerFaults({ duplicateShare: 0.25 });
    expect(() => faults.set(spec)).toThrow(RangeError);
    expect(() => faults.set(spec)).toThrow(message);
    expect(faults.spec).toEqual({ duplicateShare: 0.25 });
  });
});

describe('refuseIngress (the sink is down)', () => {
  it('refuses every event while set, counts them, draws no randomness and plans no hold', () => {
    const faults = new BrokerFaults({ refuseIngress: true, random: randoms() });
    expect([faults.refusesIngress(), faults.refusesIngress()]).toEqual([true, true]);
    expect(faults.plan()).toEqual([0]);
    faults.set(undefined);
    expect(faults.refusesIngress()).toBe(false);
    expect(faults.counts()).toEqual({ duplicated: 0, delayed: 0, reordered: 0, refused: 2 });
  });

  it('the ingress answers 503 and queues nothing while it is set, 202 again after', async () => {
    const s = setup([trigger('fn')]);
    const ingress = await startIngress({ brokers: [s.broker], faults: s.faults });
    const post = (id: string): Promise<Response> =>
      fetch(`${ingress.url}/`, {
        method: 'POST',
        headers: { 'ce-specversion': '1.0', 'ce-id': id, 'ce-source': '/s', 'ce-type': 't' },
        body: '',
      });
    try {
      s.faults.set({ refuseIngress: true });
      const refused = await post('while-down');
      expect(refused.status).toBe(503);
      expect(await refused.text()).toMatch(/refusing events/);
      expect((await fetch(`${ingress.url}/healthz`)).status).toBe(200);
      s.faults.set(undefined);
      expect((await post('after')).status).toBe(202);
      await s.time.run(s.broker);
      expect(s.requests.map((r) => r.id)).toEqual(['after']);
      expect(s.faults.counts().refused).toBe(1);
    } finally {
      await ingress.close();
    }
  });
});

describe('Broker with fault injection', () => {
  it('off: every event delivered once, in order, with no hold', async () => {
    const s = setup([trigger('a'), trigger('b')]);
    s.faults.set({ duplicateShare: 1, reorderWindowMs: 100 });
    s.faults.set(undefined);
    for (const id of ['e1', 'e2', 'e3']) s.broker.publish(ev(id));
    await s.time.run(s.broker);
    expect(s.requests.map((r) => `${r.url} ${r.id} @${r.at}`)).toEqual([
      'http://a/ e1 @0',
      'http://b/ e1 @0',
      'http://a/ e2 @0',
      'http://b/ e2 @0',
      'http://a/ e3 @0',
      'http://b/ e3 @0',
    ]);
    expect(s.time.sleeps).toEqual([]);
    expect(s.faults.counts()).toEqual({ duplicated: 0, delayed: 0, reordered: 0, refused: 0 });
  });

  it('duplicates: the same event (same id) is delivered twice to the trigger', async () => {
    const s = setup([trigger('sub')]);
    s.faults.set({ duplicateShare: 1, random: randoms(0) });
    expect(s.broker.publish(ev('d1'))).toBe(1);
    await s.time.run(s.broker);
    expect(s.requests.map((r) => [r.url, r.id])).toEqual([
      ['http://sub/', 'd1'],
      ['http://sub/', 'd1'],
    ]);
    expect(s.faults.counts().duplicated).toBe(1);
  });

  it('duplicates: each copy is retried and dead-lettered on its own', async () => {
    const s = setup([trigger('sub', { delivery: { retry: 1 } })]);
    s.statuses['http://sub/'] = [500, 500, 500, 202];
    s.faults.set({ duplicateShare: 1, random: randoms(0) });
    s.broker.publish(ev('d2'));
    await s.time.run(s.broker);
    // first copy: 500, retried: 500, dead-lettered; second copy: 500, retried: 202, delivered
    expect(s.requests.map((r) => r.id)).toEqual(['d2', 'd2', 'd2', 'd2']);
    const letters = await s.deadLetters.list();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ reason: 'retries-exhausted', attempts: 2, event: { id: 'd2' } });
  });

  it('delays: a delayed delivery is held by the injected sleep until it ends', async () => {
    let release: () => void = () => undefined;
    const sleeps: number[] = [];
    const s = setup([trigger('sub')], {
      sleep: (ms) => {
        sleeps.push(ms);
        return new Promise<void>((r) => (release = r));
      },
    });
    // first event: delayed (0.2 < 0.5) by 0.5 × 200 ms; second: not delayed (0.9)
    s.faults.set({ delayShare: 0.5, delayMs: 200, random: randoms(0.2, 0.5, 0.9) });
    s.broker.publish(ev('held'));
    s.broker.publish(ev('prompt'));
    await new Promise((r) => setImmediate(r));
    expect(sleeps).toEqual([100]);
    expect(s.requests.map((r) => r.id)).toEqual(['prompt']);
    release();
    await s.broker.idle();
    expect(s.requests.map((r) => r.id)).toEqual(['prompt', 'held']);
    expect(s.faults.counts()).toEqual({ duplicated: 0, delayed: 1, reordered: 0, refused: 0 });
  });

  it('reorder: a later event overtakes an earlier one held longer (the hold takes no delivery slot)', async () => {
    const s = setup([trigger('sub')], { concurrency: 1 });
    s.faults.set({ reorderWindowMs: 100, random: randoms(0.9, 0) });
    s.broker.publish(ev('first'));
    s.broker.publish(ev('second'));
    await s.time.run(s.broker);
    expect(s.requests.map((r) => `${r.id} @${r.at}`)).toEqual(['second @0', 'first @90']);
    expect(s.time.sleeps).toEqual([90]);
    expect(s.faults.counts()).toEqual({ duplicated: 0, delayed: 0, reordered: 2, refused: 0 });
  });

  it('one BrokerFaults serves several brokers', async () => {
    const faults = new BrokerFaults({ duplicateShare: 1, random: () => 0 });
    const a = setup([trigger('a')], { faults });
    const b = setup([trigger('b', { broker: 'other' })], { name: 'other', faults });
    a.broker.publish(ev('x'));
    b.broker.publish(ev('y'));
    await Promise.all([a.time.run(a.broker), b.time.run(b.broker)]);
    expect(a.requests.map((r) => r.id)).toEqual(['x', 'x']);
    expect(b.requests.map((r) => r.id)).toEqual(['y', 'y']);
    expect(faults.counts().duplicated).toBe(2);
  });
});
