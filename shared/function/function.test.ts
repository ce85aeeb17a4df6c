import { Writable } from 'node:stream';
import * as z from '../config/zod.js';
import { loadConfigWith } from '../config/index.js';
import { createLogger } from '../log/index.js';
import { createInstance, eventObjectRef, eventType, FunctionNotReadyError } from './index.js';

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
    ['an invalid file', () => Promise.resolve('size: x\nother: 1'), 'invalid', 'invalid config'],
    ['an unreadable file', () => Promise.reject(new Error('EACCES')), 'unreadable', 'config file unreadable'],
  ])(
    'logs %s once, with every problem, and rejects every event with a FunctionNotReadyError',
    async (_what, readFile, reason, text) => {
      const setups: number[] = [];
      const { log, lines } = capture();
      const inst = createInstance(def(setups), { env: () => ({ CONFIG_FILE: '/c.yaml' }), readFile, log });
      const first = inst.ready();
      await expect(first).rejects.toBeInstanceOf(FunctionNotReadyError);
      await expect(first).rejects.toMatchObject({ reason, functionName: 't', file: '/c.yaml' });
      await expect(inst.ready()).rejects.toThrow(
        new RegExp(`^t: ${text} \\(/c\\.yaml\\): .*; the event is not handled \\(answered 500, retried\\)$`),
      );
      expect(lines()).toHaveLength(1);
      expect(lines()[0]).toMatchObject({
        level: 'error',
        msg: `${text}; events are answered 500 (retried, then dead-lettered) until it is fixed`,
      });
      expect(setups).toEqual([]);
    },
  );

  it('reads a bad file again at most every retry interval, logs it again only when it changed', async () => {
    const setups: number[] = [];
    const reads: string[] = [];
    const { log, lines } = capture();
    let text = 'size: x';
    let now = 1_000;
    const inst = createInstance(def(setups), {
      env: () => ({ CONFIG_FILE: '/c.yaml' }),
      readFile: (p) => {
        reads.push(p);
        return Promise.resolve(text);
      },
      log,
      nowMs: () => now,
      retryConfigMs: 5_000,
    });
    await expect(inst.ready()).rejects.toMatchObject({ reason: 'invalid' });
    now += 4_999;
    await expect(inst.ready()).rejects.toMatchObject({ reason: 'invalid' });
    expect(reads).toHaveLength(1);
    now += 1;
    await expect(inst.ready()).rejects.toMatchObject({ reason: 'invalid' }); // same problems: not logged again
    expect(reads).toHaveLength(2);
    text = 'size: x\nother: 1';
    now += 5_000;
    await expect(inst.ready()).rejects.toMatchObject({ reason: 'invalid' }); // other problems: logged
    text = 'size: 4';
    now += 5_000;
    await expect(inst.ready()).resolves.toMatchObject({ ok: true, config: { size: 4 }, deps: 40 });
    now += 60_000;
    text = 'size: z';
    await expect(inst.ready()).resolves.toMatchObject({ config: { size: 4 } }); // a good config is kept
    expect(reads).toHaveLength(4);
    expect(setups).toEqual([4]);
    expect(lines().map((l) => l.msg)).toEqual([
      'invalid config; events are answered 500 (retried, then dead-lettered) until it is fixed',
      'invalid config; events are answered 500 (retried, then dead-lettered) until it is fixed',
      'config fixed; events are handled again',
    ]);
  });

  it('a failed set-up is a FunctionNotReadyError too, and is tried again', async () => {
    let fail = true;
    let now = 0;
    const { log, lines } = capture();
    const inst = createInstance(
      {
        name: 't',
        loadConfig: (text, env) => loadConfigWith(Schema, {}, text, env),
        setup: () => {
          if (fail) throw new Error('no kubeconfig');
          return 1;
        },
      },
      { env: () => ({}), log, nowMs: () => now },
    );
    await expect(inst.ready()).rejects.toMatchObject({ reason: 'setup', problems: ['Error: no kubeconfig'] });
    expect(lines()[0]).toMatchObject({ level: 'error', error: 'Error: no kubeconfig' });
    fail = false;
    now += 5_000;
    await expect(inst.ready()).resolves.toMatchObject({ deps: 1 });
  });

  it('concurrent events during a re-read share one read', async () => {
    const reads: string[] = [];
    const inst = createInstance(def([]), {
      env: () => ({ CONFIG_FILE: '/c.yaml' }),
      readFile: (p) => {
        reads.push(p);
        return Promise.resolve('size: x');
      },
      log: capture().log,
    });
    const all = await Promise.allSettled([inst.ready(), inst.ready(), inst.ready()]);
    expect(all.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(reads).toHaveLength(1);
  });

  it('names every problem of an invalid file', async () => {
    const { log, lines } = capture();
    const ready = createInstance(def([]), {
      env: () => ({ CONFIG_FILE: '/c.yaml' }),
      readFile: () => Promise.resolve('size: x\nother: 1'),
      log,
    }).ready();
    await expect(ready).rejects.toMatchObject({ problems: expect.any(Array) });
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
    [{ type: 'dev.knative.sources.ping', source: '/apis/v1/namespaces/n/pingsources/p' }, undefined],
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
