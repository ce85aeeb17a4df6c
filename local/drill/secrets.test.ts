/**
 * The drill's secrets scanner against a real redis-server, the embedded API server and a temp
 * log directory: a clean landscape gives no finding; each secret planted in one place is found
 * there, in the right form; short values are not collected.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startApiServer } from '@landscape/kube-apiserver';
import type { ApiServer } from '@landscape/kube-apiserver';
import { startRedis } from '../redis.js';
import type { TestRedis } from '../redis.js';
import { GVK } from '../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml } from '../../shared/kube/index.js';
import type { KubeClient } from '../../shared/kube/index.js';
import { base64Core, collectSecrets, MIN_SECRET_LENGTH, scanForSecrets } from './secrets.js';
import type { SecretFinding, SecretValue } from './secrets.js';
import { crdFiles } from '../../shared/api/crds.js';

const NS = 'drill';
const rand = (n: number): string => randomBytes(n).toString('hex');
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

const TOKEN = `drill-token-${rand(16)}`;
const KEY_PEM = `-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI${rand(24)}\n-----END EC PRIVATE KEY-----\n`;
const KEY_DATA = b64(KEY_PEM);
const KUBECONFIG = [
  'apiVersion: v1',
  'kind: Config',
  'clusters:',
  '- name: shoot',
  '  cluster: {server: "https://127.0.0.1:1"}',
  'users:',
  '- name: drill-user',
  '  user:',
  `    token: ${TOKEN}`,
  `    client-key-data: ${KEY_DATA}`,
  'contexts:',
  '- name: shoot',
  '  context: {cluster: shoot, user: drill-user}',
  'current-context: shoot',
  '',
].join('\n');
const PASSWORD = `opaque-password-${rand(8)}`;
const SHORT = 'short-pw1'; // 9 characters: not collected
const KUBECONFIG_SRC = `Secret main/${NS}/target-kubeconfig key kubeconfig`;
const TOKEN_SRC = `${KUBECONFIG_SRC}: token of user drill-user`;
const KEY_SRC = `${KUBECONFIG_SRC}: client-key-data of user drill-user`;
const PASSWORD_SRC = `Secret main/${NS}/opaque key password`;

const CLEAN_LOG = [
  '{"level":30,"msg":"reconciled","deployItem":"drill/item-1"}',
  '{"level":30,"msg":"target kubeconfig read","token":"<redacted>"}',
  '{"level":40,"msg":"retrying","err":"connection refused"}',
  `{"level":30,"msg":"blob","data":"${b64('nothing secret in here, just a long enough payload')}"}`,
  '',
].join('\n');

let server: ApiServer;
let redisServer: TestRedis;
let redis: Redis;
let client: KubeClient;
let adminToken: string;
let logRoot: string;
let logFile: string;
let secrets: SecretValue[];

const clusters = (): { name: string; client: KubeClient }[] => [{ name: 'main', client }];
const scan = (): Promise<SecretFinding[]> =>
  scanForSecrets({ secrets, logDirs: [logRoot], redisUrl: redisServer.url, clusters: clusters() });
const sorted = (f: SecretFinding[]): SecretFinding[] =>
  [...f].sort((a, b) => `${a.source}${a.where}${a.form}`.localeCompare(`${b.source}${b.where}${b.form}`));

async function createEvent(
  name: string,
  fields: Record<string, unknown>,
  annotations?: Record<string, string>,
): Promise<void> {
  await client.create(GVK.Event, {
    metadata: { name, namespace: NS, annotations },
    involvedObject: { kind: 'Secret', namespace: NS, name: 'opaque', apiVersion: 'v1' },
    reason: 'Reconciled',
    message: 'reconciled the item',
    type: 'Normal',
    ...fields,
  });
}

async function writeLog(lines: string[]): Promise<void> {
  await writeFile(logFile, CLEAN_LOG + lines.map((l) => `${l}\n`).join(''));
}

beforeAll(async () => {
  [redisServer, server] = await Promise.all([
    startRedis(),
    startApiServer({ crdFiles: crdFiles(), clusters: ['main'] }),
  ]);
  const main = server.cluster('main');
  adminToken = main.token;
  client = createKubeClient(kubeConfigFromYaml(main.kubeconfigYaml()), { fieldManager: 'drill-secrets' });
  redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });

  await client.create(GVK.Namespace, { metadata: { name: NS } });
  await client.create(GVK.Secret, {
    metadata: { name: 'target-kubeconfig', namespace: NS },
    type: 'Opaque',
    data: { kubeconfig: b64(KUBECONFIG) },
  });
  await client.create(GVK.Secret, {
    metadata: { name: 'opaque', namespace: NS },
    type: 'Opaque',
    data: { password: b64(PASSWORD), short: b64(SHORT) },
  });
  await createEvent('clean-event', {}, { 'drill/step': 'apply' });

  logRoot = await mkdtemp(join(tmpdir(), 'drill-secrets-'));
  await mkdir(join(logRoot, 'runtime'));
  logFile = join(logRoot, 'runtime', 'functions.log');
  await writeLog([]);
  await writeFile(join(logRoot, 'apiserver.log'), 'GET /api/v1/namespaces/drill/secrets 200\n');

  await redis.set('drill:cache:item-1', JSON.stringify({ phase: 'Succeeded', generation: 3 }));
  await redis.hset('drill:hash', { owner: 'pod-a', phase: 'Init' });
  await redis.rpush('drill:list', 'a', 'b', 'c');
  await redis.sadd('drill:set', 'x', 'y');
  await redis.zadd('drill:zset', 1, 'shoot-1', 2, 'shoot-2');
  await redis.xadd('drill:stream', '*', 'event', 'reconcile', 'item', 'item-1');

  secrets = await collectSecrets({
    clusters: clusters(),
    extra: [{ source: 'cluster token main', value: adminToken }],
  });
}, 30_000);

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([server?.stop(), redisServer?.stop()]);
  if (logRoot) await rm(logRoot, { recursive: true, force: true });
});

describe('collectSecrets', () => {
  it('collects Secret values, the secret fields of a kubeconfig and the extra values', () => {
    const byValue = new Map(secrets.map((s) => [s.value, s]));
    expect(byValue.get(KUBECONFIG.trim())).toEqual({ source: KUBECONFIG_SRC, value: KUBECONFIG.trim() });
    expect(byValue.get(TOKEN)).toEqual({ source: TOKEN_SRC, value: TOKEN, part: 'token-in-kubeconfig' });
    expect(byValue.get(KEY_DATA)).toEqual({
      source: KEY_SRC,
      value: KEY_DATA,
      part: 'client-key-data-in-kubeconfig',
    });
    expect(byValue.get(KEY_PEM.trim())?.part).toBe('client-key-data-in-kubeconfig-decoded');
    expect(byValue.get(PASSWORD)).toEqual({ source: PASSWORD_SRC, value: PASSWORD });
    expect(byValue.get(adminToken)?.source).toBe('cluster token main');
  });

  it('counts a URL by its password, and not at all without one', async () => {
    const plain = 'redis://127.0.0.1:6399';
    const withPassword = 'redis://:s3cret-password-123@127.0.0.1:6399/0';
    await client.create(GVK.Secret, {
      metadata: { name: 'redis-urls', namespace: NS },
      data: { plain: b64(plain), auth: b64(withPassword) },
    });
    try {
      const got = await collectSecrets({ clusters: clusters() });
      const values = got.filter((v) => v.source.includes('redis-urls')).map((v) => [v.value, v.part]);
      expect(values).toEqual([
        ['s3cret-password-123', 'url-password'],
        [withPassword, undefined],
      ]);
    } finally {
      await client.delete(GVK.Secret, { namespace: NS, name: 'redis-urls' });
    }
  });

  it('skips values shorter than 12 characters (11 skipped, 12 kept)', async () => {
    expect(MIN_SECRET_LENGTH).toBe(12);
    expect(secrets.some((s) => s.value === SHORT)).toBe(false);
    expect(secrets.some((s) => s.source.startsWith(`Secret main/${NS}/opaque key short`))).toBe(false);
    const got = await collectSecrets({
      clusters: [],
      extra: [
        { source: 'eleven', value: 'a'.repeat(11) },
        { source: 'twelve', value: 'b'.repeat(12) },
        { source: 'padded', value: `  ${'c'.repeat(11)}\n` },
      ],
    });
    expect(got).toEqual([{ source: 'twelve', value: 'b'.repeat(12) }]);
  });
});

describe('base64Core', () => {
  it.each([0, 1, 2] as const)('matches the value inside a larger base64 blob at shift %i', (shift) => {
    const value = Buffer.from(PASSWORD);
    for (let before = shift; before < shift + 9; before += 3) {
      const blob = Buffer.concat([randomBytes(before), value, randomBytes(5)]).toString('base64');
      expect(blob).toContain(base64Core(value, shift));
    }
    expect(b64(PASSWORD)).toContain(base64Core(value, 0));
  });
});

describe('scanForSecrets', () => {
  it('finds nothing in a clean landscape', async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    expect(await scan()).toEqual([]);
  });

  type Row = [string, () => Promise<unknown>, () => Promise<unknown>, () => SecretFinding[]];
  const rows: Row[] = [
    [
      'token in a log line',
      () => writeLog([`{"level":50,"msg":"auth failed","header":"Bearer ${TOKEN}"}`]),
      () => writeLog([]),
      () => [{ source: TOKEN_SRC, where: `log ${logFile}:5`, form: 'token-in-kubeconfig' }],
    ],
    [
      'opaque password in a Redis string',
      () => redis.set('drill:cache:leak', JSON.stringify({ password: PASSWORD })),
      () => redis.del('drill:cache:leak'),
      () => [{ source: PASSWORD_SRC, where: 'redis key drill:cache:leak', form: 'plain' }],
    ],
    [
      'client-key-data in a Redis hash field',
      () => redis.hset('drill:hash', 'creds', `key=${KEY_DATA}`),
      () => redis.hdel('drill:hash', 'creds'),
      () => [
        {
          source: KEY_SRC,
          where: 'redis key drill:hash hash field creds',
          form: 'client-key-data-in-kubeconfig',
        },
      ],
    ],
    [
      'admin token in a Redis list, set, zset and stream',
      async () => {
        await redis.rpush('drill:list', adminToken);
        await redis.sadd('drill:set', `t:${adminToken}`);
        await redis.zadd('drill:zset', 3, adminToken);
        await redis.xadd('drill:stream', '*', 'auth', adminToken);
      },
      async () => {
        await redis.lrem('drill:list', 0, adminToken);
        await redis.srem('drill:set', `t:${adminToken}`);
        await redis.zrem('drill:zset', adminToken);
        await redis.del('drill:stream');
        await redis.xadd('drill:stream', '*', 'event', 'reconcile');
      },
      () => {
        const s = 'cluster token main';
        return [
          { source: s, where: 'redis key drill:list list index 3', form: 'plain' },
          { source: s, where: 'redis key drill:set set member', form: 'plain' },
          { source: s, where: 'redis key drill:zset zset member', form: 'plain' },
          // The stream's id is not known in advance: checked by prefix below.
          { source: s, where: 'redis key drill:stream stream entry', form: 'plain' },
        ];
      },
    ],
    [
      'token in a Redis key name (redacted in where)',
      () => redis.set(`drill:by-token:${TOKEN}`, '1'),
      () => redis.del(`drill:by-token:${TOKEN}`),
      () => [
        {
          source: TOKEN_SRC,
          where: 'redis key drill:by-token:<redacted> (name)',
          form: 'token-in-kubeconfig',
        },
      ],
    ],
    [
      'token in an Event message',
      () => createEvent('leak-message', { message: `probe failed with token ${TOKEN}` }),
      () => client.delete(GVK.Event, { namespace: NS, name: 'leak-message' }),
      () => [
        { source: TOKEN_SRC, where: `event main ${NS}/leak-message message`, form: 'token-in-kubeconfig' },
      ],
    ],
    [
      'password in an Event annotation',
      () => createEvent('leak-annotation', {}, { 'drill/debug': PASSWORD }),
      () => client.delete(GVK.Event, { namespace: NS, name: 'leak-annotation' }),
      () => [
        {
          source: PASSWORD_SRC,
          where: `event main ${NS}/leak-annotation annotation drill/debug`,
          form: 'plain',
        },
      ],
    ],
    [
      'base64 of the password in a log line',
      () => writeLog([`{"msg":"dump","data":"${b64(PASSWORD)}"}`]),
      () => writeLog([]),
      () => [{ source: PASSWORD_SRC, where: `log ${logFile}:5`, form: 'base64' }],
    ],
    [
      'base64 of the password shifted inside a larger base64 blob (Redis)',
      () => redis.set('drill:blob', b64(`{"password":"${PASSWORD}"}`)),
      () => redis.del('drill:blob'),
      // `{"password":"` is 13 bytes: 13 mod 3 = 1, so the value sits at shift 1.
      () => [{ source: PASSWORD_SRC, where: 'redis key drill:blob', form: 'base64-shifted' }],
    ],
    [
      'base64 of the token in an Event message',
      () => createEvent('leak-b64', { message: `header ${b64(`Bearer ${TOKEN}`)}` }),
      () => client.delete(GVK.Event, { namespace: NS, name: 'leak-b64' }),
      // `Bearer ` is 7 bytes: 7 mod 3 = 1.
      () => [
        {
          source: TOKEN_SRC,
          where: `event main ${NS}/leak-b64 message`,
          form: 'token-in-kubeconfig, base64-shifted',
        },
      ],
    ],
    [
      'whole kubeconfig JSON-escaped in a log line (second line)',
      () => writeLog(['{"msg":"ok"}', JSON.stringify({ msg: 'target', kubeconfig: KUBECONFIG })]),
      () => writeLog([]),
      () => {
        const where = `log ${logFile}:6`;
        return [
          { source: KUBECONFIG_SRC, where, form: 'json-escaped' },
          { source: TOKEN_SRC, where, form: 'token-in-kubeconfig' },
          { source: KEY_SRC, where, form: 'client-key-data-in-kubeconfig' },
        ];
      },
    ],
    [
      'kubeconfig Secret data (base64) in a Redis hash',
      () => redis.hset('drill:hash', 'secret', JSON.stringify({ data: { kubeconfig: b64(KUBECONFIG) } })),
      () => redis.hdel('drill:hash', 'secret'),
      () => {
        const where = 'redis key drill:hash hash field secret';
        return [
          { source: KUBECONFIG_SRC, where, form: 'base64' },
          // The token and key sit inside that base64 at some alignment.
          { source: TOKEN_SRC, where, form: expect.stringMatching(/^token-in-kubeconfig, base64/) },
          { source: KEY_SRC, where, form: expect.stringMatching(/^client-key-data-in-kubeconfig, base64/) },
        ];
      },
    ],
  ];

  it.each(rows)('finds the %s', async (_name, plant, unplant, expected) => {
    await plant();
    try {
      const found = sorted(await scan()).map((f) =>
        f.where.startsWith('redis key drill:stream stream entry ')
          ? { ...f, where: 'redis key drill:stream stream entry' }
          : f,
      );
      expect(found).toEqual(sorted(expected()));
      for (const f of found) expect(f.where).not.toContain(TOKEN);
    } finally {
      await unplant();
    }
    expect(await scan()).toEqual([]);
  });

  it('does not report a short value planted everywhere, but reports a 12-character one', async () => {
    const twelve = `k${rand(4)}-${rand(1)}`; // 1 + 8 + 1 + 2 = 12
    expect(twelve).toHaveLength(12);
    await writeLog([`password=${SHORT}`, `secret=${twelve}`]);
    await redis.set('drill:short', SHORT);
    try {
      const withShort = [...secrets, { source: 'short', value: SHORT }];
      const kept = await collectSecrets({ clusters: [], extra: [{ source: 'twelve', value: twelve }] });
      const all = [...(await collectSecrets({ clusters: [], extra: withShort })), ...kept];
      expect(all.some((s) => s.value === SHORT)).toBe(false);
      const found = await scanForSecrets({
        secrets: all,
        logDirs: [logRoot],
        redisUrl: redisServer.url,
        clusters: clusters(),
      });
      expect(found).toEqual([{ source: 'twelve', where: `log ${logFile}:6`, form: 'plain' }]);
    } finally {
      await writeLog([]);
      await redis.del('drill:short');
    }
  });

  it('fails on a missing log directory instead of reporting it clean', async () => {
    await expect(
      scanForSecrets({
        secrets,
        logDirs: [join(logRoot, 'missing')],
        redisUrl: redisServer.url,
        clusters: clusters(),
      }),
    ).rejects.toThrow(/ENOENT/);
  });
});
