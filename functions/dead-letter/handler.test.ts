import * as ff from '@google-cloud/functions-framework';
import { getFunction, getTestServer } from '@google-cloud/functions-framework/testing';
import { Writable } from 'node:stream';
import request from 'supertest';
import { deadLetter, deadLetterHandler } from './handler.js';
import { createDeadLetterInstance, type DeadLetterInstanceOptions } from './instance.js';

const NOW = Date.parse('2024-05-01T12:00:00.000Z');

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb): void {
      chunks.push(chunk.toString());
      cb();
    },
  });
  const lines = (): Record<string, unknown>[] =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stream, lines };
}

let registered = 0;
/** Registers a handler over a fresh instance under a new name; returns the name and the log. */
function register(opts: DeadLetterInstanceOptions): { name: string; lines: () => Record<string, unknown>[] } {
  const out = capture();
  const name = `dead-letter-test-${++registered}`;
  ff.cloudEvent(
    name,
    deadLetterHandler(createDeadLetterInstance({ destination: out.stream, now: () => NOW, ...opts })),
  );
  return { name, lines: out.lines };
}

const deadLettered = (name: string): request.Test =>
  request(getTestServer(name))
    .post('/')
    .set('ce-specversion', '1.0')
    .set('ce-type', 'dev.landscape.requeue')
    .set('ce-source', '/apis/landscape/functions/requeue-tick')
    .set('ce-id', 'e-1')
    .set('ce-subject', 'DeployItem/ls/x')
    .set('ce-target', 'deployer-mock')
    .set('ce-kind', 'DeployItem')
    .set('ce-namespace', 'ls')
    .set('ce-name', 'x')
    .set('ce-knativeerrordest', 'http://deployer-mock.landscape-system.svc.cluster.local')
    .set('ce-knativeerrorcode', '422')
    .set('ce-knativeerrordata', Buffer.from('{"error":"unprocessable"}').toString('base64'))
    .set('content-type', 'application/json')
    .send('{"token":"t0ps3cret","name":"x"}');

describe('dead-letter handler', () => {
  it('registers under the function name and the camelCase export serverless.yml names', () => {
    expect(getFunction('dead-letter')).toBe(deadLetter);
    expect(getFunction('deadLetter')).toBe(deadLetter);
  });

  it('answers 204 with no body and logs one warn line in the seed shape, without the data', async () => {
    const { name, lines } = register({ env: () => ({ POD_NAME: 'dead-letter-00001-abc' }) });
    const res = await deadLettered(name);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(lines()).toEqual([
      {
        level: 'warn',
        ts: '2024-05-01T12:00:00.000Z',
        logger: 'dead-letter',
        msg: 'dead letter',
        pod: 'dead-letter-00001-abc',
        id: 'e-1',
        type: 'dev.landscape.requeue',
        source: '/apis/landscape/functions/requeue-tick',
        subject: 'DeployItem/ls/x',
        knativeerrordest: 'http://deployer-mock.landscape-system.svc.cluster.local',
        knativeerrorcode: 422,
        knativeerrordata: '{"error":"unprocessable"}',
        kind: 'DeployItem',
        name: 'x',
        namespace: 'ls',
        target: 'deployer-mock',
        dataFormat: 'json',
        dataBytes: 32,
      },
    ]);
    expect(JSON.stringify(lines())).not.toContain('t0ps3cret');
  });

  it('reads CONFIG_FILE once, and with logData logs the data redacted', async () => {
    const reads: string[] = [];
    const { name, lines } = register({
      env: () => ({ CONFIG_FILE: '/etc/landscape/config.yaml' }),
      readFile: (p) => {
        reads.push(p);
        return Promise.resolve('logData: true\nmaxErrorDataChars: 5\n');
      },
    });
    await deadLettered(name).expect(204);
    await deadLettered(name).expect(204);
    expect(reads).toEqual(['/etc/landscape/config.yaml']);
    const [first] = lines();
    expect(first).toMatchObject({ knativeerrordata: '{"err…', knativeerrordataTruncated: true });
    expect(first['data']).toBe('{"token":"[REDACTED]","name":"x"}');
    expect(lines()).toHaveLength(2);
  });

  it('logs a bad config once with every problem and goes on with the defaults', async () => {
    const { name, lines } = register({
      env: () => ({ CONFIG_FILE: '/c.yaml' }),
      readFile: () => Promise.resolve('logData: sometimes\nverbose: true\n'),
    });
    await deadLettered(name).expect(204);
    await deadLettered(name).expect(204);
    const [problem, ...rest] = lines();
    expect(problem).toMatchObject({
      level: 'error',
      msg: 'invalid config; dead letters are logged with the defaults',
      file: '/c.yaml',
      problems: [expect.stringMatching(/^logData: /), expect.stringMatching(/verbose/)],
    });
    expect(rest.map((l) => [l.level, l.msg, l.data])).toEqual([
      ['warn', 'dead letter', undefined],
      ['warn', 'dead letter', undefined],
    ]);
  });

  it('reads a bad config again at most every retry interval, and takes the fixed one', async () => {
    let text = 'logData: sometimes\n';
    let nowMs = 0;
    const reads: string[] = [];
    const { name, lines } = register({
      env: () => ({ CONFIG_FILE: '/c.yaml' }),
      readFile: (p) => {
        reads.push(p);
        return Promise.resolve(text);
      },
      nowMs: () => nowMs,
    });
    await deadLettered(name).expect(204);
    nowMs += 4_999;
    await deadLettered(name).expect(204);
    expect(reads).toHaveLength(1);
    nowMs += 1;
    await deadLettered(name).expect(204); // still bad: read again, not logged again
    expect(reads).toHaveLength(2);
    text = 'logData: true\n';
    nowMs += 5_000;
    await deadLettered(name).expect(204);
    nowMs += 60_000;
    await deadLettered(name).expect(204); // good: never read again
    expect(reads).toHaveLength(3);
    expect(lines().map((l) => [l.level, l.msg, typeof l.data])).toEqual([
      ['error', 'invalid config; dead letters are logged with the defaults', 'undefined'],
      ['warn', 'dead letter', 'undefined'],
      ['warn', 'dead letter', 'undefined'],
      ['warn', 'dead letter', 'undefined'],
      ['info', 'config fixed; dead letters are logged with it', 'undefined'],
      ['warn', 'dead letter', 'string'],
      ['warn', 'dead letter', 'string'],
    ]);
  });

  it('logs an unreadable config file and still logs the dead letter', async () => {
    const { name, lines } = register({
      env: () => ({ CONFIG_FILE: '/missing.yaml', LOG_LEVEL: 'warn' }),
      readFile: () => Promise.reject(new Error('ENOENT: no such file')),
    });
    await deadLettered(name).expect(204);
    expect(lines().map((l) => [l.level, l.msg])).toEqual([
      ['error', 'config file unreadable; dead letters are logged with the defaults'],
      ['warn', 'dead letter'],
    ]);
  });

  it('takes structured-mode events too', async () => {
    const { name, lines } = register({ env: () => ({}) });
    await request(getTestServer(name))
      .post('/')
      .set('content-type', 'application/cloudevents+json')
      .send(
        JSON.stringify({
          specversion: '1.0',
          id: 's-1',
          type: 'dev.knative.sources.ping',
          source: '/apis/v1/namespaces/landscape-system/pingsources/requeue-tick',
          data_base64: Buffer.from('abc').toString('base64'),
          knativeerrorcode: '404',
        }),
      )
      .expect(204);
    expect(lines()[0]).toMatchObject({
      id: 's-1',
      knativeerrorcode: 404,
      dataFormat: 'binary',
      dataBytes: 3,
    });
  });
});
