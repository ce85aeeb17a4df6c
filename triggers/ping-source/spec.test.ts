import { encodeBinary, buildEvent } from '../../shared/events/index.js';
import { jitterMs, pingEvent, retryDelayMs } from './event.js';
import { parsePingSources, toSpec } from './spec.js';

const manifest = (spec: Record<string, unknown>, name = 'tick'): Record<string, unknown> => ({
  apiVersion: 'sources.knative.dev/v1',
  kind: 'PingSource',
  metadata: { name, namespace: 'landscape' },
  spec: { schedule: '* * * * *', sink: { uri: 'http://broker.local/' }, ...spec },
});

describe('PingSource manifests', () => {
  it('reads schedule, timezone, data, contentType, sink and ceOverrides', () => {
    const r = toSpec(
      manifest({
        schedule: '0 */2 * * *',
        timezone: 'Europe/Berlin',
        contentType: 'application/json',
        data: '{"job":"resync"}',
        ceOverrides: { extensions: { target: 'requeue-tick' } },
      }),
    );
    expect(r).toEqual({
      problems: [],
      spec: {
        namespace: 'landscape',
        name: 'tick',
        schedule: '0 */2 * * *',
        timezone: 'Europe/Berlin',
        contentType: 'application/json',
        data: '{"job":"resync"}',
        sink: 'http://broker.local/',
        extensions: { target: 'requeue-tick' },
      },
    });
  });

  it('decodes dataBase64 into bytes', () => {
    const r = toSpec(manifest({ dataBase64: Buffer.from([0, 1, 255]).toString('base64') }));
    expect(Array.from(r.spec!.data as Uint8Array)).toEqual([0, 1, 255]);
  });

  it('accepts six-field (seconds) cron only in the embedded landscape', () => {
    expect(toSpec(manifest({ schedule: '* * * * * *' })).problems).toEqual([
      expect.stringMatching(
        /landscape\/tick: .*6-field \(seconds\) cron is only accepted in the embedded landscape/,
      ),
    ]);
    expect(toSpec(manifest({ schedule: '*/5 * * * * *' }), { allowSeconds: true }).problems).toEqual([]);
  });

  it('lists every problem', () => {
    const r = toSpec(
      manifest({ schedule: 'not cron', data: 'x', dataBase64: 'eA==', sink: { uri: 'relative/path' } }),
    );
    expect(r.spec).toBeUndefined();
    expect(r.problems).toHaveLength(3);
    expect(r.problems.join('\n')).toMatch(/schedule "not cron"/);
    expect(r.problems.join('\n')).toMatch(/mutually exclusive/);
    expect(r.problems.join('\n')).toMatch(/not an absolute URL/);
    expect(toSpec(manifest({ timezone: 'Mars/Olympus' })).problems).toEqual([
      'landscape/tick: timezone "Mars/Olympus" is not an IANA time zone',
    ]);
    expect(toSpec({ kind: 'PingSource' }).problems.length).toBeGreaterThan(1);
  });

  it('resolves a sink ref with a relative uri', () => {
    const m = manifest({
      sink: { ref: { apiVersion: 'eventing.knative.dev/v1', kind: 'Broker', name: 'default' }, uri: 'extra' },
    });
    const r = toSpec(m, { resolveRef: (ref, ns) => `http://broker.${ns}.local/${ref.name}` });
    expect(r.spec?.sink).toBe('http://broker.landscape.local/default/extra');
    expect(toSpec(m).problems).toEqual(['landscape/tick: sink.ref Broker/default cannot be resolved']);
  });

  it('parses multi-document YAML and skips other kinds', () => {
    const text = `apiVersion: v1
kind: ConfigMap
metadata: {name: x}
---
apiVersion: sources.knative.dev/v1
kind: PingSource
metadata: {name: a}
spec: {schedule: "*/1 * * * *", sink: {uri: "http://s/"}}
---
apiVersion: sources.knative.dev/v1
kind: PingSource
metadata: {name: b}
spec: {schedule: "bad", sink: {uri: "http://s/"}}
`;
    const r = parsePingSources(text);
    expect(r.sources.map((s) => `${s.namespace}/${s.name}`)).toEqual(['default/a']);
    expect(r.problems).toHaveLength(1);
  });
});

describe('the ping event', () => {
  const spec = toSpec(manifest({ contentType: 'application/json', data: '{"a":1}' })).spec!;
  const time = new Date('2024-05-01T12:00:00Z');

  it('has the Knative type and source and the scheduled time', () => {
    const e = buildEvent(pingEvent(spec, { id: 'x', time }));
    expect(e.type).toBe('dev.knative.sources.ping');
    expect(e.source).toBe('/apis/v1/namespaces/landscape/pingsources/tick');
    expect(e.time).toBe('2024-05-01T12:00:00.000Z');
    const { headers, body } = encodeBinary(e);
    expect(headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(String(body))).toEqual({ a: 1 });
  });

  it('sends dataBase64 bytes as the body', () => {
    const bin = toSpec(manifest({ contentType: 'application/octet-stream', dataBase64: 'AAH/' })).spec!;
    const { body } = encodeBinary(buildEvent(pingEvent(bin, { id: 'x', time })));
    expect(Array.from(Buffer.from(body as Uint8Array))).toEqual([0, 1, 255]);
  });

  it.each([
    [0, 0],
    [0.5, 250],
    [0.9999999, 499],
    [1, 499],
  ])('jitter(%d) = %d ms', (r, ms) => {
    expect(jitterMs(() => r)).toBe(ms);
  });

  it('backs off from 50 ms', () => {
    expect([0, 1, 2, 3, 4].map((a) => retryDelayMs(a))).toEqual([50, 100, 200, 400, 800]);
  });
});
