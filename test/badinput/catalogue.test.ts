/**
 * Bad-input catalogue (issue 8): each named bad input, and the place its error shows up.
 *
 * | input                                         | where the error shows                      |
 * | --------------------------------------------- | ------------------------------------------ |
 * | malformed CloudEvent                          | 400 at the broker ingress, nothing sent    |
 * | event without / with a wrong ingress token    | 401 at the broker ingress, nothing sent    |
 * | event for an unknown kind / type              | acknowledged, nothing written              |
 * | DeployItem with an invalid / 1 MB config      | Failed status, ERR_CONFIGURATION_PROBLEM   |
 * | Target with an exec / file-path kubeconfig    | Failed status InvalidTarget + Warning Event|
 * | config file with wrong types                  | loadConfig lists every problem             |
 * | config file that does not load, at run time   | every event 500 (retried, dead-lettered),  |
 * |                                               | logged once, nothing written; re-read ≤5 s |
 * | selector that does not parse                  | loadConfig problem naming the selector     |
 * | DeployItem name of 253 characters             | reconciled; SyncObject `<prefix>-<uid>`    |
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../shared/api/gvk.js';
import { KUBERNETES_CLUSTER_TARGET_TYPE, type DeployItem } from '../../shared/api/landscaper.js';
import { createLogger } from '../../shared/log/index.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../shared/kube/index.js';
import {
  createDeployerInstance,
  runDeployerEvent,
  type DeployerConfig,
  type DeployerInstanceDeps,
} from '../../shared/deployer/host/function.js';
import { FunctionNotReadyError, type FunctionInstance } from '../../shared/function/index.js';
import { createMockDeployer } from '../../functions/deployer-mock/plugin.js';
import { triggerJob } from '../../functions/responsibility-check/jobs.js';
import { createWeederInstance, runWeederEvent } from '../../functions/weeder/handler.js';
import { loadConfig as weederConfig } from '../../functions/weeder/config.js';
import { loadConfig as checkConfig } from '../../functions/responsibility-check/config.js';
import { loadConfig as deadLetterConfig } from '../../functions/dead-letter/config.js';
import { loadConfig as probeTickConfig } from '../../functions/probe-tick/config.js';
import { loadConfig as scheduleShootConfig } from '../../functions/schedule-shoot/config.js';
import { Broker } from '../../triggers/broker/broker.js';
import { deadLetterFile, JsonlDeadLetterStore } from '../../triggers/broker/dlq.js';
import { newIngressToken, startIngress, type RunningIngress } from '../../triggers/broker/ingress.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { crdFiles } from '../../shared/api/crds.js';

const NS = 'badinput';
const FN = 'deployer-mock';
const plugin = createMockDeployer();
const log = createLogger({ name: 'test', level: 'error', destination: { write: () => undefined } });

let srv: ApiServer;
let redis: TestRedis;
let dir: string;
let client: KubeClient;
let kubeconfigYaml: string;
let deployer: FunctionInstance<DeployerConfig, DeployerInstanceDeps>;

beforeAll(async () => {
  [srv, redis] = await Promise.all([
    startApiServer({ crdFiles: crdFiles(), clusters: ['main'] }),
    startRedis(),
  ]);
  dir = await mkdtemp(join(tmpdir(), 'badinput-'));
  kubeconfigYaml = srv.cluster('main').kubeconfigYaml();
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kubeconfigYaml);
  client = createKubeClient(kubeConfigFromYaml(kubeconfigYaml), { fieldManager: 'test' });
  for (const name of [NS, 'landscape-system']) await client.create(GVK.Namespace, { metadata: { name } });
  await client.create(GVK.Pod, {
    metadata: { name: 'replica-a', namespace: 'landscape-system' },
    spec: { containers: [{ name: 'fn', image: 'fn' }] },
  });
  deployer = createDeployerInstance(FN, plugin, {
    env: () => ({
      KUBECONFIG: kubeconfig,
      REDIS_URL: redis.url,
      POD_NAME: 'replica-a',
      POD_NAMESPACE: 'landscape-system',
    }),
    log,
  });
}, 30_000);

afterAll(async () => {
  await deployer?.close();
  await redis?.stop();
  await srv?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const mockConfig = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
  kind: 'ProviderConfiguration',
  ...extra,
});

async function createItem(name: string, spec: Record<string, unknown>): Promise<void> {
  await client.create(GVK.DeployItem, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name, namespace: NS },
    spec: { type: 'landscaper.gardener.cloud/mock', ...spec },
  });
}

/** The job hand-out, then the deployer, as their functions would run them. */
async function settle(name: string): Promise<string | undefined> {
  await triggerJob(
    { client, now: () => new Date(), newId: () => crypto.randomUUID(), log },
    { ensureDefaultContext: true },
    { namespace: NS, name },
  );
  return runDeployerEvent(FN, plugin, deployer, {
    type: 'dev.landscape.deployitem.reconcile',
    deployertype: 'mock',
    namespace: NS,
    name,
  });
}

const getItem = (name: string): Promise<DeployItem> => client.get<DeployItem>(GVK.DeployItem, NS, name);

async function warnings(name: string): Promise<{ reason?: string; message?: string }[]> {
  const events = await client.list<{
    metadata?: { name?: string };
    type?: string;
    reason?: string;
    message?: string;
    involvedObject?: { name?: string };
  }>(GVK.Event, NS);
  return events.items.filter((e) => e.type === 'Warning' && e.involvedObject?.name === name);
}

describe('malformed or unauthenticated CloudEvents: 400 / 401 at the broker ingress, nothing delivered', () => {
  let ingress: RunningIngress;
  let broker: Broker;
  let delivered = 0;
  const token = newIngressToken();
  const auth = { authorization: `Bearer ${token}` };
  const BASE = {
    'ce-specversion': '1.0',
    'ce-id': 'e1',
    'ce-source': '/s',
    'ce-type': 'dev.landscape.requeue',
  };

  beforeAll(async () => {
    broker = new Broker({
      name: 'default',
      triggers: [
        {
          name: 'fn',
          namespace: 'default',
          broker: 'default',
          attributes: {},
          subscriber: { uri: 'http://127.0.0.1:9/' },
          delivery: { retry: 0 },
        },
      ],
      deadLetters: new JsonlDeadLetterStore(
        deadLetterFile(join(dir, 'dlq'), { namespace: 'default', name: 'default' }),
      ),
      fetch: () => {
        delivered++;
        return Promise.resolve(new Response(null, { status: 204 }));
      },
    });
    ingress = await startIngress({ brokers: [broker], token });
  });
  afterAll(async () => {
    await ingress?.close();
  });

  it.each([
    ['missing id', { ...BASE, 'ce-id': undefined }, '', /ce-id/],
    ['missing source', { ...BASE, 'ce-source': undefined }, '', /ce-source/],
    ['missing type', { ...BASE, 'ce-type': undefined }, '', /ce-type/],
    ['wrong specversion', { ...BASE, 'ce-specversion': '2.0' }, '', /unsupported specversion "2.0"/],
    ['invalid attribute name', { ...BASE, 'ce-bad_name': 'x' }, '', /invalid attribute name "bad_name"/],
    [
      'plain JSON, not a CloudEvent',
      { 'content-type': 'application/json' },
      '{"kind":"Pod"}',
      /missing required attribute/,
    ],
    [
      'structured event without source',
      { 'content-type': 'application/cloudevents+json' },
      JSON.stringify({ specversion: '1.0', id: '1', type: 't' }),
      /missing required attribute "source"/,
    ],
  ])('%s (with the token)', async (_what, headers, body, message) => {
    const res = await fetch(ingress.url, {
      method: 'POST',
      headers: {
        ...(Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
          string,
          string
        >),
        ...auth,
      },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(message);
    await broker.idle();
    expect(delivered).toBe(0);
  });

  it.each<[string, Record<string, string>]>([
    ['no token', {}],
    ['a wrong token', { authorization: `Bearer ${newIngressToken()}` }],
  ])('a valid event with %s: 401, nothing delivered', async (_what, authHeader) => {
    const res = await fetch(ingress.url, { method: 'POST', headers: { ...BASE, ...authHeader }, body: '' });
    expect(res.status).toBe(401);
    expect(await res.text()).toMatch(/unauthorized/);
    await broker.idle();
    expect(delivered).toBe(0);
    // the same event with the token is taken: the 401 was the token, not the event
    const ok = await fetch(ingress.url, { method: 'POST', headers: { ...BASE, ...auth }, body: '' });
    expect(ok.status).toBe(202);
    await broker.idle();
    expect(delivered).toBe(1);
    delivered = 0;
  });
});

describe('events for an unknown kind or type: acknowledged, nothing written', () => {
  it('weeder: an event for an unknown kind deletes nothing', async () => {
    const weeder = createWeederInstance({
      env: () => ({ KUBECONFIG: join(dir, 'kubeconfig'), REDIS_URL: redis.url, CONFIG_FILE: '/weeder.yaml' }),
      // a valid config (with an invalid one every event would be a FunctionNotReadyError)
      readFile: () =>
        Promise.resolve(
          'watchDuration: 1m\nservicesAndDependantSelectors:\n  etcd:\n    podSelectors:\n      - matchLabels: {role: x}\n',
        ),
      log,
    });
    try {
      await expect(
        runWeederEvent(weeder, {
          type: 'dev.knative.apiserver.resource.update',
          kind: 'Frobnicator',
          data: { kind: 'Frobnicator', metadata: { name: 'x', namespace: NS } },
        }),
      ).resolves.toBe(0);
    } finally {
      await weeder.close();
    }
  });

  it('deployer: an event of an unknown type, or for an unknown object, leaves the item alone', async () => {
    await createItem('untouched', { config: mockConfig() });
    const before = (await getItem('untouched')).metadata?.resourceVersion;
    for (const ce of [
      { type: 'dev.landscape.nope', deployertype: 'mock', namespace: NS, name: 'untouched' },
      { type: 'dev.landscape.deployitem.reconcile', deployertype: 'mock', namespace: NS, name: 'absent' },
      { type: 'dev.landscape.deployitem.reconcile', kind: 'Frobnicator', namespace: NS, name: 'absent' },
    ]) {
      await expect(runDeployerEvent(FN, plugin, deployer, ce)).resolves.not.toThrow();
    }
    expect((await getItem('untouched')).metadata?.resourceVersion).toBe(before);
    expect(await warnings('untouched')).toEqual([]);
  });
});

describe('DeployItems with a bad config: Failed status with a clear reason', () => {
  it.each([
    ['an invalid provider config', { config: mockConfig({ phase: 'Done' }) }, 'ProviderConfigurationInvalid'],
    ['no provider config', {}, 'ProviderConfigurationMissing'],
    [
      'a 1 MB invalid provider config',
      { config: mockConfig({ phase: 'Done', junk: 'x'.repeat(1 << 20) }) },
      'ProviderConfigurationInvalid',
    ],
    [
      'a config with fields of the wrong types',
      { config: mockConfig({ phase: 7, providerStatus: 'not-an-object', export: ['x'] }) },
      'ProviderConfigurationInvalid',
    ],
    ['an invalid timeout', { config: mockConfig(), timeout: 'soon' }, 'InvalidTimeout'],
  ] as [string, Record<string, unknown>, string | RegExp][])('%s', async (what, spec, reason) => {
    const name = `cfg-${what.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
    await createItem(name, spec);
    expect(await settle(name)).toBe('finished');
    const item = await getItem(name);
    expect(item.status?.phase).toBe('Failed');
    expect(item.status?.lastError?.reason).toEqual(
      typeof reason === 'string' ? reason : expect.stringMatching(reason),
    );
    expect(item.status?.lastError?.codes).toEqual(['ERR_CONFIGURATION_PROBLEM']);
    expect(item.status?.lastError?.message).toBeTruthy();
    expect((item.status?.lastError?.message ?? '').length).toBeLessThan(10_000);
  });
});

it('a DeployItem whose config is not an object is refused by the API server (422), before any function sees it', async () => {
  await expect(createItem('cfg-string', { config: 'not an object' })).rejects.toMatchObject({ code: 422 });
});

describe('Targets with an exec or file-path kubeconfig: InvalidTarget status and Warning Event', () => {
  it.each([
    ['exec', 'exec: {command: /bin/sh, apiVersion: client.authentication.k8s.io/v1}', /exec is not allowed/],
    [
      'token-file',
      'token-file: /var/run/secrets/kubernetes.io/serviceaccount/token',
      /token-file is not allowed/,
    ],
    ['client-certificate path', 'client-certificate: /etc/passwd', /client-certificate is not allowed/],
  ])('%s', async (what, entry, message) => {
    const suffix = what.replace(/[^a-z]+/g, '-');
    const evil = kubeconfigYaml.replace(/token: .*/, entry);
    expect(evil).not.toBe(kubeconfigYaml);
    await client.create(GVK.Target, {
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'Target',
      metadata: { name: `tgt-${suffix}`, namespace: NS },
      spec: { type: KUBERNETES_CLUSTER_TARGET_TYPE, config: { kubeconfig: evil } },
    });
    const name = `target-${suffix}`;
    await createItem(name, { target: { name: `tgt-${suffix}` }, config: mockConfig() });
    expect(await settle(name)).toBe('finished');
    const item = await getItem(name);
    expect(item.status?.phase).toBe('Failed');
    expect(item.status?.lastError).toMatchObject({
      reason: 'InvalidTarget',
      codes: ['ERR_CONFIGURATION_PROBLEM'],
    });
    expect(item.status?.lastError?.message).toMatch(message);
    expect(await warnings(name)).toContainEqual(expect.objectContaining({ reason: 'InvalidTarget' }));
  });
});

describe('config files with wrong types: loadConfig lists every problem', () => {
  it.each([
    [
      'dead-letter',
      () => deadLetterConfig('logData: maybe\nmaxDataChars: "many"\n', {}),
      [
        'logData: Invalid input: expected boolean, received string',
        'maxDataChars: Invalid input: expected number, received string',
      ],
    ],
    [
      'weeder',
      () => weederConfig('watchDuration: [1]\nservicesAndDependantSelectors: 3\n', {}),
      [
        'watchDuration: must be a Go duration string such as "30s"',
        'servicesAndDependantSelectors: must be a mapping of service name to {podSelectors}',
      ],
    ],
    [
      'probe-tick',
      () => probeTickConfig('probeInterval: true\n', {}),
      [
        'kubeConfigSecretName: required',
        'probeInterval: must be a Go duration string such as "30s"',
        'dependentResourceInfos: required',
      ],
    ],
    [
      'responsibility-check',
      () => checkConfig('sink: http://x\ndeployers: {}\n', {}),
      ['deployers: Invalid input: expected array, received object'],
    ],
    [
      'schedule-shoot',
      () => scheduleShootConfig('strategy: 7\n', { REDIS_URL: 'redis://127.0.0.1:1' }),
      ['(root): Unrecognized key: "strategy"'],
    ],
  ])('%s', (_fn, load, problems) => {
    const r = load();
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.problems).toEqual(problems);
  });
});

describe('a config file that does not load, at run time: every event 500, nothing written, until it is fixed', () => {
  it('deployer: each event rejects (the framework answers 500), the item is left alone; the fixed file is read again', async () => {
    await createItem('cfg-broken', { config: mockConfig() });
    await triggerJob(
      { client, now: () => new Date(), newId: () => crypto.randomUUID(), log },
      { ensureDefaultContext: true },
      { namespace: NS, name: 'cfg-broken' },
    );
    const before = (await getItem('cfg-broken')).metadata?.resourceVersion;
    let text = 'lockRetryDelay: soon\n';
    let nowMs = 0;
    const lines: string[] = [];
    const broken = createDeployerInstance(FN, plugin, {
      env: () => ({
        KUBECONFIG: join(dir, 'kubeconfig'),
        REDIS_URL: redis.url,
        POD_NAME: 'replica-a',
        POD_NAMESPACE: 'landscape-system',
        CONFIG_FILE: '/etc/landscape/config.yaml',
      }),
      readFile: () => Promise.resolve(text),
      nowMs: () => nowMs,
      log: createLogger({ name: FN, destination: { write: (l: string) => void lines.push(l) } }),
    });
    const ce = {
      type: 'dev.landscape.deployitem.reconcile',
      deployertype: 'mock',
      namespace: NS,
      name: 'cfg-broken',
    };
    try {
      for (let i = 0; i < 3; i++)
        await expect(runDeployerEvent(FN, plugin, broken, ce)).rejects.toBeInstanceOf(FunctionNotReadyError);
      expect((await getItem('cfg-broken')).metadata?.resourceVersion).toBe(before);
      expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
        'invalid config; events are answered 500 (retried, then dead-lettered) until it is fixed',
      ]);
      text = 'lockRetryDelay: 1s\n';
      nowMs += 5_000;
      await runDeployerEvent(FN, plugin, broken, ce);
      expect((await getItem('cfg-broken')).status?.phase).toBe('Succeeded');
    } finally {
      await broken.close();
    }
  });
});

describe('selectors that do not parse: a problem naming the selector', () => {
  const weederWith = (selector: string): ReturnType<typeof weederConfig> =>
    weederConfig(
      `watchDuration: 5m\nservicesAndDependantSelectors:\n  etcd:\n    podSelectors:\n      - ${selector}\n`,
      {},
    );
  it.each([
    [
      'weeder: unknown operator',
      () => weederWith('matchExpressions: [{key: role, operator: Within, values: [a]}]'),
      'servicesAndDependantSelectors.etcd.podSelectors.0.matchExpressions.0.operator: must be one of In, NotIn, Exists, DoesNotExist',
    ],
    [
      'weeder: values with Exists',
      () => weederWith('matchExpressions: [{key: role, operator: Exists, values: [a]}]'),
      'servicesAndDependantSelectors.etcd.podSelectors.0.matchExpressions.0.values: must be empty for Exists',
    ],
    [
      'weeder: invalid label key',
      () => weederWith('matchLabels: {"bad key!": x}'),
      'servicesAndDependantSelectors.etcd.podSelectors.0.matchLabels.bad key!: must be a qualified label key',
    ],
    [
      'responsibility-check: unknown target selector operator',
      () =>
        checkConfig(
          'sink: http://x\ndeployers:\n  - name: mock\n    type: landscaper.gardener.cloud/mock\n    targetSelectors:\n      - annotations: [{key: env, operator: "~", values: [dev]}]\n',
          {},
        ),
      expect.stringMatching(/^deployers\.0\.targetSelectors\.0\.annotations\.0\.operator: Invalid option/),
    ],
    [
      'responsibility-check: a selector string instead of a list',
      () =>
        checkConfig(
          'sink: http://x\ndeployers:\n  - name: mock\n    type: landscaper.gardener.cloud/mock\n    targetSelectors: "env=dev"\n',
          {},
        ),
      'deployers.0.targetSelectors: Invalid input: expected array, received string',
    ],
  ] as [string, () => ReturnType<typeof weederConfig>, unknown][])('%s', (_what, load, problem) => {
    const r = load();
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.problems).toEqual([problem]);
  });
});

describe('a DeployItem name of 253 characters (the longest the API server takes)', () => {
  it('is reconciled; its SyncObject is named `<prefix>-<uid>`, not after the item', async () => {
    const name = `long-${'n'.repeat(253 - 5)}`;
    expect(name).toHaveLength(253);
    await createItem(name, { config: mockConfig() });
    expect(await settle(name)).toBe('finished');
    const item = await getItem(name);
    expect(item.status?.phase).toBe('Succeeded');
    const syncObjects = await client.list<{ metadata: { name: string } }>(GVK.SyncObject, NS);
    for (const so of syncObjects.items) expect(so.metadata.name.length).toBeLessThanOrEqual(253);
  });
});
