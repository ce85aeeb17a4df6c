import { KNATIVE_ERROR_DATA_MAX_LENGTH } from '../../shared/events/index.js';
import { REDACTED } from '../../shared/log/index.js';
import { dataSize, decodeErrorData, describeDeadLetter, type DescribeOptions } from './describe.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const opts: DescribeOptions = { logData: false, maxDataChars: 40, maxErrorDataChars: 20 };

const requeue = {
  specversion: '1.0',
  id: 'e-1',
  type: 'dev.landscape.requeue',
  source: '/apis/landscape/functions/requeue-tick',
  subject: 'DeployItem/ls/x',
  time: '2024-05-01T12:00:00.000Z',
  datacontenttype: 'application/json',
  target: 'deployer-mock',
  kind: 'DeployItem',
  namespace: 'ls',
  name: 'x',
  knativeerrordest: 'http://deployer-mock.landscape-system.svc.cluster.local',
  knativeerrorcode: '400',
  knativeerrordata: b64('bad request: spec.type is required'),
  data: { target: 'deployer-mock', kind: 'DeployItem', namespace: 'ls', name: 'x' },
};

describe('decodeErrorData', () => {
  it.each([
    ['absent', undefined, 10, undefined],
    ['empty', '', 10, undefined],
    ['short text', b64('no route'), 10, { text: 'no route', encoding: 'base64', truncated: false }],
    ['cut here', b64('0123456789abc'), 10, { text: '0123456789…', encoding: 'base64', truncated: true }],
    ['not base64', 'boom!', 10, { text: 'boom!', encoding: 'raw', truncated: false }],
    ['not base64, long', 'x'.repeat(12) + '!', 10, { text: 'xxxxxxxxxx…', encoding: 'raw', truncated: true }],
    [
      'cut inside a quantum',
      b64('hello world').slice(0, 10),
      50,
      { text: 'hello ', encoding: 'base64', truncated: true },
    ],
    [
      'control characters',
      b64('a\u0000b\tc\n'),
      50,
      { text: 'a\uFFFDb\tc\n', encoding: 'base64', truncated: false },
    ],
    [
      'multi-byte characters counted as characters',
      b64('ääää'),
      2,
      { text: 'ää…', encoding: 'base64', truncated: true },
    ],
    ['not a string', 42, 10, undefined],
  ] as const)('%s', (_name, value, max, want) => {
    expect(decodeErrorData(value, max)).toEqual(want);
  });

  it('marks data Knative already cut at 1024 base64 characters as truncated', () => {
    const full = b64('y'.repeat(2000)).slice(0, KNATIVE_ERROR_DATA_MAX_LENGTH);
    expect(decodeErrorData(full, 5000)).toMatchObject({ encoding: 'base64', truncated: true });
    expect(decodeErrorData(full, 5000)?.text).toBe('y'.repeat(768));
  });
});

describe('dataSize', () => {
  it.each([
    ['no data', {}, 0],
    ['null data', { data: null }, 0],
    ['JSON data, re-serialized', { data: { a: 1 } }, 7],
    ['text, in UTF-8 bytes', { data: 'äb' }, 3],
    ['binary', { data: Buffer.from([1, 2, 3]) }, 3],
    ['structured-mode data_base64', { data_base64: b64('12345') }, 5],
  ] as const)('%s', (_name, event, want) => {
    expect(dataSize(event)).toBe(want);
  });
});

describe('describeDeadLetter', () => {
  it('logs identity, the decoded error, the extensions, the data size and type, and not the data', () => {
    const r = describeDeadLetter(requeue, opts);
    expect(r.msg).toBe('dead letter');
    expect(r.fields).toEqual({
      id: 'e-1',
      type: 'dev.landscape.requeue',
      source: '/apis/landscape/functions/requeue-tick',
      subject: 'DeployItem/ls/x',
      time: '2024-05-01T12:00:00.000Z',
      knativeerrordest: 'http://deployer-mock.landscape-system.svc.cluster.local',
      knativeerrorcode: 400,
      knativeerrordata: 'bad request: spec.ty…',
      knativeerrordataTruncated: true,
      kind: 'DeployItem',
      name: 'x',
      namespace: 'ls',
      target: 'deployer-mock',
      datacontenttype: 'application/json',
      dataFormat: 'json',
      dataBytes: JSON.stringify(requeue.data).length,
    });
    expect(JSON.stringify(r.fields)).not.toContain('"data"');
  });

  it('keeps the field order stable: identity, error, extensions, data', () => {
    const keys = Object.keys(describeDeadLetter(requeue, opts).fields);
    expect(keys.indexOf('subject')).toBeLessThan(keys.indexOf('knativeerrordest'));
    expect(keys.indexOf('knativeerrordata')).toBeLessThan(keys.indexOf('kind'));
    expect(keys.at(-1)).toBe('dataBytes');
  });

  it.each([
    [
      'a reconcile event without Knative error extensions (posted straight to the sink)',
      {
        id: 'r-1',
        type: 'dev.landscape.deployitem.reconcile',
        source: '/s',
        deployertype: 'mock',
        uid: 'u-1',
        namespace: 'ls',
        name: 'di',
      },
      {
        id: 'r-1',
        type: 'dev.landscape.deployitem.reconcile',
        source: '/s',
        name: 'di',
        namespace: 'ls',
        deployertype: 'mock',
        uid: 'u-1',
        dataFormat: 'none',
        dataBytes: 0,
      },
    ],
    [
      'a network error (code 500, no answer body)',
      { id: 'n', type: 't', source: '/s', knativeerrordest: 'http://x', knativeerrorcode: '500' },
      {
        id: 'n',
        type: 't',
        source: '/s',
        knativeerrordest: 'http://x',
        knativeerrorcode: 500,
        dataFormat: 'none',
        dataBytes: 0,
      },
    ],
    [
      'an error code that is not a number, kept as text',
      { id: 'n', type: 't', source: '/s', knativeerrorcode: 'timeout' },
      { id: 'n', type: 't', source: '/s', knativeerrorcode: 'timeout', dataFormat: 'none', dataBytes: 0 },
    ],
    [
      'error data that is not base64',
      { id: 'n', type: 't', source: '/s', knativeerrordata: 'plain text!' },
      {
        id: 'n',
        type: 't',
        source: '/s',
        knativeerrordata: 'plain text!',
        knativeerrordataEncoding: 'raw',
        dataFormat: 'none',
        dataBytes: 0,
      },
    ],
    ['not an event at all', {}, { dataFormat: 'none', dataBytes: 0 }],
    [
      'attributes of the wrong type are skipped',
      { id: { nested: true }, type: ['t'], source: 7 },
      { source: '7', dataFormat: 'none', dataBytes: 0 },
    ],
  ] as const)('%s', (_name, event, want) => {
    expect(describeDeadLetter(event, opts).fields).toEqual(want);
  });

  it('logs the data only when asked, redacted and truncated', () => {
    const secret = {
      id: 's',
      type: 'dev.knative.apiserver.resource.update',
      source: 'https://kube',
      kind: 'Secret',
      datacontenttype: 'application/json',
      data: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'kubeconfig' },
        data: { kubeconfig: 'YWJj' },
      },
    };
    const off = describeDeadLetter(secret, opts).fields;
    expect(off['data']).toBeUndefined();
    const on = describeDeadLetter(secret, { ...opts, logData: true, maxDataChars: 1000 }).fields;
    expect(on['data']).toContain(REDACTED);
    expect(on['data']).not.toContain('YWJj');
    const cut = describeDeadLetter(requeue, { ...opts, logData: true, maxDataChars: 10 }).fields;
    expect(cut['data']).toBe('{"target":…');
    const binary = describeDeadLetter({ data: Buffer.from([0, 1]) }, { ...opts, logData: true }).fields;
    expect(binary['data']).toBe('<2 bytes of binary data>');
  });
});
