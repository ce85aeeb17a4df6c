import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  buildEvent,
  decodeHttpEvent,
  emit,
  EmitError,
  emitOrThrow,
  encodeBinary,
  EVENT_TYPES,
  EventTypes,
  EXTENSIONS_BY_TYPE,
  eventFromJSON,
  extensionsOf,
  isEventType,
  MalformedEventError,
  httpFetch,
  plainHeaders,
  storedJSON,
} from './index.js';
import { describeError } from './emit.js';
import { CloudEvent, HTTP } from 'cloudevents';

const BASE = { 'ce-specversion': '1.0', 'ce-id': 'e1', 'ce-source': '/s', 'ce-type': 't' };

describe('event constants', () => {
  it('every type follows the table, every extension name is lowercase alphanumeric', () => {
    expect(isEventType(EventTypes.requeue)).toBe(true);
    expect(isEventType('dev.landscape.nope')).toBe(false);
    for (const type of EVENT_TYPES) {
      for (const ext of EXTENSIONS_BY_TYPE[type]) expect(ext).toMatch(/^[a-z0-9]+$/);
    }
  });
});

describe('buildEvent', () => {
  it('builds a valid event with extensions', () => {
    const e = buildEvent({
      type: EventTypes.requeue,
      source: '/requeue',
      target: 'f',
      name: 'a',
      data: { x: 1 },
    });
    expect(e.specversion).toBe('1.0');
    expect(e.id).toMatch(/[0-9a-f-]{36}/);
    expect(extensionsOf(e)).toEqual({ target: 'f', name: 'a' });
  });
  it.each([
    ['uppercase extension', { type: 't', source: '/s', Bad: 'x' }, /invalid attribute name "Bad"/],
    ['underscore extension', { type: 't', source: '/s', my_ext: 'x' }, /invalid attribute name "my_ext"/],
    ['empty type', { type: '', source: '/s' }, /missing required attribute type/],
    ['bad specversion', { type: 't', source: '/s', specversion: '2.0' }, /unsupported specversion "2.0"/],
  ])('rejects %s', (_name, init, message) => {
    expect(() => buildEvent(init as never)).toThrow(MalformedEventError);
    expect(() => buildEvent(init as never)).toThrow(message);
  });
});

describe('decodeHttpEvent', () => {
  it('decodes binary mode with JSON data and extensions', () => {
    const e = decodeHttpEvent({
      headers: { ...BASE, 'ce-kind': 'DeployItem', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(e.type).toBe('t');
    expect(e.data).toEqual({ a: 1 });
    expect(extensionsOf(e)).toEqual({ kind: 'DeployItem' });
  });
  it('decodes structured mode', () => {
    const e = decodeHttpEvent({
      headers: { 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({ specversion: '1.0', id: 'x', source: '/s', type: 't', myext: 'v', data: 'd' }),
    });
    expect(extensionsOf(e)).toEqual({ myext: 'v' });
    expect(e.data).toBe('d');
  });
  it.each([
    [
      'binary: missing id',
      { ...BASE, 'ce-id': undefined },
      '',
      /missing required attribute \(header ce-id\)/,
    ],
    ['binary: missing source', { ...BASE, 'ce-source': undefined }, '', /ce-source/],
    ['binary: bad specversion', { ...BASE, 'ce-specversion': '9.9' }, '', /unsupported specversion "9.9"/],
    ['binary: bad extension name', { ...BASE, 'ce-bad_ext': 'x' }, '', /invalid attribute name "bad_ext"/],
    ['binary: data not JSON', { ...BASE, 'content-type': 'application/json' }, '{bad', /JSON/],
    ['no CloudEvent at all', { 'content-type': 'application/json' }, '{}', /missing required attribute/],
    [
      'structured: missing id',
      { 'content-type': 'application/cloudevents+json' },
      JSON.stringify({ specversion: '1.0', source: '/s', type: 't' }),
      /missing required attribute "id"/,
    ],
    [
      'structured: bad extension name',
      { 'content-type': 'application/cloudevents+json' },
      JSON.stringify({ specversion: '1.0', id: '1', source: '/s', type: 't', 'Bad-Name': 1 }),
      /invalid attribute name "Bad-Name"/,
    ],
    ['structured: not JSON', { 'content-type': 'application/cloudevents+json' }, 'nope', /not JSON/],
    ['batch', { 'content-type': 'application/cloudevents-batch+json' }, '[]', /batched mode/],
  ])('rejects %s', (_name, headers, body, message) => {
    const run = (): unknown => decodeHttpEvent({ headers: headers, body });
    expect(run).toThrow(MalformedEventError);
    expect(run).toThrow(message);
  });
  describe('rawData (the broker: the body as it came)', () => {
    const exotic = '{ "n": 12345678901234567890, "f": 1.0,  "s": "\u00e9" }';
    const TIME = { 'ce-time': '2026-01-02T03:04:05.000Z' };
    const headers = { ...BASE, ...TIME, 'ce-kind': 'DeployItem', 'content-type': 'application/json' };
    it('keeps a binary body as its bytes, and encodeBinary sends them unchanged', () => {
      const e = decodeHttpEvent({ headers, body: Buffer.from(exotic, 'utf8') }, { rawData: true });
      expect(Buffer.isBuffer(e.data)).toBe(true);
      expect(e.datacontenttype).toBe('application/json');
      expect(extensionsOf(e)).toEqual({ kind: 'DeployItem' });
      const wire = encodeBinary(e);
      expect(Buffer.from(wire.body).toString('utf8')).toBe(exotic);
      expect(wire.headers['content-type']).toBe('application/json');
      // the parsed way rewrites it: the integer rounded, 1.0 as 1, the spaces gone
      const parsed = encodeBinary(decodeHttpEvent({ headers, body: exotic }));
      expect(parsed.body).toBe('{"n":12345678901234567000,"f":1,"s":"é"}');
    });
    it('accepts data that is not the JSON its content type says (the broker does not parse it)', () => {
      const e = decodeHttpEvent({ headers, body: '{bad' }, { rawData: true });
      expect(Buffer.from(encodeBinary(e).body).toString('utf8')).toBe('{bad');
      expect(() => decodeHttpEvent({ headers, body: '{bad' })).toThrow(MalformedEventError);
    });
    it('still checks the attributes, and parses structured mode', () => {
      expect(() =>
        decodeHttpEvent({ headers: { ...headers, 'ce-id': undefined }, body: '{}' }, { rawData: true }),
      ).toThrow(/missing required attribute \(header ce-id\)/);
      const structured = decodeHttpEvent(
        {
          headers: { 'content-type': 'application/cloudevents+json' },
          body: JSON.stringify({ specversion: '1.0', id: 'x', source: '/s', type: 't', data: { a: 1 } }),
        },
        { rawData: true },
      );
      expect(structured.data).toEqual({ a: 1 });
    });
    it.each([
      [
        '1.0 with extensions, time and a content type',
        {
          ...headers,
          'ce-subject': '/x',
          'ce-dataschema': 'https://s',
          'ce-time': '2026-01-02T03:04:05+01:00',
        },
      ],
      ['a time that does not parse (the SDK makes it now)', { ...BASE, 'ce-time': 'yesterday' }],
      ['an empty ce- header (the SDK makes it an extension)', { ...headers, 'ce-subject': '' }],
      ['a ce-datacontenttype header', { ...headers, 'ce-datacontenttype': 'text/plain' }],
      ['a ce-data header', { ...headers, 'ce-data': 'x' }],
      ['a datacontenttype header', { ...BASE, ...TIME, datacontenttype: 'text/plain' }],
      ['specversion 0.3', { ...BASE, ...TIME, 'ce-specversion': '0.3', 'ce-schemaurl': 'https://s' }],
      [
        'upper-case header names',
        { 'CE-SpecVersion': '1.0', 'Ce-Id': 'e1', 'ce-source': '/s', 'CE-TYPE': 't', 'ce-Ext': 'v' },
      ],
    ])('decodes a binary message as the SDK parses it, with the bytes as data: %s', (_name, given) => {
      const h: Record<string, string> = given;
      const sdk = (bytes: Buffer): Record<string, unknown> => {
        const lower = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
        const e = HTTP.toEvent({ headers: lower, body: undefined }) as CloudEvent<unknown>;
        return { ...(bytes.length > 0 ? e.cloneWith({ data: bytes }, false) : e) };
      };
      const ours = (bytes: Buffer): Record<string, unknown> | string => {
        try {
          return { ...decodeHttpEvent({ headers: h, body: bytes }, { rawData: true }) };
        } catch (err) {
          return (err as Error).message;
        }
      };
      // no ce-time, or one that does not parse: both sides make it "now", each when its event is made
      const time = Object.entries(h).find(([k]) => k.toLowerCase() === 'ce-time')?.[1];
      const madeNow = time === undefined || Number.isNaN(Date.parse(time));
      for (const bytes of [Buffer.from(exotic), Buffer.alloc(0)]) {
        const before = Date.now();
        const got = ours(bytes);
        if (typeof got === 'string') {
          expect(() => new CloudEvent(sdk(bytes), true)).toThrow();
          continue;
        }
        const want = sdk(bytes);
        const after = Date.now();
        if (madeNow) {
          for (const t of [got['time'], want['time']]) {
            expect(typeof t).toBe('string');
            expect(Date.parse(t as string)).toBeGreaterThanOrEqual(before);
            expect(Date.parse(t as string)).toBeLessThanOrEqual(after);
          }
          want['time'] = got['time'];
        }
        expect(Object.keys(got)).toEqual(Object.keys(want));
        expect(got).toEqual(want);
      }
    });
    it('an empty body is no data', () => {
      expect(
        decodeHttpEvent({ headers: BASE, body: Buffer.alloc(0) }, { rawData: true }).data,
      ).toBeUndefined();
    });
    it('storedJSON keeps what a store replays byte for byte, readable where it can', () => {
      const replayed = (stored: Record<string, unknown>): string =>
        Buffer.from(encodeBinary(eventFromJSON(stored)).body).toString('latin1');
      const raw = (h: Record<string, string>, bytes: Buffer): ReturnType<typeof decodeHttpEvent> =>
        decodeHttpEvent({ headers: h, body: bytes }, { rawData: true });
      // compact JSON, as every emitter of the product sends: parsed, as the default decode gives it
      const compact = '{"a":[1,2],"b":"x"}';
      const c = storedJSON(raw(headers, Buffer.from(compact)));
      expect(c).toEqual(JSON.parse(JSON.stringify(decodeHttpEvent({ headers, body: compact }).toJSON())));
      expect(replayed(c)).toBe(compact);
      // JSON that parsing would change: kept as its text, replayed unchanged
      const e = storedJSON(raw(headers, Buffer.from(exotic)));
      expect(e.data).toBe(exotic);
      expect(replayed(e)).toBe(Buffer.from(exotic).toString('latin1'));
      // no content type: the text, no content type added
      const plain = storedJSON(raw({ ...BASE, ...TIME }, Buffer.from('plain')));
      expect(plain).toMatchObject({ data: 'plain' });
      expect(plain['datacontenttype']).toBeUndefined();
      // bytes that are not UTF-8: base64, replayed as the same bytes
      const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
      const b = storedJSON(raw({ ...BASE, ...TIME, 'content-type': 'application/octet-stream' }, bytes));
      expect(b).toMatchObject({ data_base64: bytes.toString('base64') });
      expect(b).not.toHaveProperty('data');
      expect(replayed(b)).toBe(bytes.toString('latin1'));
      // an event whose data is not bytes: its own JSON form
      const parsed = decodeHttpEvent({ headers, body: compact });
      expect(storedJSON(parsed)).toEqual(parsed.toJSON());
    });
    it("encodeBinary sends a structured event's data_base64 as its bytes", () => {
      const bytes = Buffer.from([0x00, 0x7f, 0x80, 0xff]);
      const e = decodeHttpEvent({
        headers: { 'content-type': 'application/cloudevents+json' },
        body: JSON.stringify({
          specversion: '1.0',
          id: 'x',
          source: '/s',
          type: 't',
          data_base64: bytes.toString('base64'),
        }),
      });
      expect(Buffer.from(encodeBinary(e).body)).toEqual(bytes);
    });
  });
  it('round-trips through encodeBinary', () => {
    const e = buildEvent({
      id: '7',
      type: 't',
      source: '/s',
      uid: 'u1',
      datacontenttype: 'application/json',
      data: { n: 2 },
    });
    const wire = encodeBinary(e);
    expect(wire.headers['ce-uid']).toBe('u1');
    const back = decodeHttpEvent(wire);
    expect(back.toJSON()).toEqual(e.toJSON());
    expect(eventFromJSON(e.toJSON()).toJSON()).toEqual(e.toJSON());
  });
});

interface Seen {
  method?: string;
  headers: Record<string, unknown>;
  body: string;
}
interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

/**
 * A local HTTP server for the describe block it is called in: it records every request and
 * answers with `answer(path)` (undefined: it never answers).
 */
function recordingServer(answer: (path: string) => Answer | undefined): { seen: Seen[]; url: () => string } {
  let url = '';
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body });
      const a = answer(req.url ?? '/');
      if (a) res.writeHead(a.status, a.headers).end(a.body);
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { seen, url: () => url };
}

describe('emit', () => {
  const { seen, url: base } = recordingServer((path) => {
    const status = Number(path.slice(1) || '202');
    // 999 never answers
    return status === 999 ? undefined : { status, body: status >= 400 ? `failed ${status}` : '' };
  });
  const event = buildEvent({ id: 'x1', type: 't', source: '/s', target: 'fn', data: { a: 1 } });

  it.each([[202], [204], [404], [500], [400]])('reports HTTP %i honestly', async (status) => {
    const result = await emit(event, { sink: `${base()}/${status}` });
    expect(result).toMatchObject({ kind: 'response', status, ok: status < 300 });
    const last = seen.at(-1)!;
    expect(last.headers['ce-id']).toBe('x1');
    expect(last.headers['ce-target']).toBe('fn');
    expect(JSON.parse(last.body)).toEqual({ a: 1 });
  });
  it('reports a network error', async () => {
    const result = await emit(event, { sink: 'http://127.0.0.1:1/' });
    expect(result).toMatchObject({ kind: 'error', status: 0, timedOut: false });
  });
  it('names what failed when node:http reports an AggregateError without a message', () => {
    const refused = (addr: string): Error =>
      Object.assign(new Error(`connect ECONNREFUSED ${addr}`), { code: 'ECONNREFUSED' });
    const both = Object.assign(new AggregateError([refused('127.0.0.1:1'), refused('::1:1')], ''), {
      code: 'ECONNREFUSED',
    });
    expect(describeError(both)).toBe('connect ECONNREFUSED 127.0.0.1:1; connect ECONNREFUSED ::1:1');
    expect(describeError(Object.assign(new Error(''), { code: 'EPIPE' }))).toBe('EPIPE');
    expect(describeError(new Error('plain'))).toBe('plain');
  });
  it('reports a timeout', async () => {
    const result = await emit(event, { sink: `${base()}/999`, timeoutMs: 50 });
    expect(result).toMatchObject({ kind: 'error', timedOut: true, error: 'timeout after 50 ms' });
  });
  it('emitOrThrow throws EmitError with the status', async () => {
    await expect(emitOrThrow(event, { sink: `${base()}/503` })).rejects.toThrow(EmitError);
    await expect(emitOrThrow(event, { sink: `${base()}/503` })).rejects.toThrow(/HTTP 503: failed 503/);
  });
  it('sends the sink token as a bearer token only when one is given, and never reports it', async () => {
    await emit(event, { sink: `${base()}/202` });
    expect(seen.at(-1)!.headers.authorization).toBeUndefined();
    await emit(event, { sink: `${base()}/202`, token: 'sink-token-1' });
    expect(seen.at(-1)!.headers.authorization).toBe('Bearer sink-token-1');
    expect(seen.at(-1)!.headers['ce-id']).toBe('x1');
    const err = await emitOrThrow(event, { sink: `${base()}/401`, token: 'sink-token-1' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EmitError);
    expect(JSON.stringify(err)).not.toContain('sink-token-1');
    expect(String(err)).not.toContain('sink-token-1');
  });
});

describe('plainHeaders', () => {
  it.each([
    ['none', undefined, {}],
    ['a record', { 'Content-Type': 'a/b', 'ce-id': '1' }, { 'content-type': 'a/b', 'ce-id': '1' }],
    ['pairs', [['X-A', '1']], { 'x-a': '1' }],
    ['a Headers object', new Headers([['X-B', '2']]), { 'x-b': '2' }],
    ['another iterable of pairs', new Map([['X-C', '3']]).entries(), { 'x-c': '3' }],
    [
      'a name twice, in two cases',
      [
        ['Accept', 'a'],
        ['accept', 'b'],
      ],
      { accept: 'a, b' },
    ],
    ['an undefined value', { 'x-d': undefined, 'x-e': '5' }, { 'x-e': '5' }],
  ])('%s', (_name, init, want) => {
    expect(plainHeaders(init as RequestInit['headers'])).toEqual(want);
  });
});

describe('httpFetch (node:http for the event plane)', () => {
  const { seen, url: base } = recordingServer((path) =>
    path === '/hang' ? undefined : { status: 201, headers: { 'X-Answer': 'yes' }, body: 'created' },
  );

  it('sends GET when no method is given, as fetch does', async () => {
    expect((await httpFetch(`${base()}/x`, {})).status).toBe(201);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', body: '' });
  });
  it('sends the method, headers and body, and answers status, headers and text', async () => {
    const res = await httpFetch(`${base()}/x`, {
      method: 'PUT',
      headers: { 'Ce-Id': 'h1' },
      body: new TextEncoder().encode('payload'),
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    expect({ status: res.status, answer: headers['x-answer'], text: await res.text() }).toEqual({
      status: 201,
      answer: 'yes',
      text: 'created',
    });
    expect(seen.at(-1)).toMatchObject({ method: 'PUT', body: 'payload', headers: { 'ce-id': 'h1' } });
  });
  it('rejects when the signal aborts, and for a body it cannot send', async () => {
    await expect(
      httpFetch(`${base()}/hang`, { method: 'POST', body: 'x', signal: AbortSignal.timeout(50) }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    await expect(
      httpFetch(`${base()}/x`, { method: 'POST', body: new URLSearchParams('a=1') }),
    ).rejects.toThrow(/string or byte bodies/);
  });
});
