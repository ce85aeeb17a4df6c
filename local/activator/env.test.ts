import { join } from 'node:path';
import { EnvError, IN_CLUSTER_BROKER_HOST, localConfigFile, localSink, replicaEnv } from './env.js';
import type { EnvContext } from './env.js';
import type { EnvSource, FunctionService } from './services.js';

const INGRESS = 'http://127.0.0.1:18080';
const CONFIG_DIR = '/home/me/landscape/config';
const POD = 'requeue-tick-00001-deployment-bcdfghjklm-npqrs';
const IN_CLUSTER_SINK = `http://${IN_CLUSTER_BROKER_HOST}/landscape-system/default`;

function fn(over: Partial<FunctionService> = {}): FunctionService {
  return {
    name: 'requeue-tick',
    namespace: 'landscape-system',
    revision: 'requeue-tick-00001',
    containerConcurrency: 1,
    maxScale: 1,
    minScale: 0,
    target: 1,
    windowMs: 60_000,
    timeoutSeconds: 60,
    env: [],
    configMountPath: '/etc/landscape',
    ...over,
  };
}

/** A fake main cluster: `kind namespace/name key` → value; every lookup recorded. */
function fakeLookup(data: Record<string, string>): { lookup: EnvContext['lookup']; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    lookup: (kind, namespace, name, key) => {
      const id = `${kind} ${namespace}/${name} ${key}`;
      calls.push(id);
      return Promise.resolve(data[id]);
    },
  };
}

function ctx(over: Partial<EnvContext> = {}): EnvContext {
  return {
    podName: POD,
    ingressUrl: INGRESS,
    configDir: CONFIG_DIR,
    kubeconfig: '/home/me/landscape/kubeconfig',
    hostEnv: {},
    lookup: fakeLookup({}).lookup,
    ...over,
  };
}

/** The env of a replica of a Service with one entry `name` from `from`. */
async function one(
  name: string,
  from: EnvSource,
  service: Partial<FunctionService> = {},
  c = ctx(),
): Promise<Record<string, string>> {
  return replicaEnv(fn({ ...service, env: [{ name, from }] }), c);
}

describe('localSink', () => {
  it.each<[string, string, string, string]>([
    [
      'the in-cluster broker → the local ingress, same path',
      IN_CLUSTER_SINK,
      INGRESS,
      `${INGRESS}/landscape-system/default`,
    ],
    [
      'an explicit port 80 is the same host',
      `http://${IN_CLUSTER_BROKER_HOST}:80/ns/b`,
      INGRESS,
      `${INGRESS}/ns/b`,
    ],
    ['https too', `https://${IN_CLUSTER_BROKER_HOST}/ns/b`, INGRESS, `${INGRESS}/ns/b`],
    [
      'an ingress URL with a trailing slash',
      IN_CLUSTER_SINK,
      `${INGRESS}/`,
      `${INGRESS}/landscape-system/default`,
    ],
    [
      'another host: unchanged',
      'http://my-sink.default.svc.cluster.local/x',
      INGRESS,
      'http://my-sink.default.svc.cluster.local/x',
    ],
    [
      'a host that only starts like the broker: unchanged',
      `http://${IN_CLUSTER_BROKER_HOST}.example.com/ns/b`,
      INGRESS,
      `http://${IN_CLUSTER_BROKER_HOST}.example.com/ns/b`,
    ],
    [
      'the broker host in the path only: unchanged',
      `http://x/${IN_CLUSTER_BROKER_HOST}`,
      INGRESS,
      `http://x/${IN_CLUSTER_BROKER_HOST}`,
    ],
    ['not a URL: unchanged', 'not a url', INGRESS, 'not a url'],
    ['empty: unchanged', '', INGRESS, ''],
  ])('%s', (_, value, ingressUrl, expected) => {
    expect(localSink(value, ingressUrl)).toBe(expected);
  });
});

describe('localConfigFile', () => {
  const mapped = join(CONFIG_DIR, 'requeue-tick.yaml');
  it.each<[string, string, string | undefined, string]>([
    ['a file inside the config mount', '/etc/landscape/config.yaml', '/etc/landscape', mapped],
    ['a file deeper inside the mount', '/etc/landscape/sub/x.yaml', '/etc/landscape', mapped],
    ['a mount path with a trailing slash', '/etc/landscape/config.yaml', '/etc/landscape/', mapped],
    ['the mount path itself: unchanged', '/etc/landscape', '/etc/landscape', '/etc/landscape'],
    [
      'a sibling directory sharing the prefix: unchanged',
      '/etc/landscape-other/config.yaml',
      '/etc/landscape',
      '/etc/landscape-other/config.yaml',
    ],
    ['outside the mount: unchanged', '/var/config.yaml', '/etc/landscape', '/var/config.yaml'],
    ['no config mount: unchanged', '/etc/landscape/config.yaml', undefined, '/etc/landscape/config.yaml'],
  ])('%s', (_, value, configMountPath, expected) => {
    expect(localConfigFile(value, fn({ configMountPath }), CONFIG_DIR)).toBe(expected);
  });
});

describe('replicaEnv', () => {
  it('K_SERVICE, K_REVISION, K_CONFIGURATION, FUNCTION_TARGET, KUBECONFIG, NODE_ENV and the Pod identity, nothing else from an empty host', async () => {
    expect(await replicaEnv(fn(), ctx())).toEqual({
      K_SERVICE: 'requeue-tick',
      K_REVISION: 'requeue-tick-00001',
      K_CONFIGURATION: 'requeue-tick',
      FUNCTION_TARGET: 'requeue-tick',
      KUBECONFIG: '/home/me/landscape/kubeconfig',
      NODE_ENV: 'production',
      // the hostname and the namespace file of a Pod, as the overrides shared/function/pod.ts reads
      POD_NAME: POD,
      POD_NAMESPACE: 'landscape-system',
    });
  });

  it("a Service's own POD_NAMESPACE wins over the namespace file's stand-in", async () => {
    const env = await replicaEnv(
      fn({ env: [{ name: 'POD_NAMESPACE', from: { kind: 'value', value: 'elsewhere' } }] }),
      ctx(),
    );
    expect(env.POD_NAMESPACE).toBe('elsewhere');
  });

  const HOST = {
    PATH: '/usr/bin',
    HOME: '/home/me',
    TZ: 'UTC',
    LANG: 'C.UTF-8',
    NODE_OPTIONS: '--enable-source-maps',
    LOG_LEVEL: 'debug',
    REDIS_URL: 'redis://host-only',
    KUBECONFIG: '/home/me/.kube/config',
    K_SINK: 'http://host-only/',
    AWS_SECRET_ACCESS_KEY: 'secret',
    NODE_ENV: 'development',
  };

  it.each<[string, string | undefined]>([
    ['PATH', '/usr/bin'],
    ['HOME', '/home/me'],
    ['TZ', 'UTC'],
    ['LANG', 'C.UTF-8'],
    ['NODE_OPTIONS', '--enable-source-maps'],
    ['LOG_LEVEL', 'debug'],
    ['REDIS_URL', undefined],
    ['K_SINK', undefined],
    ['AWS_SECRET_ACCESS_KEY', undefined],
    ['KUBECONFIG', '/home/me/landscape/kubeconfig'],
    ['NODE_ENV', 'production'],
  ])('from the landscape process: %s → %s', async (key, expected) => {
    const env = await replicaEnv(fn(), ctx({ hostEnv: HOST }));
    expect(env[key]).toBe(expected);
  });

  it.each<[string, string, Partial<FunctionService>, string | undefined]>([
    ['metadata.name: the pod name', 'metadata.name', {}, POD],
    ['metadata.namespace: the Service namespace', 'metadata.namespace', {}, 'landscape-system'],
    ['spec.serviceAccountName', 'spec.serviceAccountName', { serviceAccountName: 'ticker' }, 'ticker'],
    ['spec.serviceAccountName defaults to default', 'spec.serviceAccountName', {}, 'default'],
    ['status.podIP: loopback', 'status.podIP', {}, '127.0.0.1'],
    ['an unknown field: left out', 'status.hostIP', {}, undefined],
  ])('downward API: %s', async (_, fieldPath, service, expected) => {
    const env = await one('X', { kind: 'field', fieldPath }, service);
    expect(env.X).toBe(expected);
    expect('X' in env).toBe(expected !== undefined);
  });

  it.each<[string, string, string, Partial<FunctionService>, string]>([
    [
      'K_SINK to the in-cluster broker: rewritten',
      'K_SINK',
      IN_CLUSTER_SINK,
      {},
      `${INGRESS}/landscape-system/default`,
    ],
    ['K_SINK elsewhere: kept', 'K_SINK', 'http://other.example/x', {}, 'http://other.example/x'],
    ['another name with the broker URL: kept', 'BROKER_URL', IN_CLUSTER_SINK, {}, IN_CLUSTER_SINK],
    [
      'CONFIG_FILE inside the config mount: the landscape file',
      'CONFIG_FILE',
      '/etc/landscape/config.yaml',
      {},
      join(CONFIG_DIR, 'requeue-tick.yaml'),
    ],
    ['CONFIG_FILE outside the mount: kept', 'CONFIG_FILE', '/opt/config.yaml', {}, '/opt/config.yaml'],
    [
      'CONFIG_FILE without a config mount: kept',
      'CONFIG_FILE',
      '/etc/landscape/config.yaml',
      { configMountPath: undefined },
      '/etc/landscape/config.yaml',
    ],
    [
      'another name inside the mount: kept',
      'OTHER_FILE',
      '/etc/landscape/x.yaml',
      {},
      '/etc/landscape/x.yaml',
    ],
    ['a plain value', 'GREETING', 'hello', {}, 'hello'],
    ['an empty value is kept empty', 'EMPTY', '', {}, ''],
  ])('value: %s', async (_, name, value, service, expected) => {
    const env = await one(name, { kind: 'value', value }, service);
    expect(env[name]).toBe(expected);
  });

  it.each<[string, EnvSource, string | undefined, string | undefined]>([
    [
      'K_SINK to the in-cluster broker: the local token',
      { kind: 'value', value: IN_CLUSTER_SINK },
      'tok',
      'tok',
    ],
    [
      'K_SINK elsewhere: no token (it would leak to that sink)',
      { kind: 'value', value: 'http://other.example/x' },
      'tok',
      undefined,
    ],
    ['no ingress token: none', { kind: 'value', value: IN_CLUSTER_SINK }, undefined, undefined],
    [
      'K_SINK from a Secret (not rewritten): no token',
      { kind: 'secret', name: 'sink', key: 'url', optional: true },
      'tok',
      undefined,
    ],
  ])('K_SINK_TOKEN: %s', async (_, from, ingressToken, expected) => {
    const env = await one('K_SINK', from, {}, ctx({ ingressToken }));
    expect(env.K_SINK_TOKEN).toBe(expected);
    expect('K_SINK_TOKEN' in env).toBe(expected !== undefined);
  });

  it("K_SINK_TOKEN: the local token replaces the Service's own when K_SINK is rewritten", async () => {
    const service = fn({
      env: [
        { name: 'K_SINK_TOKEN', from: { kind: 'value', value: 'cluster-token' } },
        { name: 'K_SINK', from: { kind: 'value', value: IN_CLUSTER_SINK } },
      ],
    });
    expect((await replicaEnv(service, ctx({ ingressToken: 'local' }))).K_SINK_TOKEN).toBe('local');
    const elsewhere = fn({
      env: [
        { name: 'K_SINK_TOKEN', from: { kind: 'value', value: 'cluster-token' } },
        { name: 'K_SINK', from: { kind: 'value', value: 'http://other.example/x' } },
      ],
    });
    expect((await replicaEnv(elsewhere, ctx({ ingressToken: 'local' }))).K_SINK_TOKEN).toBe('cluster-token');
  });

  it('a Service env entry wins over the fixed variables', async () => {
    const env = await one(
      'LOG_LEVEL',
      { kind: 'value', value: 'warn' },
      {},
      ctx({ hostEnv: { LOG_LEVEL: 'debug' } }),
    );
    expect(env.LOG_LEVEL).toBe('warn');
  });

  const CLUSTER = {
    'secret landscape-system/landscape-redis url': 'redis://in-cluster:6379/0',
    'configMap landscape-system/settings mode': 'fast',
  };

  it.each<[string, EnvSource, string | undefined, string]>([
    [
      'a Secret key',
      { kind: 'secret', name: 'landscape-redis', key: 'url', optional: false },
      'redis://in-cluster:6379/0',
      'secret landscape-system/landscape-redis url',
    ],
    [
      'a ConfigMap key',
      { kind: 'configMap', name: 'settings', key: 'mode', optional: false },
      'fast',
      'configMap landscape-system/settings mode',
    ],
    [
      'a missing optional Secret key: left out',
      { kind: 'secret', name: 'landscape-redis', key: 'password', optional: true },
      undefined,
      'secret landscape-system/landscape-redis password',
    ],
    [
      'a missing optional ConfigMap: left out',
      { kind: 'configMap', name: 'absent', key: 'k', optional: true },
      undefined,
      'configMap landscape-system/absent k',
    ],
  ])('lookup: %s', async (_, from, expected, call) => {
    const cluster = fakeLookup(CLUSTER);
    const env = await one('V', from, {}, ctx({ lookup: cluster.lookup }));
    expect(env.V).toBe(expected);
    expect('V' in env).toBe(expected !== undefined);
    expect(cluster.calls).toEqual([call]);
  });

  it.each<[string, EnvSource, string]>([
    [
      'a missing Secret key',
      { kind: 'secret', name: 'landscape-redis', key: 'password', optional: false },
      'REDIS_URL: secret landscape-system/landscape-redis has no key "password"',
    ],
    [
      'a missing ConfigMap',
      { kind: 'configMap', name: 'absent', key: 'k', optional: false },
      'REDIS_URL: configMap landscape-system/absent has no key "k"',
    ],
  ])('lookup: %s that is not optional → EnvError naming it', async (_, from, message) => {
    const cluster = fakeLookup(CLUSTER);
    const err: unknown = await one('REDIS_URL', from, {}, ctx({ lookup: cluster.lookup })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EnvError);
    expect((err as EnvError).name).toBe('EnvError');
    expect((err as EnvError).message).toBe(message);
  });

  it('the manifest of requeue-tick, end to end', async () => {
    const cluster = fakeLookup(CLUSTER);
    const service = fn({
      serviceAccountName: 'requeue-tick',
      // no downward API; K_SINK and K_CE_OVERRIDES appended by the SinkBinding (sinkbinding.ts)
      env: [
        { name: 'CONFIG_FILE', from: { kind: 'value', value: '/etc/landscape/config.yaml' } },
        { name: 'REDIS_URL', from: { kind: 'secret', name: 'landscape-redis', key: 'url', optional: false } },
        { name: 'K_SINK', from: { kind: 'value', value: IN_CLUSTER_SINK } },
        { name: 'K_CE_OVERRIDES', from: { kind: 'value', value: '' } },
      ],
    });
    const context = ctx({ lookup: cluster.lookup, hostEnv: { PATH: '/bin' }, ingressToken: 'ingress-token' });
    expect(await replicaEnv(service, context)).toEqual({
      PATH: '/bin',
      K_SERVICE: 'requeue-tick',
      K_REVISION: 'requeue-tick-00001',
      K_CONFIGURATION: 'requeue-tick',
      FUNCTION_TARGET: 'requeue-tick',
      KUBECONFIG: '/home/me/landscape/kubeconfig',
      NODE_ENV: 'production',
      POD_NAME: POD,
      POD_NAMESPACE: 'landscape-system',
      K_SINK: `${INGRESS}/landscape-system/default`,
      K_CE_OVERRIDES: '',
      K_SINK_TOKEN: 'ingress-token',
      CONFIG_FILE: join(CONFIG_DIR, 'requeue-tick.yaml'),
      REDIS_URL: 'redis://in-cluster:6379/0',
    });
  });
});
