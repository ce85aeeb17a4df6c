import { Writable } from 'node:stream';
import { createLogger, isLogLevel } from './index.js';
import type { LogLevel } from './index.js';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[]; raw: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb): void {
      chunks.push(chunk.toString());
      cb();
    },
  });
  const raw = (): string[] =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '');
  return { stream, raw, lines: () => raw().map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const NOW = Date.parse('2023-07-13T11:33:30.205Z');

function make(level?: LogLevel): ReturnType<typeof capture> & { log: ReturnType<typeof createLogger> } {
  const out = capture();
  const log = createLogger({ name: 'controllers', level, destination: out.stream, now: () => NOW });
  return { ...out, log };
}

describe('createLogger', () => {
  it('writes the seed 000 shape, keys in order level, ts, logger, msg, fields', () => {
    const { log, raw } = make();
    log.child('landscaper-monitoring').info('HPA Statistics', {
      resource: 'ls-system/helm-default-helm-deployer',
      currentReplicas: 3,
      desiredReplicas: 3,
      memoryAverageUtilization: 20,
      memoryAverageValue: '64625322666m',
      cpuAverageUtilization: 108,
      cpuAverageValue: '325m',
    });
    expect(raw()).toEqual([
      '{"level":"info","ts":"2023-07-13T11:33:30.205Z","logger":"controllers.landscaper-monitoring",' +
        '"msg":"HPA Statistics","resource":"ls-system/helm-default-helm-deployer","currentReplicas":3,' +
        '"desiredReplicas":3,"memoryAverageUtilization":20,"memoryAverageValue":"64625322666m",' +
        '"cpuAverageUtilization":108,"cpuAverageValue":"325m"}',
    ]);
  });

  it('joins child names with dots and carries child fields', () => {
    const { log, lines } = make();
    const child = log.child('landscaper').child('deployer', { deployItem: 'ns/a' }).child({ jobID: 'j1' });
    child.warn('hello', { n: 1 });
    expect(child.name).toBe('controllers.landscaper.deployer');
    expect(lines()).toEqual([
      {
        level: 'warn',
        ts: '2023-07-13T11:33:30.205Z',
        logger: 'controllers.landscaper.deployer',
        msg: 'hello',
        deployItem: 'ns/a',
        jobID: 'j1',
        n: 1,
      },
    ]);
  });

  it('lets call fields override child fields without duplicate keys', () => {
    const { log, raw } = make();
    log.child({ k: 1 }).info('m', { k: 2 });
    expect(raw()[0]).toBe(
      '{"level":"info","ts":"2023-07-13T11:33:30.205Z","logger":"controllers","msg":"m","k":2}',
    );
  });

  it('filters by level', () => {
    const { log, lines } = make('warn');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(lines().map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'w'],
      ['error', 'e'],
    ]);
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.child('x').level).toBe('warn');
  });

  it('defaults to info and prints debug when asked', () => {
    const a = make();
    a.log.debug('hidden');
    expect(a.lines()).toEqual([]);
    const b = make('debug');
    b.log.debug('shown');
    expect(b.lines()[0]).toMatchObject({ level: 'debug', msg: 'shown' });
  });

  it('prints errors as their message, as zap does', () => {
    const { log, lines } = make();
    log.error('reconcile failed', { error: new Error('boom') });
    expect(lines()[0]).toMatchObject({ level: 'error', msg: 'reconcile failed', error: 'boom' });
  });

  it('renames fields that would clash with the reserved keys', () => {
    const { log, lines } = make();
    log.info('m', { level: 'x', ts: 'y', logger: 'z', msg: 'w' });
    expect(lines()[0]).toEqual({
      level: 'info',
      ts: '2023-07-13T11:33:30.205Z',
      logger: 'controllers',
      msg: 'm',
      level_: 'x',
      ts_: 'y',
      logger_: 'z',
      msg_: 'w',
    });
  });

  it('survives cycles', () => {
    const { log, lines } = make();
    const o: Record<string, unknown> = { a: 1 };
    o.self = o;
    log.info('m', { o });
    expect(lines()[0].o).toEqual({ a: 1, self: '[Circular]' });
  });
});

describe('redaction', () => {
  const kubeconfig = [
    'apiVersion: v1',
    'clusters:',
    '- cluster: {server: "https://x"}',
    '  name: c',
    'users:',
    '- name: u',
    '  user: {token: abc}',
  ].join('\n');

  it('never prints secret-named fields, at any depth', () => {
    const { log, raw, lines } = make();
    log.info('target', {
      kubeconfig: 'anything',
      token: 't0ps3cret',
      password: 'hunter2',
      clientSecret: 's',
      nested: { deep: [{ 'client-key-data': 'abc', bearerToken: 'x', ok: 'fine' }] },
      secretRef: { name: 'my-secret', key: 'kubeconfig' },
      kubeConfigSecretName: 'shoot-access',
      tokenFile: '/var/run/secrets/token',
    });
    const text = raw().join('\n');
    for (const s of ['anything', 't0ps3cret', 'hunter2', '"s"', '"abc"']) expect(text).not.toContain(s);
    expect(lines()[0]).toMatchObject({
      kubeconfig: '[REDACTED]',
      token: '[REDACTED]',
      password: '[REDACTED]',
      clientSecret: '[REDACTED]',
      nested: { deep: [{ 'client-key-data': '[REDACTED]', bearerToken: '[REDACTED]', ok: 'fine' }] },
      secretRef: { name: 'my-secret', key: 'kubeconfig' },
      kubeConfigSecretName: 'shoot-access',
      tokenFile: '/var/run/secrets/token',
    });
  });

  it('redacts the data of Secret objects and kubeconfig-looking strings under any key', () => {
    const { log, raw, lines } = make();
    log.info('m', {
      object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { x: 'c2VjcmV0' } },
      config: kubeconfig,
      key: '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----',
      header: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2ln',
    });
    expect(raw()[0]).not.toContain('c2VjcmV0');
    expect(lines()[0]).toMatchObject({
      object: { kind: 'Secret', metadata: { name: 's' }, data: '[REDACTED]' },
      config: '[REDACTED]',
      key: '[REDACTED]',
      header: '[REDACTED]',
    });
  });

  it('redacts child fields too and does not mutate the input', () => {
    const { log, lines } = make();
    const fields = { token: 'abc', keep: 1 };
    log.child(fields).info('m');
    expect(lines()[0]).toMatchObject({ token: '[REDACTED]', keep: 1 });
    expect(fields.token).toBe('abc');
  });
});

describe('isLogLevel', () => {
  it.each([
    ['debug', true],
    ['info', true],
    ['warn', true],
    ['error', true],
    ['trace', false],
    ['INFO', false],
    [3, false],
  ])('%s → %s', (v, ok) => expect(isLogLevel(v)).toBe(ok));
});
