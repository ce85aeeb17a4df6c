import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HELP, readBrokerState, runDlqCli, writeBrokerState } from './dlq-cli.js';
import { JsonlDeadLetterStore, storesIn, type DeadLetter } from './dlq.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlq-cli-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function capture(): { out: string[]; err: string[]; io: Parameters<typeof runDlqCli>[1] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l) => out.push(l), err: (l) => err.push(l), env: {} } };
}

function letter(id: string, pad = 0): DeadLetter {
  return {
    id,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, Number(id.replace(/\D/g, '')) % 60)).toISOString(),
    broker: 'default/default',
    trigger: 'default/fn',
    subscriber: 'http://fn',
    reason: 'retries-exhausted',
    attempts: 3,
    event: { specversion: '1.0', id, type: 'dev.landscape.test', source: '/t', data: 'x'.repeat(pad) },
    extensions: { knativeerrordest: 'http://fn', knativeerrorcode: 500, knativeerrordata: '' },
  };
}

describe('npm run dlq -- --help', () => {
  it.each([['--help'], ['-h'], ['help'], ['list', '--help']])(
    '%s prints the help on stdout, exit 0',
    async (...argv) => {
      const c = capture();
      expect(await runDlqCli(argv, c.io)).toBe(0);
      expect(c.out).toEqual([HELP]);
      expect(c.err).toEqual([]);
      expect(HELP).toMatch(/^usage: dlq list \| show <id> \| replay <id\|--all>/);
      for (const word of [
        'list',
        'show <id>',
        'replay --all',
        '--dir',
        '--broker-url',
        '--state-file',
        '--json',
      ])
        expect(HELP).toContain(word);
    },
  );

  it('an unknown command or option: usage on stderr, exit 2', async () => {
    for (const argv of [['bogus'], ['--bogus'], []]) {
      const c = capture();
      expect(await runDlqCli(argv, c.io)).toBe(2);
      expect(c.out).toEqual([]);
      expect(c.err.join('\n')).toMatch(/usage: dlq list[\s\S]*npm run dlq -- --help for more/);
    }
  });
});

describe('files others read are replaced atomically', () => {
  it('a reader of the dead-letter file never sees half a line while letters are added and removed', async () => {
    const store = new JsonlDeadLetterStore(join(dir, 'dlq', 'default.jsonl'));
    const reader = new JsonlDeadLetterStore(store.file);
    let writing = true;
    let reads = 0;
    const seen = (async () => {
      while (writing) {
        // another handle on the file (as `npm run dlq` is another process): parses every line
        await reader.list().catch((err: unknown) => {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        });
        reads++;
      }
    })();
    for (let i = 0; i < 60; i++) {
      await store.add(letter(`dl${i}`, 20_000));
      if (i % 3 === 2) expect(await store.remove(`dl${i - 1}`)).toBe(true);
    }
    writing = false;
    await seen;
    expect(reads).toBeGreaterThan(0);
    expect((await store.list()).map((l) => l.id)).toHaveLength(40);
    // no temporary file is left, and none would be taken for a broker's file
    expect(await readdir(join(dir, 'dlq'))).toEqual(['default.jsonl']);
    expect(await storesIn(join(dir, 'dlq'))).toHaveLength(1);
  });

  it('broker.json: readable by its owner only, read whole while it is rewritten', async () => {
    const file = join(dir, 'state', 'broker.json');
    let writing = true;
    const bad: string[] = [];
    const reading = (async () => {
      while (writing) {
        const text = await readFile(file, 'utf8').catch(() => undefined);
        if (text !== undefined && (await readBrokerState(file)) === undefined) bad.push(text);
      }
    })();
    for (let i = 0; i < 200; i++)
      await writeBrokerState(file, {
        ingressUrl: `http://127.0.0.1:${1000 + i}/`,
        ingressToken: 't'.repeat(i * 50),
      });
    writing = false;
    await reading;
    expect(bad).toEqual([]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readBrokerState(file)).toEqual({
      ingressUrl: 'http://127.0.0.1:1199/',
      ingressToken: 't'.repeat(199 * 50),
    });
  });
});
