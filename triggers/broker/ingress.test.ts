import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { buildEvent, encodeBinary } from '../../shared/events/index.js';
import { Broker } from './broker.js';
import { readBrokerState, runDlqCli, writeBrokerState } from './dlq-cli.js';
import { deadLetterFile, JsonlDeadLetterStore } from './dlq.js';
import { hasBearerToken, listenIngress, newIngressToken, startIngress } from './ingress.js';
import type { RunningIngress } from './ingress.js';
import { brokerMetrics } from './metrics.js';

/** A subscriber on a free loopback port answering with the next scripted status (default 204). */
async function subscriber(): Promise<{
  url: string;
  statuses: number[];
  seen: IncomingHttpHeaders[];
  bodies: Buffer[];
  close: () => Promise<void>;
}> {
  const statuses: number[] = [];
  const seen: IncomingHttpHeaders[] = [];
  const bodies: Buffer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push(req.headers);
      bodies.push(Buffer.concat(chunks));
      const status = statuses.shift() ?? 204;
      res.writeHead(status).end(status >= 400 ? `refused with ${status}` : undefined);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    statuses,
    seen,
    bodies,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const BASE = {
  'ce-specversion': '1.0',
  'ce-id': 'e1',
  'ce-source': '/s',
  'ce-type': 'dev.landscape.requeue',
};

const TOKEN = newIngressToken();
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe('hasBearerToken', () => {
  it.each<[string, string | undefined, boolean]>([
    ['the token', 'Bearer s3cret', true],
    ['the scheme in any case', 'bearer s3cret', true],
    ['no header', undefined, false],
    ['an empty header', '', false],
    ['a wrong token', 'Bearer s3creT', false],
    ['a prefix of the token', 'Bearer s3cre', false],
    ['the token with more after it', 'Bearer s3cret2', false],
    ['another scheme', 'Basic s3cret', false],
    ['the token alone', 's3cret', false],
    ['two tokens', 'Bearer s3cret s3cret', false],
  ])('%s: %s → %s', (_what, header, ok) => {
    expect(hasBearerToken(header, 's3cret')).toBe(ok);
  });
  it('makes random 48-character hex tokens', () => {
    expect(TOKEN).toMatch(/^[0-9a-f]{48}$/);
    expect(newIngressToken()).not.toBe(TOKEN);
  });
});

describe('broker ingress', () => {
  let dir = '';
  let sub: Awaited<ReturnType<typeof subscriber>>;
  let ingress: RunningIngress;
  let broker: Broker;
  let store: JsonlDeadLetterStore;
  const registry = new Registry();
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    out: (l: string): number => out.push(l),
    err: (l: string): number => err.push(l),
    env: { LANDSCAPE_INGRESS_TOKEN: TOKEN },
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'broker-'));
    sub = await subscriber();
    store = new JsonlDeadLetterStore(
      deadLetterFile(join(dir, 'dlq'), { namespace: 'default', name: 'default' }),
    );
    const metrics = brokerMetrics(registry);
    broker = new Broker({
      name: 'default',
      triggers: [
        {
          name: 'fn',
          namespace: 'default',
          broker: 'default',
          attributes: { type: 'dev.landscape.requeue' },
          subscriber: { uri: sub.url },
          delivery: { retry: 2, backoffPolicy: 'exponential', backoffDelay: 'PT0.001S' },
        },
      ],
      deadLetters: store,
      metrics,
    });
    ingress = await startIngress({ brokers: [broker], registry, metrics, token: TOKEN });
  });
  afterAll(async () => {
    await ingress.close();
    await sub.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    out.length = 0;
    err.length = 0;
  });

  const post = (
    headers: Record<string, string | undefined>,
    body = '',
    path = '/',
    auth: Record<string, string> = AUTH,
  ): Promise<Response> =>
    fetch(`${ingress.url}${path}`, {
      method: 'POST',
      headers: {
        ...(Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
          string,
          string
        >),
        ...auth,
      },
      body,
    });

  it.each<[string, Record<string, string>]>([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: `Bearer ${TOKEN.slice(0, -1)}x` }],
    ['an empty bearer token', { authorization: 'Bearer ' }],
    ['the token under another scheme', { authorization: `Basic ${TOKEN}` }],
  ])('answers 401 with %s and delivers nothing, valid event or not, any path', async (_what, auth) => {
    const before = sub.seen.length;
    for (const path of ['/', '/default/default', '/default/nope']) {
      const res = await post({ ...BASE, 'ce-id': 'unauth' }, '', path, auth);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.text()).toMatch(/requires "Authorization: Bearer <token>"/);
    }
    expect((await post({ 'ce-id': 'malformed' }, '', '/', auth)).status).toBe(401);
    expect((await fetch(`${ingress.url}/metrics`, { headers: auth })).status).toBe(401);
    await broker.idle();
    expect(sub.seen.length).toBe(before);
  });

  it.each([
    ['missing id', { ...BASE, 'ce-id': undefined }, '', /missing required attribute \(header ce-id\)/],
    ['bad specversion', { ...BASE, 'ce-specversion': '2.0' }, '', /unsupported specversion "2.0"/],
    ['bad extension name', { ...BASE, 'ce-bad_name': 'x' }, '', /invalid attribute name "bad_name"/],
    ['missing type', { ...BASE, 'ce-type': undefined }, '', /ce-type/],
    [
      'structured without source',
      { 'content-type': 'application/cloudevents+json' },
      JSON.stringify({ specversion: '1.0', id: '1', type: 't' }),
      /missing required attribute "source"/,
    ],
    ['not a CloudEvent', { 'content-type': 'application/json' }, '{"hello":1}', /missing required attribute/],
  ])('answers 400 to a malformed event (%s) and delivers nothing', async (_name, headers, body, message) => {
    const before = sub.seen.length;
    const res = await post(headers, body);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(message);
    await broker.idle();
    expect(sub.seen.length).toBe(before);
  });

  it('answers 202 once queued, on / and on /<namespace>/<broker>, and delivers', async () => {
    const before = sub.seen.length;
    expect((await post({ ...BASE, 'ce-id': 'a1' })).status).toBe(202);
    expect((await post({ ...BASE, 'ce-id': 'a2' }, '', '/default/default')).status).toBe(202);
    await broker.idle();
    expect(sub.seen.slice(before).map((h) => h['ce-id'])).toEqual(['a1', 'a2']);
  });

  it('keeps the broker TTL as Knative: 400 for an event whose knativebrokerttl is used up, and the subscriber never sees it', async () => {
    const before = sub.seen.length;
    for (const ttl of ['1', '0', '-3']) {
      const res = await post({ ...BASE, 'ce-id': `ttl-${ttl}`, 'ce-knativebrokerttl': ttl });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/knativebrokerttl is used up/);
    }
    // one left after the ingress took its one off; none at all (a new event) or no integer: the maximum
    expect((await post({ ...BASE, 'ce-id': 'ttl-2', 'ce-knativebrokerttl': '2' })).status).toBe(202);
    expect((await post({ ...BASE, 'ce-id': 'ttl-new' })).status).toBe(202);
    expect((await post({ ...BASE, 'ce-id': 'ttl-x', 'ce-knativebrokerttl': 'x' })).status).toBe(202);
    await broker.idle();
    const seen = sub.seen.slice(before);
    expect(seen.map((h) => h['ce-id'])).toEqual(['ttl-2', 'ttl-new', 'ttl-x']);
    expect(seen.filter((h) => 'ce-knativebrokerttl' in h)).toEqual([]);
  });

  it('answers 404 for an unknown broker and 405 for GET; /healthz needs no token', async () => {
    expect((await post(BASE, '', '/default/nope')).status).toBe(404);
    expect((await fetch(`${ingress.url}/`, { headers: AUTH })).status).toBe(405);
    expect((await fetch(`${ingress.url}/healthz`)).status).toBe(200);
  });

  it('serves the counters on /metrics', async () => {
    const text = await (await fetch(`${ingress.url}/metrics`, { headers: AUTH })).text();
    // the six malformed events and the three whose TTL was used up, above
    expect(text).toMatch(/broker_events_rejected_total\{broker="default\/default"\} 9/);
    expect(text).toMatch(
      /broker_events_delivered_total\{broker="default\/default",trigger="default\/fn"\} \d+/,
    );
  });

  it('passes a binary body through byte for byte, parsed or not (as Knative: the broker does not parse data)', async () => {
    const bodies = ['{ "n": 12345678901234567890, "f": 1.0,  "s": "\u00e9" }', '{not json'];
    for (const [i, body] of bodies.entries()) {
      const headers = { ...BASE, 'ce-id': `raw${i}`, 'content-type': 'application/json' };
      expect((await post(headers, body)).status).toBe(202);
      await broker.idle();
      const at = sub.seen.findIndex((h) => h['ce-id'] === `raw${i}`);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(sub.bodies[at].toString('utf8')).toBe(body);
      expect(sub.seen[at]['content-type']).toBe('application/json');
    }
  });

  it('keeps dead letters in JSON lines; the CLI lists, shows and replays them through the ingress', async () => {
    sub.statuses.push(403);
    const event = buildEvent({
      id: 'dl1',
      type: 'dev.landscape.requeue',
      source: '/t',
      target: 'fn',
      data: { n: 1 },
    });
    const wire = encodeBinary(event);
    expect((await post(wire.headers, wire.body as string)).status).toBe(202);
    await broker.idle();
    const [letter] = await store.list();
    // the letter keeps the event in its JSON form with the data parsed, as before the broker kept bytes
    expect(JSON.parse(JSON.stringify(letter.event))).toMatchObject({ id: 'dl1', data: { n: 1 } });
    expect(JSON.parse(JSON.stringify(letter.event))).not.toHaveProperty('data_base64');
    expect(letter).toMatchObject({
      trigger: 'default/fn',
      reason: 'non-retryable',
      extensions: {
        knativeerrordest: sub.url,
        knativeerrorcode: 403,
        knativeerrordata: Buffer.from('refused with 403').toString('base64'),
      },
    });
    expect((await readFile(store.file, 'utf8')).trim().split('\n')).toHaveLength(1);
    const dlqDir = join(dir, 'dlq');

    expect(await runDlqCli(['list', '--dir', dlqDir], io)).toBe(0);
    expect(out[0]).toBe('ID\tTIME\tTRIGGER\tCODE\tREASON\tTYPE');
    expect(out[1]).toMatch(
      new RegExp(`^${letter.id}\\t.*\\tdefault/fn\\t403\\tnon-retryable\\tdev.landscape.requeue$`),
    );

    expect(await runDlqCli(['show', letter.id, '--dir', dlqDir], io)).toBe(0);
    expect(JSON.parse(out.at(-1)!)).toEqual(letter);

    expect(await runDlqCli(['replay', '--dir', dlqDir], io)).toBe(2);
    expect(err.at(-1)).toBe('replay needs an id or --all');
    expect(await runDlqCli(['replay', 'nope', '--dir', dlqDir, '--broker-url', ingress.url], io)).toBe(1);

    // no token (none in the environment, no state file): refused with 401, the letter is kept
    const noToken = { ...io, env: {} };
    const replayArgs = ['replay', letter.id, '--dir', dlqDir, '--broker-url', ingress.url];
    const noState = ['--state-file', join(dir, 'absent.json')];
    expect(await runDlqCli([...replayArgs, ...noState], noToken)).toBe(1);
    expect(err.at(-1)).toMatch(new RegExp(`replay of ${letter.id} failed: HTTP 401`));
    expect(await store.list()).toHaveLength(1);

    const before = sub.seen.length;
    expect(await runDlqCli(['replay', letter.id, '--dir', dlqDir, '--broker-url', ingress.url], io)).toBe(0);
    expect(out.at(-1)).toBe(`replayed ${letter.id} -> HTTP 202`);
    await broker.idle();
    const replayed = sub.seen.slice(before);
    expect(replayed.map((h) => [h['ce-id'], h['ce-target'], h['ce-knativeerrorcode']])).toEqual([
      ['dl1', 'fn', undefined],
    ]);
    expect(await store.list()).toEqual([]);
  });

  it('replays a letter refused at the end of its TTL as a new event (the ingress would refuse its TTL again)', async () => {
    await store.add({
      id: 'ttl-letter',
      time: new Date().toISOString(),
      broker: 'default/default',
      trigger: 'default/fn',
      subscriber: 'http://ingress/default/default',
      reason: 'reply-refused',
      attempts: 1,
      event: {
        specversion: '1.0',
        id: 'ttl1',
        source: '/s',
        type: 'dev.landscape.requeue',
        knativebrokerttl: 1,
      },
      extensions: {
        knativeerrordest: 'http://ingress/default/default',
        knativeerrorcode: 400,
        knativeerrordata: '',
      },
    });
    const before = sub.seen.length;
    const args = ['replay', 'ttl-letter', '--dir', join(dir, 'dlq'), '--broker-url', ingress.url];
    expect(await runDlqCli(args, io)).toBe(0);
    await broker.idle();
    expect(sub.seen.slice(before).map((h) => h['ce-id'])).toEqual(['ttl1']);
    expect(await store.list()).toEqual([]);
  });

  it('replays --all into the ingress URL from the state file', async () => {
    sub.statuses.push(500, 500, 500);
    const wire = encodeBinary(buildEvent({ id: 'dl2', type: 'dev.landscape.requeue', source: '/t' }));
    await post(wire.headers, wire.body as string);
    await broker.idle();
    expect(await store.list()).toMatchObject([{ reason: 'retries-exhausted', attempts: 3 }]);
    const stateFile = join(dir, 'broker.json');
    const args = ['replay', '--all', '--dir', join(dir, 'dlq'), '--state-file', stateFile];
    expect(await runDlqCli(args, io)).toBe(2);
    expect(err.at(-1)).toMatch(/no broker URL/);
    const noToken = { ...io, env: {} };
    await writeBrokerState(stateFile, { ingressUrl: `${ingress.url}/default/default` });
    expect(await runDlqCli(args, noToken)).toBe(1);
    expect(err.at(-1)).toMatch(/HTTP 401/);
    await writeBrokerState(stateFile, { ingressUrl: `${ingress.url}/default/default`, ingressToken: TOKEN });
    expect((await stat(stateFile)).mode & 0o777).toBe(0o600);
    expect(await readBrokerState(stateFile)).toEqual({
      ingressUrl: `${ingress.url}/default/default`,
      ingressToken: TOKEN,
    });
    // the state file's token goes to the state file's ingress only, never to another --broker-url
    const elsewhere = await subscriber();
    const other = [...args, '--broker-url', elsewhere.url];
    expect(await runDlqCli(other, noToken)).toBe(0);
    expect(elsewhere.seen.map((h) => [h['ce-id'], h.authorization])).toEqual([['dl2', undefined]]);
    await elsewhere.close();
    sub.statuses.push(500, 500, 500);
    await post(wire.headers, wire.body as string);
    await broker.idle();
    expect(await runDlqCli(args, noToken)).toBe(0);
    await broker.idle();
    expect(sub.seen.at(-1)!['ce-id']).toBe('dl2');
    expect(await store.list()).toEqual([]);
  });

  it('reports a failed replay and keeps the letter', async () => {
    sub.statuses.push(400);
    const wire = encodeBinary(buildEvent({ id: 'dl3', type: 'dev.landscape.requeue', source: '/t' }));
    await post(wire.headers, wire.body as string);
    await broker.idle();
    const [letter] = await store.list();
    expect(
      await runDlqCli(
        [
          'replay',
          letter.id,
          '--broker',
          'default',
          '--dir',
          join(dir, 'dlq'),
          '--broker-url',
          'http://127.0.0.1:1',
        ],
        io,
      ),
    ).toBe(1);
    expect(err.at(-1)).toMatch(new RegExp(`replay of ${letter.id} failed`));
    expect(await store.list()).toHaveLength(1);
    expect(await runDlqCli(['bogus'], io)).toBe(2);
    expect(err.at(-1)).toMatch(/unknown command "bogus"/);
  });

  it('answers senders in this process as over HTTP (status, headers, body), without a request; other origins go to the fallback', async () => {
    const elsewhere: string[] = [];
    const local = ingress.deliveries((url) => {
      elsewhere.push(url);
      return Promise.resolve({
        status: 299,
        headers: { forEach: () => undefined },
        text: () => Promise.resolve(''),
      });
    });
    const cases: Array<[string, string, Record<string, string>, string]> = [
      ['POST', '/', { ...BASE, 'ce-id': 'p1', ...AUTH }, ''],
      ['POST', '/default/default', { ...BASE, 'ce-id': 'p2', ...AUTH }, ''],
      ['POST', '/', { ...BASE, 'ce-id': 'p3' }, ''],
      ['POST', '/', { ...BASE, 'ce-id': undefined as unknown as string, ...AUTH }, ''],
      ['POST', '/default/nope', { ...BASE, ...AUTH }, ''],
      ['GET', '/', AUTH, ''],
      ['GET', '/healthz', {}, ''],
    ];
    const shown = (
      a: { status: number; headers: { forEach(cb: (v: string, k: string) => void): void } },
      text: string,
    ): unknown => {
      const headers: Record<string, string> = {};
      a.headers.forEach((v, k) => {
        if (['content-type', 'www-authenticate', 'allow'].includes(k.toLowerCase()))
          headers[k.toLowerCase()] = v;
      });
      return { status: a.status, headers, text };
    };
    const before = sub.seen.length;
    for (const [method, path, raw, body] of cases) {
      const headers = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
      const init = { method, headers, ...(method === 'POST' ? { body } : {}) };
      const overHttp = await fetch(`${ingress.url}${path}`, init);
      const inProcess = await local(`${ingress.url}${path}`, init);
      expect(shown(inProcess, await inProcess.text())).toEqual(shown(overHttp, await overHttp.text()));
    }
    await broker.idle();
    // p1 and p2 each delivered twice (once per way in), nothing else
    expect(
      sub.seen
        .slice(before)
        .map((h) => h['ce-id'])
        .sort(),
    ).toEqual(['p1', 'p1', 'p2', 'p2']);
    expect(elsewhere).toEqual([]);
    const other = await local('http://127.0.0.1:1/x', { method: 'POST', body: '' });
    expect(other.status).toBe(299);
    expect(elsewhere).toEqual(['http://127.0.0.1:1/x']);
    const aborted = AbortSignal.abort();
    await expect(
      local(`${ingress.url}/`, { method: 'POST', headers: AUTH, body: '', signal: aborted }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});

describe('listenIngress', () => {
  it('has its URL before the brokers exist, answers 503 until it serves them, then routes', async () => {
    const sub = await subscriber();
    const listener = await listenIngress();
    try {
      expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const post = (): Promise<Response> =>
        fetch(`${listener.url}/ns/default`, { method: 'POST', headers: BASE, body: '{}' });
      expect((await post()).status).toBe(503);
      const broker = new Broker({
        name: 'default',
        namespace: 'ns',
        triggers: [{ name: 't', namespace: 'ns', broker: 'default', subscriber: { uri: sub.url } }],
      });
      const ingress = listener.serve({ brokers: [broker] });
      expect(ingress.url).toBe(listener.url);
      expect((await post()).status).toBe(202);
      await broker.idle();
      expect(sub.seen.map((h) => h['ce-id'])).toEqual(['e1']);
      const local = ingress.deliveries(() => Promise.reject(new Error('not for the fallback')));
      const inProcess = (): ReturnType<typeof local> =>
        local(`${listener.url}/ns/default`, {
          method: 'POST',
          headers: { ...BASE, 'ce-id': 'e2' },
          body: '{}',
        });
      expect((await inProcess()).status).toBe(202);
      await ingress.close();
      // closed: neither way in takes an event
      await expect(inProcess()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await expect(post()).rejects.toThrow();
      await broker.idle();
      expect(sub.seen.map((h) => h['ce-id'])).toEqual(['e1', 'e2']);
      await listener.close(); // a second close is the first one's
    } finally {
      await listener.close();
      await sub.close();
    }
  });
});
