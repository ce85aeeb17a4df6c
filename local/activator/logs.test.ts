import { jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FunctionLogs, jsonLogLine } from './logs.js';
import type { LogStream } from './replica.js';

const NOW = new Date('2025-01-02T03:04:05.678Z');
const POD = 'fn-00001-deployment-bcdfghjklm-npqrs';

describe('jsonLogLine', () => {
  it.each<[string, LogStream, string, Record<string, unknown>]>([
    [
      'a JSON line kept, pod added',
      'stdout',
      '{"level":"info","msg":"hi","n":1}',
      { pod: POD, level: 'info', msg: 'hi', n: 1 },
    ],
    [
      'a JSON line on stderr kept as printed (no level forced)',
      'stderr',
      '{"level":"debug","msg":"x"}',
      { pod: POD, level: 'debug', msg: 'x' },
    ],
    [
      'a JSON line with its own pod keeps it',
      'stdout',
      '{"pod":"theirs","msg":"x"}',
      { pod: 'theirs', msg: 'x' },
    ],
    ['an empty object gets the pod alone', 'stdout', '{ }', { pod: POD }],
    [
      'spaces inside and after the object kept valid',
      'stdout',
      '{ "msg" : "x" , "n":[1, {"pod":"inner"}] }  ',
      { pod: POD, msg: 'x', n: [1, { pod: 'inner' }] },
    ],
    [
      "a nested pod is not the line's own",
      'stdout',
      '{"ctx":{"pod":"inner"},"msg":"x"}',
      { pod: POD, ctx: { pod: 'inner' }, msg: 'x' },
    ],
    [
      'text on stdout wrapped as info',
      'stdout',
      'listening on 8080',
      {
        ts: NOW.toISOString(),
        level: 'info',
        logger: 'fn',
        msg: 'listening on 8080',
        pod: POD,
        stream: 'stdout',
      },
    ],
    [
      'text on stderr wrapped as error',
      'stderr',
      'Error: boom',
      { ts: NOW.toISOString(), level: 'error', logger: 'fn', msg: 'Error: boom', pod: POD, stream: 'stderr' },
    ],
    [
      'a brace that is not JSON wrapped',
      'stdout',
      '{ not json',
      { ts: NOW.toISOString(), level: 'info', logger: 'fn', msg: '{ not json', pod: POD, stream: 'stdout' },
    ],
    [
      'JSON followed by text wrapped',
      'stdout',
      '{"a":1} and more',
      {
        ts: NOW.toISOString(),
        level: 'info',
        logger: 'fn',
        msg: '{"a":1} and more',
        pod: POD,
        stream: 'stdout',
      },
    ],
    [
      'a JSON array wrapped',
      'stdout',
      '[1,2]',
      { ts: NOW.toISOString(), level: 'info', logger: 'fn', msg: '[1,2]', pod: POD, stream: 'stdout' },
    ],
    [
      'indented JSON wrapped (only a line starting with { is parsed)',
      'stdout',
      ' {"a":1}',
      { ts: NOW.toISOString(), level: 'info', logger: 'fn', msg: ' {"a":1}', pod: POD, stream: 'stdout' },
    ],
  ])('%s', (_, stream, line, expected) => {
    const out = jsonLogLine('fn', POD, stream, line, NOW);
    expect(out).not.toContain('\n');
    expect(JSON.parse(out)).toEqual(expected);
  });

  it('tabs and carriage returns as JSON whitespace: none left at the end of the stored line', () => {
    expect(jsonLogLine('fn', 'p', 'stdout', '{\t"msg":"x"}\r\r', NOW)).toBe('{"pod":"p","msg":"x"}');
  });

  it('pod comes first in a kept JSON line, the rest of the text as printed', () => {
    expect(jsonLogLine('fn', 'p', 'stdout', '{"msg":"x"}', NOW)).toBe('{"pod":"p","msg":"x"}');
    expect(jsonLogLine('fn', 'p"q', 'stdout', '{"b":2,"a":1}', NOW)).toBe('{"pod":"p\\"q","b":2,"a":1}');
  });
});

describe('FunctionLogs', () => {
  let dir: string;
  let echoed: string[];
  let logs: FunctionLogs;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'function-logs-'));
    echoed = [];
    logs = new FunctionLogs({
      dir: join(dir, 'logs'),
      echo: { write: (t: string) => echoed.push(t) },
      now: () => NOW,
    });
  });
  afterEach(async () => {
    await logs.close();
    await rm(dir, { recursive: true, force: true });
  });

  const lines = async (fn: string): Promise<unknown[]> =>
    (await readFile(logs.fileOf(fn), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));

  it('one JSON line per printed line in <dir>/<function>.log, blank lines skipped', async () => {
    logs.line('fn', POD, 'stdout', '{"level":"info","msg":"ready"}');
    logs.line('fn', POD, 'stdout', '');
    logs.line('fn', POD, 'stderr', '   ');
    logs.line('fn', POD, 'stderr', 'oops');
    await logs.close();
    expect(logs.fileOf('fn')).toBe(join(dir, 'logs', 'fn.log'));
    expect(await lines('fn')).toEqual([
      { pod: POD, level: 'info', msg: 'ready' },
      { ts: NOW.toISOString(), level: 'error', logger: 'fn', msg: 'oops', pod: POD, stream: 'stderr' },
    ]);
  });

  it('echo: [<function> <last 5 of the pod>] and the line as printed; blank lines not echoed', async () => {
    logs.line('fn', POD, 'stdout', '{"msg":"ready"}');
    logs.line('fn', POD, 'stdout', '  ');
    logs.line('fn', 'other-00001-deployment-bcdfghjklm-zz999', 'stderr', 'oops');
    await logs.close();
    expect(echoed).toEqual(['[fn npqrs] {"msg":"ready"}\n', '[fn zz999] oops\n']);
  });

  it('one file per function', async () => {
    logs.line('a', 'a-1', 'stdout', 'from a');
    logs.line('b', 'b-1', 'stdout', 'from b');
    logs.line('a', 'a-2', 'stdout', 'again a');
    await logs.close();
    expect(((await lines('a')) as { msg: string }[]).map((l) => l.msg)).toEqual(['from a', 'again a']);
    expect(((await lines('b')) as { msg: string }[]).map((l) => l.msg)).toEqual(['from b']);
  });

  it('appends to an existing file', async () => {
    await writeFile(logs.fileOf('fn'), '{"msg":"before"}\n');
    logs.line('fn', POD, 'stdout', 'after');
    await logs.close();
    expect(((await lines('fn')) as { msg: string }[]).map((l) => l.msg)).toEqual(['before', 'after']);
  });

  it('only blank lines: no file', async () => {
    logs.line('fn', POD, 'stdout', '');
    await logs.close();
    expect(existsSync(logs.fileOf('fn'))).toBe(false);
    expect(echoed).toEqual([]);
  });

  it('echo null: files only', async () => {
    const quiet = new FunctionLogs({ dir: join(dir, 'quiet'), echo: null, now: () => NOW });
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let writes: number;
    try {
      quiet.line('fn', POD, 'stdout', 'hello');
      await quiet.close();
      writes = write.mock.calls.length;
    } finally {
      write.mockRestore();
    }
    expect(writes).toBe(0);
    expect(await readFile(quiet.fileOf('fn'), 'utf8')).toContain('"msg":"hello"');
  });

  it('writes the lines of FLUSH_DELAY_MS together without waiting for close', async () => {
    logs.line('fn', POD, 'stdout', 'one');
    logs.line('fn', POD, 'stdout', '{"msg":"two"}');
    const file = logs.fileOf('fn');
    const text = async (): Promise<string> => readFile(file, 'utf8').catch(() => '');
    for (let i = 0; i < 200 && (await text()).split('\n').length < 3; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(
      (await text()).split('\n').map((l) => (l === '' ? l : (JSON.parse(l) as { msg: string }).msg)),
    ).toEqual(['one', 'two', '']);
  });

  it('a line printed while the files close, or after, is echoed and not written (no write after end)', async () => {
    logs.line('fn', POD, 'stdout', 'before');
    const closing = logs.close();
    logs.line('fn', POD, 'stdout', 'during');
    await closing;
    logs.line('fn', POD, 'stdout', 'after');
    expect(((await lines('fn')) as { msg: string }[]).map((l) => l.msg)).toEqual(['before']);
    expect(echoed).toEqual([`[fn npqrs] before\n`, `[fn npqrs] during\n`, `[fn npqrs] after\n`]);
  });

  it('a log file that cannot be written is reported on stderr, never thrown', async () => {
    await mkdir(logs.fileOf('fn'), { recursive: true }); // a folder where the file should be
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      logs.line('fn', POD, 'stdout', 'lost');
      await logs.close();
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(/function log .*fn\.log: .*EISDIR/);
    } finally {
      stderr.mockRestore();
    }
    expect(echoed).toEqual([`[fn npqrs] lost\n`]);
  });
});
