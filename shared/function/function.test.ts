import { Writable } from 'node:stream';
import { z } from 'zod';
import { loadConfigWith } from '../config/index.js';
import { createLogger } from '../log/index.js';
import { createInstance, eventObjectRef, eventType } from './index.js';

function capture(): { log: ReturnType<typeof createLogger>; lines: () => Array<Record<string, unknown>> } {
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _e, cb): void {
      raw.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  return {
    log: createLogger({ name: 't', destination }),
    lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const Schema = z.strictObject({ size: z.number().default(1) });
const def = (setups: number[]): Parameters<typeof createInstance<{ size: number }, number>>[0] => ({
  name: 't',
  loadConfig: (text, env) => loadConfigWith(Schema, {}, text, env),
  setup: ({ config }) => {
    setups.push(config.size);
    return config.size * 10;
  },
});

describe('createInstance', () => {
  it('reads the config once and sets up once', async () => {
    const setups: number[] = [];
    const reads: string[] = [];
    const { log } = capture();
    const inst = createInstance(def(setups), {
      env: () => ({ CONFIG_FILE: '/c.yaml' }),
      readFile: (p) => {
        reads.push(p);
        return Promise.resolve('size: 3');
      },
      log,
    });
    const [a, b] = await Promise.all([inst.ready(), inst.ready()]);
    expect(a).toMatchObject({ ok: true, config: { size: 3 }, deps: 30 });
    expect(b).toBe(a);
    expect(reads).toEqual(['/c.yaml']);
    expect(setups).toEqual([3]);
  });

  it.each([
    [
      'an invalid file',
      () => Promise.resolve('size: x\nother: 1'),
      'invalid config; events are acknowledged and nothing is done',
    ],
    [
      'an unreadable file',
      () => Promise.reject(new Error('EACCES')),
      'config file unreadable; events are acknowledged and nothing is done',
    ],
  ])('logs %s once, with every problem, and is not ok', async (_what, readFile, msg) => {
    const setups: number[] = [];
    const { log, lines } = capture();
    const inst = createInstance(def(setups), { env: () => ({ CONFIG_FILE: '/c.yaml' }), readFile, log });
    expect((await inst.ready()).ok).toBe(false);
    expect((await inst.ready()).ok).toBe(false);
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 'error', msg });
    expect(setups).toEqual([]);
  });

  it('names every problem of an invalid file', async () => {
    const { log, lines } = capture();
    await createInstance(def([]), {
      env: () => ({ CONFIG_FILE: '/c.yaml' }),
      readFile: () => Promise.resolve('size: x\nother: 1'),
      log,
    }).ready();
    expect((lines()[0].problems as string[]).sort()).toEqual([
      '(root): Unrecognized key: "other"',
      'size: Invalid input: expected number, received string',
    ]);
  });
});

describe('eventObjectRef', () => {
  it.each([
    [
      { type: 'dev.knative.apiserver.ref.update', namespace: 'n', name: 'a', kind: 'DeployItem' },
      { namespace: 'n', name: 'a' },
    ],
    [
      { type: 'dev.landscape.deployitem.reconcile', namespace: 'n', name: 'a', uid: 'u' },
      { namespace: 'n', name: 'a', uid: 'u' },
    ],
    [
      { type: 'x', data: { namespace: 'n', name: 'b' } },
      { namespace: 'n', name: 'b' },
    ],
    [
      { type: 'x', name: 'c' },
      { namespace: '', name: 'c' },
    ],
    [{ type: 'dev.landscape.resync', kind: 'DeployItem' }, undefined],
    [null, undefined],
    ['text', undefined],
  ])('%j → %j', (ce, want) => {
    expect(eventObjectRef(ce)).toEqual(want);
  });

  it('reads the type', () => {
    expect(eventType({ type: 't' })).toBe('t');
    expect(eventType({})).toBe('');
  });
});
